import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createArticleStore } from '../adapters/article-store';
import { tableFromEnv } from '../adapters/dynamo/client';
import { DynamoSiteStore } from '../adapters/dynamo/site-store';
import type { ArticleStore } from '../core/article/article';
import { parseRetirement, type Retirement } from '../core/contract/retirement';
import { iconHeaders, parseIconFileName, type SiteStore } from '../core/enrich/icons';
import { httpRoute } from '../http/middleware';
import { errorResponse } from '../http/responses';
import { deferred, type Environment } from '../platform/env';
import { createLogger } from '../platform/observability';
import { setting, settings } from '../platform/settings';
import { createTracing, type Tracing } from '../platform/tracing';

/**
 * GET /icons/{icon_file} — a stored favicon, immutable (its name is its content hash); and
 * GET /articles/{article_id}/images/{image_file} — an image of a kept article, by content hash under
 * its article's id (an unguessable UUID), cached a day so a deleted article's images do not linger.
 */

export interface GetIconDeps {
  readonly icons: Pick<SiteStore, 'getIcon'>;
  readonly articles: Pick<ArticleStore, 'getImage'>;
  readonly logger: Logger;
  readonly tracing?: Tracing;
  readonly retirement?: Retirement | null;
}

const NOT_FOUND = { code: 'not_found', message: 'Icon not found' };
const IMAGE_NOT_FOUND = { code: 'not_found', message: 'Image not found' };
const ARTICLE_ID = /^[0-9a-f-]{36}$/;

export function makeHandler(deps: GetIconDeps) {
  return httpRoute((event) => getIcon(deps, event), {
    logger: deps.logger,
    tracing: deps.tracing,
    corsOrigins: ['*'],
    retirement: deps.retirement,
  });
}

async function getIcon(deps: GetIconDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  if (event.pathParameters?.article_id !== undefined) return getArticleImage(deps, event);
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

async function getArticleImage(deps: GetIconDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const articleId = event.pathParameters?.article_id ?? '';
  const fileName = event.pathParameters?.image_file ?? '';
  const image =
    ARTICLE_ID.test(articleId) && parseIconFileName(fileName)
      ? await deps.articles.getImage(articleId, fileName)
      : null;
  if (!image) return errorResponse(404, IMAGE_NOT_FOUND, { 'Cache-Control': 'public, max-age=60' });
  return {
    statusCode: 200,
    headers: { ...iconHeaders(image.mediaType), 'Cache-Control': 'public, max-age=86400' },
    body: Buffer.from(image.bytes).toString('base64'),
    isBase64Encoded: true,
  };
}

export function createHandler(env: Environment) {
  const tracing = createTracing();
  const { doc, tableName } = tableFromEnv(env, tracing.instrument);
  return makeHandler({
    icons: new DynamoSiteStore(doc, tableName),
    articles: createArticleStore(setting(env, settings.articleStore)),
    logger: createLogger(env),
    tracing,
    retirement: parseRetirement(setting(env, settings.routeRetirement)),
  });
}

export const handler = deferred(() => createHandler(process.env));
