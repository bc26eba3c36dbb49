import { createHash } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import { FEED_EMBED_SCRIPT } from '../core/feed/embed-script';
import { httpRoute } from '../http/middleware';
import { header } from '../http/responses';
import { deferred, type Environment } from '../platform/env';
import { createLogger } from '../platform/observability';

/**
 * GET /feeds/embed.js — the script feed pages hand out for embedding. It changes only with a
 * deployment, so it is cached for an hour and revalidated by its ETag.
 */
const EMBED_CACHE_CONTROL = 'public, max-age=3600';
const EMBED_ETAG = `"${createHash('sha256').update(FEED_EMBED_SCRIPT).digest('base64url').slice(0, 22)}"`;

export function makeHandler(deps: { logger: Logger }) {
  return httpRoute(
    async (event) => {
      const headers = { ETag: EMBED_ETAG, 'Cache-Control': EMBED_CACHE_CONTROL };
      if (header(event.headers, 'If-None-Match') === EMBED_ETAG) return { statusCode: 304, headers, body: '' };
      return {
        statusCode: 200,
        headers: { ...headers, 'Content-Type': 'text/javascript; charset=utf-8' },
        body: FEED_EMBED_SCRIPT,
      };
    },
    { logger: deps.logger, corsOrigins: ['*'] },
  );
}

export const createHandler = (env: Environment) => makeHandler({ logger: createLogger(env) });
export const handler = deferred(() => createHandler(process.env));
