import type { Logger } from '@aws-lambda-powertools/logger';
import contractDocument from '../../openapi.json' with { type: 'json' };
import ownerApiDocument from '../../openapi-v2.json' with { type: 'json' };
import { httpRoute } from '../http/middleware';
import { jsonResponse } from '../http/responses';
import { deferred, type Environment } from '../platform/env';
import { createLogger } from '../platform/observability';

/**
 * GET /openapi.json — the committed OpenAPI description of the contract — and GET /openapi/v2.json —
 * the per-user API's and the other feed formats' — bundled into the function.
 * Served as application/json rather than the draft application/openapi+json: every client and
 * CloudFront's compression know the former. Cached for a short while, as a deployment changes it.
 */

const OPENAPI_CACHE_CONTROL = 'public, max-age=300';

export function makeHandler(deps: { logger: Logger }) {
  return httpRoute(
    async (event) =>
      jsonResponse(200, event.resource === '/openapi/v2.json' ? ownerApiDocument : contractDocument, {
        'Cache-Control': OPENAPI_CACHE_CONTROL,
      }),
    {
      logger: deps.logger,
      corsOrigins: ['*'],
    },
  );
}

export const createHandler = (env: Environment) => makeHandler({ logger: createLogger(env) });
export const handler = deferred(() => createHandler(process.env));
