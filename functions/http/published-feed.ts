import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { DynamoAccountStore } from '../adapters/dynamo/account-store';
import { tableFromEnv } from '../adapters/dynamo/client';
import { DynamoFeedStore } from '../adapters/dynamo/feed-store';
import { DynamoRateLimiter } from '../adapters/dynamo/rate-limiter';
import { clientQuotaKey, type RateLimiter, type RateLimitPolicy } from '../core/contract/rate-limit';
import { parseRetirement, type Retirement } from '../core/contract/retirement';
import { parseUuidParameter } from '../core/contract/validation';
import { type FeedVariant, feedValidators, isNotModified } from '../core/feed/conditional-get';
import { type Feed, type FeedNote, notesShown, type PublishedFeedStore } from '../core/feed/feed';
import { entriesToRead, feedPageUrl, pageOfEntries, parseFeedPage } from '../core/feed/paging';
import type { FeedRecord, User } from '../core/model';
import { highlightEntries } from '../core/save/highlights';
import type { UserReader } from '../core/workspace/accounts';
import type { Environment } from '../platform/env';
import { createLogger } from '../platform/observability';
import { routeUrl } from '../platform/routes';
import { rateLimitSettings, setting, settings } from '../platform/settings';
import { createTracing, type Tracing } from '../platform/tracing';
import { serviceBaseUrl } from './base-url';
import { httpRoute, type RouteRequest } from './middleware';
import { rateLimited } from './rate-limited';
import { errorResponse, type Headers, header } from './responses';

/**
 * The read path the feed routes share (GET …/{feed_id}/public, …/rss, the page /feeds/{feed_id}, its
 * /atom and /feed.json): per-client rate limit, UUID check, 404 for anything not published, then the
 * representation with validators for conditional GET. Only the rendering differs between the Lambdas.
 */

export interface FeedRepresentation {
  readonly variant: FeedVariant;
  readonly contentType: string;
  /** May load its renderer on first use, so answers that render nothing (304, 404, 429) never load it. */
  render(feed: Feed, notes: readonly FeedNote[], urls: FeedUrls): string | Promise<string>;
  /** Headers of its every answer (the page's Content-Security-Policy). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The body of the 404 for a feed that is not published, or whose id is not a UUID (people get a
   * page); when unset, the contract's error JSON (and 422 for an id that is not a UUID).
   */
  readonly notFoundPage?: string;
  /** Served in pages (`?limit=`, `?cursor=`); `self` is the representation's own address among the feed's. */
  readonly paged?: { readonly self: (urls: FeedUrls) => string };
}

interface FeedUrls {
  readonly json: string;
  readonly rss: string;
  readonly atom: string;
  readonly jsonFeed: string;
  /** The feed's public page (GET /feeds/{feed_id}). */
  readonly page: string;
  readonly embedScript: string;
  /** A paged representation's current page, and the next (older) one when there is one. */
  readonly currentPage?: string;
  readonly nextPage?: string | null;
}

export interface PublishedFeedDeps {
  readonly feeds: PublishedFeedStore;
  readonly users: UserReader;
  readonly rateLimiter: RateLimiter;
  readonly rateLimitPolicy: RateLimitPolicy;
  readonly maxEntries: number;
  readonly cacheSeconds: number;
  /** The service's public address; derived from the request when unset. */
  readonly publicBaseUrl: string | null;
  /** Behind CloudFront (the only way in when deployed): trust its viewer-address and host headers. */
  readonly trustCdnHeaders: boolean;
  readonly logger: Logger;
  readonly tracing?: Tracing;
  readonly retirement?: Retirement | null;
}

/** Not-found answers are cached briefly, so a feed switched to public shows up quickly. */
const NOT_FOUND_CACHE = 'public, max-age=10';
const NOT_FOUND = { code: 'not_found', message: 'Feed not found' };

export function makePublishedFeedHandler(deps: PublishedFeedDeps, representation: FeedRepresentation) {
  return httpRoute((event, request) => readPublishedFeed(deps, representation, event, request), {
    logger: deps.logger,
    tracing: deps.tracing,
    corsOrigins: ['*'],
    rateLimit: { limiter: deps.rateLimiter, policy: deps.rateLimitPolicy },
    retirement: deps.retirement,
  });
}

async function readPublishedFeed(
  deps: PublishedFeedDeps,
  representation: FeedRepresentation,
  event: APIGatewayProxyEvent,
  request: RouteRequest,
): Promise<APIGatewayProxyResult> {
  const feedId = parseUuidParameter('feed_id', event.pathParameters?.feed_id);
  // The feed is read while the request is counted, so neither waits for the other; a refusal still comes first.
  const [limit, record] = await Promise.all([
    request.rateLimit(`feed:${clientQuotaKey(clientAddress(event, deps.trustCdnHeaders))}`),
    feedId.ok ? deps.feeds.getFeed(feedId.value) : null,
  ]);
  if (!limit.allowed) return rateLimited(limit, { 'Cache-Control': 'no-store' });
  // A person who mistyped a page's address gets the page that says so; readers of the API, its 422.
  if (!feedId.ok && representation.notFoundPage !== undefined) return notFound(representation);
  if (!feedId.ok) return errorResponse(422, feedId.issues, { 'Cache-Control': 'no-store' });
  const paging = representation.paged ? parseFeedPage(event.queryStringParameters, feedId.value) : null;
  if (paging && !paging.ok) return errorResponse(422, paging.issues, { 'Cache-Control': 'no-store' });
  const page = paging?.ok ? paging.page : null;

  // Private and unknown feeds answer alike: the service never confirms a private feed exists.
  if (!record || record.sharing === 'private') return notFound(representation);

  const [matched, owner] = await Promise.all([
    deps.feeds.matchingEntries(record, entriesToRead(page, deps.maxEntries), page?.before),
    deps.users.getUser(record.userId),
  ]);
  const { entries, nextCursor } = pageOfEntries(record.id, matched, page);
  const feed = publishedFeed(record, owner);
  const validators = feedValidators(
    feed,
    entries,
    representation.variant,
    page && [page.limit, page.before, nextCursor],
  );
  const cacheHeaders: Headers = {
    ETag: validators.etag,
    ...(validators.lastModified ? { 'Last-Modified': validators.lastModified } : {}),
    'Cache-Control': `public, max-age=${deps.cacheSeconds}`,
  };
  const conditional = {
    ifNoneMatch: header(event.headers, 'If-None-Match'),
    ifModifiedSince: header(event.headers, 'If-Modified-Since'),
  };
  // A reader's cached copy is current: answered from the index alone, no note read.
  if (isNotModified(conditional, validators)) return { statusCode: 304, headers: cacheHeaders, body: '' };

  // A highlight feed lists the highlights of those notes instead, read beside them.
  const [notes, highlights] = await Promise.all([
    deps.feeds.notesOf(entries).then((candidates) => notesShown(record, candidates)),
    record.items === 'highlights' ? deps.feeds.highlightsOf(entries.map((entry) => entry.noteId)) : null,
  ]);
  const shown = highlights ? highlightEntries(notes, highlights, page?.limit ?? deps.maxEntries) : notes;
  const baseUrl = serviceBaseUrl(event, deps.publicBaseUrl, deps.trustCdnHeaders);
  const feedUrls = feedAddresses(baseUrl, record.id);
  const self = page && representation.paged?.self(feedUrls);
  const urls: FeedUrls = self
    ? {
        ...feedUrls,
        currentPage: feedPageUrl(self, page.limit, page.cursor),
        nextPage: nextCursor && feedPageUrl(self, page.limit, nextCursor),
      }
    : feedUrls;
  return {
    statusCode: 200,
    headers: { ...cacheHeaders, 'Content-Type': representation.contentType, ...representation.headers },
    body: await representation.render(feed, shown, urls),
  };
}

function notFound(representation: FeedRepresentation): APIGatewayProxyResult {
  if (representation.notFoundPage === undefined)
    return errorResponse(404, NOT_FOUND, { 'Cache-Control': NOT_FOUND_CACHE });
  return {
    statusCode: 404,
    headers: {
      'Content-Type': representation.contentType,
      'Cache-Control': NOT_FOUND_CACHE,
      ...representation.headers,
    },
    body: representation.notFoundPage,
  };
}

function publishedFeed(record: FeedRecord, owner: User | null): Feed {
  return {
    id: record.id,
    title: record.title,
    description: record.description,
    author: owner?.displayName ?? '',
    tags: record.tags,
    match: record.match,
    sharing: record.sharing,
    items: record.items,
    updated: record.updated,
  };
}

/** Where a feed is read, in each representation, at `baseUrl`. */
export function feedAddresses(baseUrl: string, feedId: string): FeedUrls {
  return {
    json: routeUrl(baseUrl, 'GetPublishedFeed', { feed_id: feedId }),
    rss: routeUrl(baseUrl, 'GetPublishedFeedRss', { feed_id: feedId }),
    atom: routeUrl(baseUrl, 'GetFeedAtom', { feed_id: feedId }),
    jsonFeed: routeUrl(baseUrl, 'GetJsonFeed', { feed_id: feedId }),
    page: routeUrl(baseUrl, 'GetFeedPage', { feed_id: feedId }),
    embedScript: routeUrl(baseUrl, 'GetFeedEmbedScript', {}),
  };
}

/** The reader's address: CloudFront's viewer address when behind it (the source IP is an edge's). */
function clientAddress(event: APIGatewayProxyEvent, trustCdnHeaders: boolean): string {
  const viewer = trustCdnHeaders ? header(event.headers, 'CloudFront-Viewer-Address') : undefined;
  // `203.0.113.7:46532` or `2001:db8::1:46532`: the port follows the last colon.
  return viewer ? viewer.slice(0, viewer.lastIndexOf(':')) : event.requestContext.identity.sourceIp;
}

/** The address readers used: CloudFront's host (passed on as X-Forwarded-Host), else the API's own. */
export function publishedFeedDeps(env: Environment): PublishedFeedDeps {
  const tracing = createTracing();
  const { doc, tableName } = tableFromEnv(env, tracing.instrument);
  return {
    feeds: new DynamoFeedStore(doc, tableName),
    users: new DynamoAccountStore(doc, tableName),
    rateLimiter: new DynamoRateLimiter(doc, tableName),
    rateLimitPolicy: setting(env, rateLimitSettings.feed),
    retirement: parseRetirement(setting(env, settings.routeRetirement)),
    maxEntries: setting(env, settings.feedMaxEntries),
    cacheSeconds: setting(env, settings.feedCacheSeconds),
    publicBaseUrl: setting(env, settings.publicBaseUrl) ?? null,
    trustCdnHeaders: setting(env, settings.trustCdnHeaders),
    logger: createLogger(env),
    tracing,
  };
}
