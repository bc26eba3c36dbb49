import { checkRetirement, type Retirement } from '../core/contract/retirement';
import type { Scope } from '../core/identity/principal';
import { webPaths } from '../core/web/paths';
import { rateLimitSettings, settings } from './settings';

/**
 * The HTTP route table: one entry per API Gateway route. Routes naming the same handler module share
 * its Lambda function (`routeFunctions`), and each route's methods live in its group's nested stack.
 * The CDK API stack and the local HTTP server both read it, so a route exists in both or neither.
 */
export interface RouteDefinition {
  /** Logical id, used for the Lambda construct and log names. */
  readonly id: string;
  readonly method: HttpMethod;
  /** API Gateway resource path; `{name}` segments become path parameters. */
  readonly path: string;
  /**
   * Handler module, relative to the repository root. It exports `handler` (what Lambda runs, built
   * from process.env) and `createHandler(env)` (the same handler, built by the local stack).
   */
  readonly entry: string;
  /**
   * The nested stack its API Gateway resources and methods live in (lib/route-group.ts), so the next
   * route costs resources there and not in the service's stack; routes on one path share a group.
   */
  readonly group: RouteGroup;
  /** Which quota in cdk.json context (`throttle.<name>`) API Gateway applies to this route. */
  readonly throttle: 'save' | 'feed' | 'icon' | 'openapi' | 'owner' | 'web';
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
  /**
   * The owner's side (`/api/v2/me/…` and the signed-in pages): the caller must be a signed-in principal
   * holding `scope` (any principal when absent); `session` routes refuse OAuth tokens too (API tokens,
   * account export and deletion, every page).
   */
  readonly owner?: { readonly scope?: Scope; readonly session?: boolean };
}

type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * The route groups, each a nested stack of the API's resources and methods: the contract's save
 * route with the public feeds, icons and OpenAPI documents; the per-user API; the web pages; the
 * OAuth server with MCP.
 */
export const routeGroups = ['save-and-feeds', 'owner-api', 'web-pages', 'oauth-and-mcp'] as const;
export type RouteGroup = (typeof routeGroups)[number];

/**
 * - `table:read`: GetItem/Query/BatchGetItem on the table and its indexes (env TABLE_NAME)
 * - `table:write`: item writes and transactions on the table (env TABLE_NAME)
 * - `table:rate-limit`: UpdateItem on rate-limit window items only (`RL#…` keys)
 * - `queue:enrichment` / `queue:favicon` / `queue:import`: SendMessage to that queue (env from workers.ts `queues`)
 * - `mail:send`: SES SendEmail from the configured sender (env MAIL_FROM)
 * - `oauth:keys`: read the authorization server's key secret (env OAUTH_KEYS_SECRET_ARN)
 * - `search:read` / `search:write`: the search index's bucket and commit table (env SEARCH_INDEX_URI)
 * - `embeddings`: InvokeModel on the one embedding model (env BEDROCK_EMBEDDINGS, GLEANER_EMBEDDINGS_MODEL)
 * - `articles:read` / `articles:write`: the kept articles' bucket (env ARTICLE_STORE)
 * - `uploads:write`: the import uploads' bucket: presign PUTs, read and delete (env IMPORT_UPLOADS)
 */
export type ResourceAccess =
  | 'table:read'
  | 'table:write'
  | 'table:rate-limit'
  | 'queue:enrichment'
  | 'queue:favicon'
  | 'queue:import'
  | 'queue:indexing'
  | 'mail:send'
  | 'oauth:keys'
  | 'search:read'
  | 'search:write'
  | 'embeddings'
  | 'articles:read'
  | 'articles:write'
  | 'uploads:write';

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
  group: 'save-and-feeds',
  throttle: 'feed',
  preflight: { origins: 'any', allowHeaders: ['If-None-Match', 'If-Modified-Since'] },
  cdn: true,
  answersHead: true,
  access: ['table:read', 'table:rate-limit'],
} as const satisfies Partial<RouteDefinition>;

/** The OpenAPI documents: one function serves both, cached by CloudFront. */
const openApiDocument = {
  entry: 'functions/get-openapi-document/handler.ts',
  group: 'save-and-feeds',
  throttle: 'openapi',
  cdn: true,
  answersHead: true,
  access: [],
} as const satisfies Partial<RouteDefinition>;

/** The per-user API: one function serves every operation (functions/owner-api), rate-limited per user. */
const ownerApi = {
  entry: 'functions/owner-api/handler.ts',
  group: 'owner-api',
  throttle: 'owner',
  cdn: false,
  access: ['table:read', 'table:write', 'table:rate-limit', 'articles:write', 'queue:import', 'uploads:write'],
} as const satisfies Partial<RouteDefinition>;

const OWNER_API_PATH = '/api/v2/me';

/**
 * Browser clients of the per-user API, OAuth public clients among them, call it from their own
 * origins with `Authorization: Bearer`. Any client may register (RFC 7591), so any origin may be
 * one: the preflight admits every origin. That gives a page nothing it does not already hold a token
 * for: answers never allow credentials (no Access-Control-Allow-Credentials), and the session cookie
 * is SameSite=Lax, which browsers do not send on another site's fetch, so a cross-origin call is
 * answered for its bearer token alone, or 401.
 */
export const OWNER_API_PREFLIGHT: PreflightSettings = {
  origins: 'any',
  allowHeaders: ['Authorization', 'Content-Type'],
};

function withOwnerApiPreflight(table: readonly RouteDefinition[]): RouteDefinition[] {
  return table.map((route) =>
    route.path === OWNER_API_PATH || route.path.startsWith(`${OWNER_API_PATH}/`)
      ? { ...route, preflight: OWNER_API_PREFLIGHT }
      : route,
  );
}

/** The per-user API's routes, `/api/v2/me/…`; `openapi.ts` documents them in `/openapi/v2.json`. */
const ownerApiRoutes: readonly RouteDefinition[] = withOwnerApiPreflight([
  { id: 'GetMyAccount', method: 'GET', path: '/api/v2/me', owner: {}, ...ownerApi },
  { id: 'DeleteMyAccount', method: 'DELETE', path: webPaths.accountApi, owner: { session: true }, ...ownerApi },
  { id: 'ExportMyAccount', method: 'GET', path: webPaths.accountExport, owner: { session: true }, ...ownerApi },
  { id: 'ListMyNotes', method: 'GET', path: '/api/v2/me/notes', owner: { scope: 'notes:read' }, ...ownerApi },
  // Bulk actions on the list's own path: a method, where a path of its own would cost the stack four resources.
  {
    id: 'BulkEditMyNotes',
    method: 'PATCH',
    path: '/api/v2/me/notes',
    owner: { scope: 'notes:write' },
    ...ownerApi,
  },
  { id: 'GetMyNote', method: 'GET', path: '/api/v2/me/notes/{note_id}', owner: { scope: 'notes:read' }, ...ownerApi },
  {
    id: 'GetMyNoteArticle',
    method: 'GET',
    path: '/api/v2/me/notes/{note_id}/article',
    owner: { scope: 'notes:read' },
    ...ownerApi,
  },
  {
    id: 'CreateMyHighlight',
    method: 'POST',
    path: '/api/v2/me/notes/{note_id}/highlights',
    owner: { scope: 'notes:write' },
    ...ownerApi,
  },
  {
    id: 'EditMyHighlight',
    method: 'PATCH',
    path: '/api/v2/me/notes/{note_id}/highlights/{highlight_id}',
    owner: { scope: 'notes:write' },
    ...ownerApi,
  },
  {
    id: 'DeleteMyHighlight',
    method: 'DELETE',
    path: '/api/v2/me/notes/{note_id}/highlights/{highlight_id}',
    owner: { scope: 'notes:write' },
    ...ownerApi,
  },
  {
    id: 'EditMyNote',
    method: 'PATCH',
    path: '/api/v2/me/notes/{note_id}',
    owner: { scope: 'notes:write' },
    ...ownerApi,
  },
  {
    id: 'DeleteMyNote',
    method: 'DELETE',
    path: '/api/v2/me/notes/{note_id}',
    owner: { scope: 'notes:write' },
    ...ownerApi,
  },
  // The Trash: deleted notes wait there 30 days (functions/core/owner/trash.ts).
  { id: 'ListMyTrash', method: 'GET', path: '/api/v2/me/trash', owner: { scope: 'notes:read' }, ...ownerApi },
  { id: 'EmptyMyTrash', method: 'DELETE', path: '/api/v2/me/trash', owner: { scope: 'notes:write' }, ...ownerApi },
  {
    id: 'DeleteMyNoteForever',
    method: 'DELETE',
    path: '/api/v2/me/trash/{note_id}',
    owner: { scope: 'notes:write' },
    ...ownerApi,
  },
  {
    id: 'RestoreMyNote',
    method: 'POST',
    path: '/api/v2/me/trash/{note_id}/restore',
    owner: { scope: 'notes:write' },
    ...ownerApi,
  },
  { id: 'ListMyTags', method: 'GET', path: '/api/v2/me/tags', owner: { scope: 'notes:read' }, ...ownerApi },
  {
    id: 'MergeMyTag',
    method: 'POST',
    path: '/api/v2/me/tags/{tag}/merge',
    owner: { scope: 'notes:write' },
    ...ownerApi,
  },
  { id: 'RenameMyTag', method: 'PATCH', path: '/api/v2/me/tags/{tag}', owner: { scope: 'notes:write' }, ...ownerApi },
  { id: 'ListMyFeeds', method: 'GET', path: '/api/v2/me/feeds', owner: { scope: 'feeds:read' }, ...ownerApi },
  { id: 'CreateMyFeed', method: 'POST', path: '/api/v2/me/feeds', owner: { scope: 'feeds:write' }, ...ownerApi },
  { id: 'GetMyFeed', method: 'GET', path: '/api/v2/me/feeds/{feed_id}', owner: { scope: 'feeds:read' }, ...ownerApi },
  {
    id: 'EditMyFeed',
    method: 'PATCH',
    path: '/api/v2/me/feeds/{feed_id}',
    owner: { scope: 'feeds:write' },
    ...ownerApi,
  },
  {
    id: 'DeleteMyFeed',
    method: 'DELETE',
    path: '/api/v2/me/feeds/{feed_id}',
    owner: { scope: 'feeds:write' },
    ...ownerApi,
  },
  // Puts a note into the feed by the tags the feed shows (library.addNoteToFeed, as MCP's add_note_to_feed).
  {
    id: 'AddMyNoteToFeed',
    method: 'PUT',
    path: '/api/v2/me/feeds/{feed_id}/notes/{note_id}',
    owner: { scope: 'feeds:write' },
    ...ownerApi,
  },
  { id: 'ListMyTokens', method: 'GET', path: '/api/v2/me/tokens', owner: { session: true }, ...ownerApi },
  { id: 'CreateMyToken', method: 'POST', path: '/api/v2/me/tokens', owner: { session: true }, ...ownerApi },
  {
    id: 'RevokeMyToken',
    method: 'DELETE',
    path: '/api/v2/me/tokens/{token_id}',
    owner: { session: true },
    ...ownerApi,
  },
  { id: 'GetMyReview', method: 'GET', path: '/api/v2/me/review', owner: { scope: 'review' }, ...ownerApi },
  {
    id: 'RateMyHighlight',
    method: 'POST',
    path: '/api/v2/me/review/{highlight_id}',
    owner: { scope: 'review' },
    ...ownerApi,
  },
  {
    id: 'GetMyReviewSettings',
    method: 'GET',
    path: '/api/v2/me/review-settings',
    owner: { scope: 'review' },
    ...ownerApi,
  },
  {
    id: 'EditMyReviewSettings',
    method: 'PATCH',
    path: '/api/v2/me/review-settings',
    owner: { scope: 'review' },
    ...ownerApi,
  },
  { id: 'GetMyReviewFeed', method: 'GET', path: '/api/v2/me/review-feed', owner: { scope: 'review' }, ...ownerApi },
  // Issuing the feed's secret address mints a credential: the web app only, as API tokens are.
  { id: 'IssueMyReviewFeed', method: 'POST', path: '/api/v2/me/review-feed', owner: { session: true }, ...ownerApi },
  {
    id: 'RevokeMyReviewFeed',
    method: 'DELETE',
    path: '/api/v2/me/review-feed',
    owner: { session: true },
    ...ownerApi,
  },
  // The review feed itself: no credentials, its secret address is the key; served by the same function.
  { id: 'GetReviewFeed', method: 'GET', path: '/review-feed/{secret}', answersHead: true, ...ownerApi },
  // Imports: made with the file's name (answered with where to upload it), started once it is uploaded.
  { id: 'ListMyImports', method: 'GET', path: '/api/v2/me/imports', owner: { scope: 'notes:read' }, ...ownerApi },
  { id: 'CreateMyImport', method: 'POST', path: '/api/v2/me/imports', owner: { scope: 'notes:write' }, ...ownerApi },
  {
    id: 'GetMyImport',
    method: 'GET',
    path: '/api/v2/me/imports/{import_id}',
    owner: { scope: 'notes:read' },
    ...ownerApi,
  },
  {
    id: 'StartMyImport',
    method: 'POST',
    path: '/api/v2/me/imports/{import_id}/start',
    owner: { scope: 'notes:write' },
    ...ownerApi,
  },
]);

/**
 * Search and related notes (functions/search-notes), for API clients and as pages: the one function
 * that carries the search engine (LanceDB), so the per-user API's function does not. It reads the
 * index, embeds queries and reads notes (ownership), rate-limited per user like the per-user API.
 */
function searchRoute(id: string, path: string, owner: NonNullable<RouteDefinition['owner']>): RouteDefinition {
  return {
    id,
    method: 'GET',
    path,
    entry: 'functions/search-notes/handler.ts',
    // The API's searches with the API, the pages' with the pages.
    group: owner.session ? 'web-pages' : 'owner-api',
    throttle: 'owner',
    cdn: false,
    owner,
    access: ['table:read', 'table:rate-limit', 'search:read', 'embeddings', 'articles:read'],
  };
}

const searchRoutes: readonly RouteDefinition[] = withOwnerApiPreflight([
  searchRoute('SearchMyNotes', '/api/v2/me/search', { scope: 'notes:read' }),
  searchRoute('ListMyRelatedNotes', '/api/v2/me/notes/{note_id}/related', { scope: 'notes:read' }),
  searchRoute('WebSearch', webPaths.search, { session: true }),
  searchRoute('WebRelatedNotes', `${webPaths.library}/notes/{note_id}/related`, { session: true }),
]);

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
    group: 'web-pages',
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
    group: 'oauth-and-mcp',
    throttle: 'web',
    cdn: false,
    ...(method === 'POST'
      ? { preflight: { origins: 'any', allowHeaders: ['Authorization', 'Content-Type', 'DPoP'] } }
      : {}),
    access: ['table:read', 'table:write', 'table:rate-limit', 'oauth:keys'],
  };
}

/** The signed-in pages of a workspace and the share target: one function (functions/web-library), session only. */
function libraryPage(id: string, method: 'GET' | 'POST', path: string): RouteDefinition {
  return {
    id,
    method,
    path,
    entry: 'functions/web-library/handler.ts',
    group: 'web-pages',
    throttle: 'owner',
    cdn: false,
    owner: { session: true },
    access: ['table:read', 'table:write', 'table:rate-limit', 'queue:enrichment', 'articles:write'],
  };
}

const libraryPages: readonly RouteDefinition[] = [
  libraryPage('WebLibrary', 'GET', webPaths.library),
  // The Library's form: a note's archive and star buttons and the bulk actions on the selected notes.
  libraryPage('WebLibraryAction', 'POST', webPaths.library),
  libraryPage('WebNote', 'GET', `${webPaths.library}/notes/{note_id}`),
  libraryPage('WebNoteEdit', 'POST', `${webPaths.library}/notes/{note_id}`),
  libraryPage('WebNoteDelete', 'POST', `${webPaths.library}/notes/{note_id}/delete`),
  libraryPage('WebNoteRefetch', 'POST', `${webPaths.library}/notes/{note_id}/refetch`),
  // The note page's Feeds: puts the note into one of the owner's feeds (library.addNoteToFeed).
  libraryPage('WebNoteToFeed', 'POST', `${webPaths.library}/notes/{note_id}/feeds`),
  libraryPage('WebHighlightCreate', 'POST', `${webPaths.library}/notes/{note_id}/highlights`),
  libraryPage('WebHighlightEdit', 'POST', `${webPaths.library}/notes/{note_id}/highlights/{highlight_id}`),
  libraryPage('WebHighlightDelete', 'POST', `${webPaths.library}/notes/{note_id}/highlights/{highlight_id}/delete`),
  libraryPage('WebTrash', 'GET', webPaths.trash),
  // The Trash's form: restore or delete for good one note, or empty the Trash.
  libraryPage('WebTrashAction', 'POST', webPaths.trash),
  libraryPage('WebTags', 'GET', webPaths.tags),
  libraryPage('WebTagRename', 'POST', webPaths.tagRename),
  libraryPage('WebTagMerge', 'POST', webPaths.tagMerge),
  libraryPage('WebFeeds', 'GET', webPaths.feeds),
  libraryPage('WebFeedCreate', 'POST', webPaths.feeds),
  libraryPage('WebFeedEdit', 'POST', `${webPaths.feeds}/{feed_id}`),
  libraryPage('WebFeedDelete', 'POST', `${webPaths.feeds}/{feed_id}/delete`),
  libraryPage('WebApiTokens', 'GET', webPaths.apiTokens),
  libraryPage('WebApiTokenCreate', 'POST', webPaths.apiTokens),
  libraryPage('WebImport', 'GET', webPaths.importSettings),
  libraryPage('WebApiTokenRevoke', 'POST', `${webPaths.apiTokens}/{token_id}/revoke`),
  libraryPage('WebReview', 'GET', webPaths.review),
  libraryPage('WebReviewRate', 'POST', webPaths.review),
  libraryPage('WebReviewSettings', 'GET', webPaths.reviewSettings),
  libraryPage('WebReviewSettingsSave', 'POST', webPaths.reviewSettings),
  libraryPage('WebReviewFeed', 'POST', webPaths.reviewFeed),
  libraryPage('WebShare', 'POST', webPaths.share),
];

export const routes: readonly RouteDefinition[] = [
  {
    id: 'SaveBookmark',
    method: 'POST',
    path: '/api/v1/bookmarks/save',
    entry: 'functions/save-bookmark/handler.ts',
    group: 'save-and-feeds',
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
    group: 'save-and-feeds',
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
    group: 'save-and-feeds',
    throttle: 'icon',
    cdn: true,
    answersHead: true,
    access: ['table:read', 'articles:read'],
  },
  {
    // An image of a kept article, served by the icon function: its name is its content hash too.
    id: 'GetArticleImage',
    method: 'GET',
    path: '/articles/{article_id}/images/{image_file}',
    entry: 'functions/get-icon/handler.ts',
    group: 'save-and-feeds',
    throttle: 'icon',
    cdn: true,
    answersHead: true,
    access: ['table:read', 'articles:read'],
  },
  {
    // The OpenAPI description of the contract's operations; not itself one of them.
    id: 'GetOpenApiDocument',
    method: 'GET',
    path: '/openapi.json',
    ...openApiDocument,
  },
  {
    // The OpenAPI description of everything else: the per-user API and the other feed formats.
    id: 'GetOwnerApiDocument',
    method: 'GET',
    path: '/openapi/v2.json',
    ...openApiDocument,
  },
  ...ownerApiRoutes,
  ...libraryPages,
  ...searchRoutes,
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
  accountRoute('WebChangeDisplayName', 'POST', webPaths.accountDisplayName),
  accountRoute('WebPasskeyRegisterOptions', 'POST', webPaths.passkeyRegisterOptions),
  accountRoute('WebPasskeyRegister', 'POST', webPaths.passkeyRegister),
  accountRoute('WebPasskeyDelete', 'POST', webPaths.passkeyDelete),
  accountRoute('WebPasskeySignInOptions', 'POST', webPaths.passkeySignInOptions),
  accountRoute('WebPasskeySignIn', 'POST', webPaths.passkeySignIn),
  accountRoute('WebConnectedAppsPage', 'GET', webPaths.connectedApps),
  accountRoute('WebConnectedAppRevoke', 'POST', webPaths.connectedAppRevoke),
  oauthRoute('OAuthGet', 'GET', '/oauth/{proxy+}'),
  oauthRoute('OAuthPost', 'POST', '/oauth/{proxy+}'),
  oauthRoute('OAuthServerMetadata', 'GET', '/.well-known/oauth-authorization-server'),
  oauthRoute('OpenIdConfiguration', 'GET', '/.well-known/openid-configuration'),
  oauthRoute('OwnerApiResourceMetadata', 'GET', '/.well-known/oauth-protected-resource/api/v2/me'),
  oauthRoute('McpResourceMetadata', 'GET', '/.well-known/oauth-protected-resource/mcp'),
  {
    // The MCP server (Streamable HTTP, stateless): OAuth access tokens issued for /mcp only, never the
    // session; its tools check their own scopes. GET answers 405 (no server-initiated streams).
    id: 'Mcp',
    method: 'POST',
    path: '/mcp',
    entry: 'functions/mcp/handler.ts',
    group: 'oauth-and-mcp',
    throttle: 'owner',
    cdn: false,
    owner: {},
    access: [
      'table:read',
      'table:write',
      'table:rate-limit',
      'queue:enrichment',
      'search:read',
      'embeddings',
      'articles:read',
    ],
  },
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

/**
 * Refuses a route table that breaks the contract's promises (a retirement with less than six months'
 * notice), whose routes sharing a handler module (and so a function) want different grants or quotas,
 * or whose routes on one path (one API Gateway resource) are in different groups.
 */
export function checkRouteTable(table: readonly RouteDefinition[]): void {
  for (const route of table) if (route.retirement) checkRetirement(route.id, route.retirement);
  for (const route of table) {
    const first = table.find((other) => other.entry === route.entry)!;
    if (first.access.join() !== route.access.join() || first.throttle !== route.throttle)
      throw new Error(`Routes ${first.id} and ${route.id} share ${route.entry} but not its grants and quota`);
    const onPath = table.find((other) => other.path === route.path)!;
    if (onPath.group !== route.group)
      throw new Error(`Routes ${onPath.id} and ${route.id} share ${route.path} but not its group`);
  }
}

/** The routes that each stand for a function: routes naming the same handler module share one (the first of them). */
export function routeFunctions(table: readonly RouteDefinition[]): RouteDefinition[] {
  return table.filter((route, index) => table.findIndex((other) => other.entry === route.entry) === index);
}

/** The description of a route's function: its method and path, or for a shared one its module. */
export function routeFunctionDescription(route: RouteDefinition, table: readonly RouteDefinition[] = routes): string {
  const sharing = table.filter((other) => other.entry === route.entry);
  // A shared function is described by the first of its routes (the one it stands for), whichever asks.
  return sharing.length > 1
    ? `${route.entry}: ${sharing[0]!.owner ? "the owner's routes" : 'several routes'}`
    : `${route.method} ${route.path}`;
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
