import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { tableFromEnv } from '../adapters/dynamo/client';
import { DynamoSiteStore } from '../adapters/dynamo/site-store';
import { parseRetirement, type Retirement } from '../core/contract/retirement';
import { iconHeaders, parseIconFileName, type SiteStore } from '../core/enrich/icons';
import { httpRoute } from '../http/middleware';
import { errorResponse } from '../http/responses';
import { deferred, type Environment } from '../platform/env';
import { createLogger } from '../platform/observability';
import { setting, settings } from '../platform/settings';
import { createTracing, type Tracing } from '../platform/tracing';

/** GET /icons/{icon_file} — a stored favicon, immutable (its name is its content hash). */

export interface GetIconDeps {
  readonly icons: Pick<SiteStore, 'getIcon'>;
  readonly logger: Logger;
  readonly tracing?: Tracing;
  readonly retirement?: Retirement | null;
}

const NOT_FOUND = { code: 'not_found', message: 'Icon not found' };

export function makeHandler(deps: GetIconDeps) {
  return httpRoute((event) => getIcon(deps, event), {
    logger: deps.logger,
    tracing: deps.tracing,
    corsOrigins: ['*'],
    retirement: deps.retirement,
  });
}

async function getIcon(deps: GetIconDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const hash = parseIconFileName(event.pathParameters?.icon_file);
  const icon = hash ? await deps.icons.getIcon(hash) : null;
  if (!icon) return errorResponse(404, NOT_FOUND, { 'Cache-Control': 'public, max-age=60' });
  return {
    statusCode: 200,
    headers: iconHeaders(icon.mediaType),
    body: Buffer.from(icon.bytes).toString('base64'),
    isBase64Encoded: true,
  };
}

export function createHandler(env: Environment) {
  const tracing = createTracing();
  const { doc, tableName } = tableFromEnv(env, tracing.instrument);
  return makeHandler({
    icons: new DynamoSiteStore(doc, tableName),
    logger: createLogger(env),
    tracing,
    retirement: parseRetirement(setting(env, settings.routeRetirement)),
  });
}

export const handler = deferred(() => createHandler(process.env));
