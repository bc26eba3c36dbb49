import type { Logger } from '@aws-lambda-powertools/logger';
import { renderLandingPage } from '../core/site/landing-page';
import { httpRoute } from '../http/middleware';
import { deferred, type Environment } from '../platform/env';
import { createLogger } from '../platform/observability';
import { routeUrl } from '../platform/routes';
import { setting, settings } from '../platform/settings';

/** GET / — a landing page for people who open the service's address, until the web app serves it. */

const LANDING_CACHE_CONTROL = 'public, max-age=300';

export function makeHandler(deps: { logger: Logger; demoFeedId: string | null }) {
  // Links relative to the page: right behind CloudFront, a custom domain, an API stage or the local server alike.
  const relative = (routeId: string, params: Record<string, string>) => routeUrl('.', routeId, params);
  const page = renderLandingPage({
    openApi: relative('GetOpenApiDocument', {}),
    demoFeed: deps.demoFeedId && relative('GetFeedPage', { feed_id: deps.demoFeedId }),
  });
  return httpRoute(
    async () => ({
      statusCode: 200,
      headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': LANDING_CACHE_CONTROL },
      body: page,
    }),
    { logger: deps.logger, corsOrigins: [] },
  );
}

export const createHandler = (env: Environment) =>
  makeHandler({ logger: createLogger(env), demoFeedId: setting(env, settings.demoFeedId) ?? null });
export const handler = deferred(() => createHandler(process.env));
