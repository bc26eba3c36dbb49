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
  readonly throttle: 'save' | 'feed' | 'icon';
  /** Answered for browser extensions with CORS preflight (Authorization allowed). */
  readonly cors: boolean;
  /** Served to the public through CloudFront (cached by the origin's Cache-Control). */
  readonly cdn: boolean;
  /** What the function may touch; the CDK stack turns each into a least-privilege grant plus env. */
  readonly access: readonly ResourceAccess[];
}

/**
 * - `table:read`: GetItem/Query/BatchGetItem on the table and its indexes (env TABLE_NAME)
 * - `table:write`: item writes and transactions on the table (env TABLE_NAME)
 * - `table:rate-limit`: UpdateItem on rate-limit window items only (`RL#…` keys)
 * - `queue:enrichment` / `queue:favicon`: SendMessage to that queue (env from workers.ts `queues`)
 */
export type ResourceAccess = 'table:read' | 'table:write' | 'table:rate-limit' | 'queue:enrichment' | 'queue:favicon';

export const routes: readonly RouteDefinition[] = [
  {
    id: 'SaveBookmark',
    method: 'POST',
    path: '/api/v1/bookmarks/save',
    entry: 'functions/save-bookmark/handler.ts',
    throttle: 'save',
    cors: true,
    cdn: false,
    access: ['table:read', 'table:write', 'queue:enrichment'],
  },
  {
    id: 'GetPublishedFeed',
    method: 'GET',
    path: '/api/v2/publisher/feeds/{feed_id}/public',
    entry: 'functions/published-feed-json/handler.ts',
    throttle: 'feed',
    cors: false,
    cdn: true,
    access: ['table:read', 'table:rate-limit'],
  },
  {
    id: 'GetPublishedFeedRss',
    method: 'GET',
    path: '/api/v2/publisher/feeds/{feed_id}/rss',
    entry: 'functions/published-feed-rss/handler.ts',
    throttle: 'feed',
    cors: false,
    cdn: true,
    access: ['table:read', 'table:rate-limit'],
  },
  {
    id: 'GetIcon',
    method: 'GET',
    path: '/icons/{icon_file}',
    entry: 'functions/get-icon/handler.ts',
    throttle: 'icon',
    cors: false,
    cdn: true,
    access: ['table:read'],
  },
];

/** CORS preflight answers for routes with `cors: true`, in API Gateway and in the local stack alike. */
export const corsPreflight = {
  allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
  maxAgeSeconds: 600,
} as const;

/** The absolute URL of a route, e.g. the RSS address of a feed. */
export function routeUrl(baseUrl: string, routeId: string, params: Record<string, string>): string {
  const route = routes.find((candidate) => candidate.id === routeId);
  if (!route) throw new Error(`No route ${routeId}`);
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/** API Gateway path template → RegExp capturing the `{name}` segments. */
export function compileRoutePath(path: string): { pattern: RegExp; params: string[] } {
  const params: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      const match = /^\{(\w+)\}$/.exec(segment);
      if (!match) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      params.push(match[1]!);
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}$`), params };
}
