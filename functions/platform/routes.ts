import { checkRetirement, type Retirement } from '../core/contract/retirement';
import { webPaths } from '../core/web/paths';
import { rateLimitSettings, settings } from './settings';

/**
 * The HTTP route table: one entry per API Gateway route, each on its own Lambda.
 * The CDK API stack and the local HTTP server both read it, so a route exists in both or neither.
 */
export interface RouteDefinition {
  /** Logical id, used for the Lambda construct and log names. */
  readonly id: string;
  readonly method: 'GET' | 'POST';
  /** API Gateway resource path; `{name}` segments become path parameters. */
  readonly path: string;
  /**
   * Handler module, relative to the repository root. It exports `handler` (what Lambda runs, built
   * from process.env) and `createHandler(env)` (the same handler, built by the local stack).
   */
  readonly entry: string;
  /** Which quota in cdk.json context (`throttle.<name>`) API Gateway applies to this route. */
  readonly throttle: 'save' | 'feed' | 'icon' | 'openapi' | 'web';
  /**
   * Set when browsers call the route with headers that need a CORS preflight: API Gateway and the
   * local stack then answer its OPTIONS. (The handler sends the CORS headers of its own answers.)
   */
  readonly preflight?: PreflightSettings;
  /** Served to the public through CloudFront (cached by the origin's Cache-Control). */
  readonly cdn: boolean;
  /** Query parameters that select the answer (a page): CloudFront keys its cache on them and passes them on; others are dropped. */
  readonly cacheQuery?: readonly string[];
  /** A GET route that also answers HEAD (the same answer without its body), for feed readers and link checkers. */
  readonly answersHead?: boolean;
  /** Set when the route is retiring: every answer then carries Deprecation, Sunset and Link. */
  readonly retirement?: Retirement;
  /** What the function may touch; the CDK stack turns each into a least-privilege grant plus env. */
  readonly access: readonly ResourceAccess[];
}

/**
 * - `table:read`: GetItem/Query/BatchGetItem on the table and its indexes (env TABLE_NAME)
 * - `table:write`: item writes and transactions on the table (env TABLE_NAME)
 * - `table:rate-limit`: UpdateItem on rate-limit window items only (`RL#…` keys)
 * - `queue:enrichment` / `queue:favicon`: SendMessage to that queue (env from workers.ts `queues`)
 * - `mail:send`: SES SendEmail from the configured sender (env MAIL_FROM)
 * - `oauth:keys`: read the authorization server's key secret (env OAUTH_KEYS_SECRET_ARN)
 */
export type ResourceAccess =
  | 'table:read'
  | 'table:write'
  | 'table:rate-limit'
  | 'queue:enrichment'
  | 'queue:favicon'
  | 'mail:send'
  | 'oauth:keys';

export interface PreflightSettings {
  /** `configured`: the origins in CORS_ALLOWED_ORIGINS (the browser extension); `any`: every site (public feeds, embedded anywhere). */
  readonly origins: 'configured' | 'any';
  /** Request headers a preflight allows. */
  readonly allowHeaders: readonly string[];
}

/**
 * What every representation of a published feed shares: the feed quota, cached by CloudFront, HEAD
 * for readers and link checkers, reading the table and counting readers. Site embeds revalidate
 * with conditional GET, whose headers make the browser send a preflight.
 */
const feedRead = {
  throttle: 'feed',
  preflight: { origins: 'any', allowHeaders: ['If-None-Match', 'If-Modified-Since'] },
  cdn: true,
  answersHead: true,
  access: ['table:read', 'table:rate-limit'],
} as const satisfies Partial<RouteDefinition>;

/**
 * The web app's account pages and their form posts (functions/web-account): never cached, reading and
 * writing the table (logins, sessions, one-time links, passkeys) and counting sign-in attempts.
 */
function accountRoute(id: string, method: 'GET' | 'POST', path: string): RouteDefinition {
  return {
    id,
    method,
    path,
    entry: 'functions/web-account/handler.ts',
    throttle: 'web',
    cdn: false,
    access: ['table:read', 'table:write', 'table:rate-limit', 'mail:send'],
  };
}

/**
 * The OAuth 2.1 authorization server (functions/oauth: oidc-provider behind one proxy route) and its
 * discovery documents. Browser-based clients call the token, registration and revocation endpoints
 * from other origins, so the POSTs answer a preflight from any origin.
 */
function oauthRoute(id: string, method: 'GET' | 'POST', path: string): RouteDefinition {
  return {
    id,
    method,
    path,
    entry: 'functions/oauth/handler.ts',
    throttle: 'web',
    cdn: false,
    ...(method === 'POST'
      ? { preflight: { origins: 'any', allowHeaders: ['Authorization', 'Content-Type', 'DPoP'] } }
      : {}),
    access: ['table:read', 'table:write', 'table:rate-limit', 'oauth:keys'],
  };
}

export const routes: readonly RouteDefinition[] = [
  {
    id: 'SaveBookmark',
    method: 'POST',
    path: '/api/v1/bookmarks/save',
    entry: 'functions/save-bookmark/handler.ts',
    throttle: 'save',
    preflight: { origins: 'configured', allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'] },
    cdn: false,
    access: ['table:read', 'table:write', 'queue:enrichment'],
  },
  {
    id: 'GetPublishedFeed',
    method: 'GET',
    path: '/api/v2/publisher/feeds/{feed_id}/public',
    entry: 'functions/published-feed-json/handler.ts',
    ...feedRead,
  },
  {
    id: 'GetPublishedFeedRss',
    method: 'GET',
    path: '/api/v2/publisher/feeds/{feed_id}/rss',
    entry: 'functions/published-feed-rss/handler.ts',
    ...feedRead,
  },
  {
    // Listed before GetFeedPage: the local stack takes the first match, as API Gateway prefers a literal segment.
    id: 'GetFeedEmbedScript',
    method: 'GET',
    path: '/feeds/embed.js',
    entry: 'functions/feed-embed-script/handler.ts',
    throttle: 'feed',
    cdn: true,
    answersHead: true,
    access: [],
  },
  {
    id: 'GetFeedAtom',
    method: 'GET',
    path: '/feeds/{feed_id}/atom',
    entry: 'functions/feed-atom/handler.ts',
    ...feedRead,
    cacheQuery: ['limit', 'cursor'],
  },
  {
    id: 'GetJsonFeed',
    method: 'GET',
    path: '/feeds/{feed_id}/feed.json',
    entry: 'functions/json-feed/handler.ts',
    ...feedRead,
    cacheQuery: ['limit', 'cursor'],
  },
  {
    id: 'GetFeedPage',
    method: 'GET',
    path: '/feeds/{feed_id}',
    entry: 'functions/feed-page/handler.ts',
    // Its preflight too (OPTIONS answers 204, as on the other feed routes: issue 21).
    ...feedRead,
  },
  {
    id: 'GetIcon',
    method: 'GET',
    path: '/icons/{icon_file}',
    entry: 'functions/get-icon/handler.ts',
    throttle: 'icon',
    cdn: true,
    answersHead: true,
    access: ['table:read'],
  },
  {
    // A landing page for people at the service's address (the web app takes it over); not cached by
    // CloudFront, so it is the default behaviour's, as every path outside the cached ones.
    id: 'GetLandingPage',
    method: 'GET',
    path: '/',
    entry: 'functions/landing-page/handler.ts',
    throttle: 'openapi',
    cdn: false,
    access: [],
  },
  {
    // The OpenAPI description of the routes above; not itself one of the contract's operations.
    id: 'GetOpenApiDocument',
    method: 'GET',
    path: '/openapi.json',
    entry: 'functions/get-openapi-document/handler.ts',
    throttle: 'openapi',
    cdn: true,
    answersHead: true,
    access: [],
  },
  accountRoute('WebHome', 'GET', webPaths.home),
  accountRoute('WebSignUpPage', 'GET', webPaths.signUp),
  accountRoute('WebSignUp', 'POST', webPaths.signUp),
  accountRoute('WebSignInPage', 'GET', webPaths.signIn),
  accountRoute('WebSignIn', 'POST', webPaths.signIn),
  accountRoute('WebSignOut', 'POST', webPaths.signOut),
  accountRoute('WebVerifyEmail', 'GET', webPaths.verifyEmail),
  accountRoute('WebForgotPasswordPage', 'GET', webPaths.forgotPassword),
  accountRoute('WebForgotPassword', 'POST', webPaths.forgotPassword),
  accountRoute('WebSetPasswordPage', 'GET', webPaths.setPassword),
  accountRoute('WebSetPassword', 'POST', webPaths.setPassword),
  accountRoute('WebAccountPage', 'GET', webPaths.account),
  accountRoute('WebChangeEmail', 'POST', webPaths.accountEmail),
  accountRoute('WebChangePassword', 'POST', webPaths.accountPassword),
  accountRoute('WebPasskeyRegisterOptions', 'POST', webPaths.passkeyRegisterOptions),
  accountRoute('WebPasskeyRegister', 'POST', webPaths.passkeyRegister),
  accountRoute('WebPasskeyDelete', 'POST', webPaths.passkeyDelete),
  accountRoute('WebPasskeySignInOptions', 'POST', webPaths.passkeySignInOptions),
  accountRoute('WebPasskeySignIn', 'POST', webPaths.passkeySignIn),
  accountRoute('WebConnectedAppsPage', 'GET', webPaths.connectedApps),
  accountRoute('WebConnectedAppRevoke', 'POST', webPaths.connectedAppRevoke),
  {
    id: 'GetMyAccount',
    method: 'GET',
    path: '/api/v2/me',
    entry: 'functions/me-account/handler.ts',
    throttle: 'web',
    cdn: false,
    access: ['table:read'],
  },
  oauthRoute('OAuthGet', 'GET', '/oauth/{proxy+}'),
  oauthRoute('OAuthPost', 'POST', '/oauth/{proxy+}'),
  oauthRoute('OAuthServerMetadata', 'GET', '/.well-known/oauth-authorization-server'),
  oauthRoute('OpenIdConfiguration', 'GET', '/.well-known/openid-configuration'),
  oauthRoute('OwnerApiResourceMetadata', 'GET', '/.well-known/oauth-protected-resource/api/v2/me'),
];

export type RateLimitedQuota = keyof typeof rateLimitSettings;

export function isRateLimited(quota: RouteDefinition['throttle']): quota is RateLimitedQuota {
  return quota in rateLimitSettings;
}

/** Settings a route's function gets from its table entry (besides its grants), in the CDK stack and locally. */
export function routeEnvironment(route: RouteDefinition): Record<string, string> {
  return route.retirement ? { [settings.routeRetirement.name]: JSON.stringify(route.retirement) } : {};
}

/** The methods API Gateway and the local stack answer on a route's path. */
export function routeMethods(route: RouteDefinition): string[] {
  return route.answersHead ? [route.method, 'HEAD'] : [route.method];
}

/**
 * Every method answered on a path, preflight included: what a 405 for another method lists in `Allow`,
 * in API Gateway and in the local stack alike.
 */
export function pathMethods(table: readonly RouteDefinition[], path: string): string[] {
  const onPath = table.filter((route) => route.path === path);
  return [...onPath.flatMap(routeMethods), ...(onPath.some((route) => route.preflight) ? ['OPTIONS'] : [])];
}

/** Refuses a route table that breaks the contract's promises (a retirement with less than six months' notice). */
export function checkRouteTable(table: readonly RouteDefinition[]): void {
  for (const route of table) if (route.retirement) checkRetirement(route.id, route.retirement);
}

/** How long browsers may cache a preflight answer, in API Gateway and in the local stack alike. */
export const CORS_PREFLIGHT_MAX_AGE_SECONDS = 600;

/** Every route's function timeout, deployed and local alike: the budget of a request's retries. */
export const ROUTE_TIMEOUT_SECONDS = 10;

/** The origins a route's preflight admits, given the configured ones. */
export function corsAllowedOrigins(preflight: PreflightSettings, configured: readonly string[]): readonly string[] {
  return preflight.origins === 'any' ? ['*'] : configured;
}

/** The absolute URL of a route, e.g. the RSS address of a feed. */
export function routeUrl(baseUrl: string, routeId: string, params: Record<string, string>): string {
  const route = routes.find((candidate) => candidate.id === routeId);
  if (!route) throw new Error(`No route ${routeId}`);
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/** API Gateway path template → RegExp capturing the `{name}` segments (and a greedy last `{name+}`). */
export function compileRoutePath(path: string): { pattern: RegExp; params: string[] } {
  const params: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      const match = /^\{(\w+)(\+?)\}$/.exec(segment);
      if (!match) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      params.push(match[1]!);
      return match[2] ? '(.+)' : '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}$`), params };
}
