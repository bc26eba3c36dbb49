import * as z from 'zod/mini';
import { contractSchemas } from '../core/contract/contract';
import { FEED_PAGE_LIMIT } from '../core/feed/paging';
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_TTL_SECONDS } from '../core/save/idempotency';
import { saveRequestSchema } from '../core/save/save-request';
import { type RouteDefinition, routes } from './routes';

/**
 * The OpenAPI 3.1 description of the contract's three operations, exactly (version 1.1.0), built
 * from the route table and the zod schemas the handlers use. `npm run openapi` writes it to
 * openapi.json (committed, served at GET /openapi.json); a test fails when that file is stale. What
 * Gleaner serves beside the contract (the per-user API, the Atom and JSON Feed formats) is described
 * by openapi-v2.ts, served at GET /openapi/v2.json.
 */

export type JsonObject = Record<string, unknown>;

export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'] as const;

export const headers: Record<string, JsonObject> = {
  'RateLimit-Limit': {
    description: 'Requests allowed in the current window.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  'RateLimit-Remaining': {
    description: 'Requests remaining in the current window.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the window resets.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Policy': {
    description: 'The quota the numbers refer to: `quota;w=window-seconds` (draft-ietf-httpapi-ratelimit-headers-06).',
    required: true,
    schema: { type: 'string', pattern: '^\\d+;w=\\d+$' },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying; equals `detail.retry_after`.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'WWW-Authenticate': {
    description: 'The bearer challenge (RFC 6750).',
    required: true,
    schema: { type: 'string', pattern: '^Bearer\\b' },
  },
  ETag: {
    description: 'Strong validator of this representation; send it back as If-None-Match.',
    required: true,
    schema: { type: 'string', pattern: '^"[^"]*"$' },
  },
  'Last-Modified': {
    description: 'When the feed or one of its entries last changed (HTTP-date); absent when nothing is dated.',
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description: 'How long shared caches and readers may keep the answer.',
    required: true,
    schema: { type: 'string' },
  },
};

/** Headers of every answer of a retiring route (functions/core/contract/retirement.ts). */
export const retirementHeaders: Record<string, JsonObject> = {
  Deprecation: {
    description: 'When the operation was deprecated (RFC 9745): `@` and epoch seconds.',
    required: true,
    schema: { type: 'string', pattern: '^@-?\\d+$' },
  },
  Sunset: {
    description: 'When the operation stops answering (RFC 8594), at least six months after Deprecation.',
    required: true,
    schema: { type: 'string' },
  },
  Link: {
    description: 'The retirement notice, as rel="deprecation" and rel="sunset".',
    required: true,
    schema: { type: 'string' },
  },
};

export const rateLimited = (extra: Record<string, JsonObject> = {}) => ({
  ...Object.fromEntries(RATE_LIMIT_HEADERS.map((name) => [name, headerRef(name)])),
  ...extra,
});

export function jsonResponse(
  description: string,
  schema: string,
  extraHeaders: Record<string, JsonObject> = {},
): JsonObject {
  return {
    description,
    headers: rateLimited(extraHeaders),
    content: { 'application/json': { schema: schemaRef(schema) } },
  };
}

export const tooManyRequests = jsonResponse('Rate limit exceeded: wait Retry-After seconds.', 'RateLimitError', {
  'Retry-After': headerRef('Retry-After'),
});

/** Issue 21: contention that outlasted its retries, or DynamoDB unreachable (restarting, say): never a 500. */
const temporarilyUnavailable = jsonResponse(
  'A temporary fault (the same items kept changing, or the database could not be reached): retry after Retry-After seconds. With an Idempotency-Key the retry is safe whatever happened.',
  'Error',
  { 'Retry-After': headerRef('Retry-After') },
);

const feedIdParameter = {
  name: 'feed_id',
  in: 'path',
  required: true,
  description: 'The feed UUID (any case, with or without hyphens).',
  schema: { type: 'string', format: 'uuid' },
};

export const ifNoneMatchParameter = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'An ETag from an earlier answer: 304 when it still matches.',
  schema: { type: 'string' },
};

const conditionalGetParameters = [
  ifNoneMatchParameter,
  {
    name: 'If-Modified-Since',
    in: 'header',
    required: false,
    description:
      'A Last-Modified from an earlier answer: 304 when nothing changed since (ignored when If-None-Match is sent).',
    schema: { type: 'string' },
  },
];

const feedCacheHeaders = {
  ETag: headerRef('ETag'),
  'Last-Modified': headerRef('Last-Modified'),
  'Cache-Control': headerRef('Cache-Control'),
};

const pagingParameters = [
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'Entries per page.',
    schema: {
      type: 'integer',
      minimum: FEED_PAGE_LIMIT.min,
      maximum: FEED_PAGE_LIMIT.max,
      default: FEED_PAGE_LIMIT.default,
    },
  },
  {
    name: 'cursor',
    in: 'query',
    required: false,
    description:
      'The older entries after a page: taken from the link to the next page (JSON Feed `next_url`, Atom `rel="next"`), never built by hand.',
    schema: { type: 'string' },
  },
];

function feedOperation(
  operationId: string,
  summary: string,
  representation: JsonObject,
  options: { paged?: boolean } = {},
): JsonObject {
  return {
    operationId,
    summary,
    tags: ['feeds'],
    parameters: [feedIdParameter, ...conditionalGetParameters, ...(options.paged ? pagingParameters : [])],
    responses: {
      200: {
        description: 'The feed is public or link-only.',
        headers: rateLimited(feedCacheHeaders),
        content: representation,
      },
      304: { description: 'Not modified since the validators sent.', headers: rateLimited(feedCacheHeaders) },
      404: jsonResponse(
        'Unknown feed, or a private or unpublished one (the service never confirms a private feed exists).',
        'Error',
        {
          'Cache-Control': headerRef('Cache-Control'),
        },
      ),
      422: jsonResponse(
        options.paged
          ? 'feed_id is not a UUID, limit is not an integer from 1 to 100, or cursor is not one this feed gave out.'
          : 'feed_id is not a UUID.',
        'HTTPValidationError',
      ),
      429: tooManyRequests,
      503: temporarilyUnavailable,
    },
  };
}

const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: `draft-ietf-httpapi-idempotency-key-header: a fresh value per save (a UUID, say), 1–${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters, bare or as a quoted string ("…"), sent once. The same key with the same request within ${IDEMPOTENCY_TTL_SECONDS / 3600} hours answers the first answer again and does nothing; with another request it is a 422 (idempotency_key_reused); while the first request with the key is still being processed, a repeat is a 409 (retry after Retry-After). Keys are per token.`,
  schema: { type: 'string', pattern: '^[\\x20-\\x7e]+$' },
};

const saveOperation: JsonObject = {
  operationId: 'saveBookmark',
  summary: 'Save a page as a bookmark, or append to the note of a saved one',
  description:
    'A new URL creates a bookmark and its note; a URL already in the workspace (same normalised URL) reuses its note and appends the selection as another quoted highlight. Hashtags in the comment become tags.',
  tags: ['bookmarks'],
  security: [{ personalAccessToken: [] }],
  parameters: [idempotencyKeyParameter],
  requestBody: { required: true, content: { 'application/json': { schema: schemaRef('BookmarkSaveRequest') } } },
  responses: {
    200: jsonResponse('Bookmark created or note appended.', 'BookmarkSaveResult'),
    401: jsonResponse(
      'Token missing, malformed, unknown, expired or revoked, or several Authorization headers.',
      'Error',
      { 'WWW-Authenticate': headerRef('WWW-Authenticate') },
    ),
    402: jsonResponse('The note cap of the account is reached.', 'NoteLimitError'),
    409: jsonResponse(
      'A request with the same Idempotency-Key and body is still being processed: nothing was done; retry after Retry-After seconds.',
      'IdempotencyInFlightError',
      {
        'Retry-After': headerRef('Retry-After'),
      },
    ),
    413: jsonResponse('The body is over 10 MB (API Gateway refuses it before the function runs).', 'Error'),
    415: jsonResponse(
      'The Content-Type declares a charset the service cannot decode (UTF-8, ISO-8859-1, UTF-16 and the other WHATWG encodings are decoded).',
      'Error',
    ),
    422: jsonResponse(
      'Invalid body (not JSON, bytes not valid in the declared charset, not an object, a non-http(s) url, a malformed host or port 0, a wrong type, too long, a URL over 2,048 characters once escaped), a Content-Type other than application/json (`loc: ["header", "content-type"]`), a malformed Idempotency-Key, or a key already used with another request.',
      'HTTPValidationError',
    ),
    429: tooManyRequests,
    503: temporarilyUnavailable,
  },
};

/** The contract's operations by route id: the route table gives each its method and path. */
const contractOperations: Record<string, JsonObject> = {
  SaveBookmark: saveOperation,
  GetPublishedFeed: feedOperation('getPublishedFeed', 'A published feed as JSON', {
    'application/json': { schema: schemaRef('PublishedFeed') },
  }),
  GetPublishedFeedRss: feedOperation('getPublishedFeedRss', 'A published feed as RSS 2.0', {
    'application/rss+xml': { schema: { type: 'string', description: 'An RSS 2.0 document.' } },
  }),
};

/** The feed formats Gleaner serves beside the contract's (in the v2 document). */
export const feedFormatOperations: Record<string, JsonObject> = {
  GetFeedAtom: feedOperation(
    'getFeedAtom',
    'A published feed as Atom 1.0 (RFC 4287), in pages',
    {
      'application/atom+xml': {
        schema: {
          type: 'string',
          description: 'An Atom 1.0 feed document; `link rel="next"` (RFC 5005) names the page of older entries.',
        },
      },
    },
    { paged: true },
  ),
  GetJsonFeed: feedOperation(
    'getJsonFeed',
    'A published feed as JSON Feed 1.1, in pages',
    {
      'application/feed+json': {
        schema: {
          type: 'object',
          description:
            'A JSON Feed 1.1 document (https://jsonfeed.org/version/1.1); `next_url` names the page of older items.',
          required: ['version', 'title', 'items'],
        },
      },
    },
    { paged: true },
  ),
};

/** The JSON Schema of each schema of a zod registry, as components (requests described by their input side). */
export function registrySchemas(registry: Parameters<typeof z.toJSONSchema>[0] & object): Record<string, JsonObject> {
  const { schemas } = z.toJSONSchema(registry as typeof contractSchemas, {
    target: 'draft-2020-12',
    uri: (id) => schemaRef(id).$ref,
    io: 'input',
  });
  return schemas as Record<string, JsonObject>;
}

/** zod's JSON Schema of each component, less the `$schema`/`$id` a standalone schema carries. */
function componentSchemas(): Record<string, JsonObject> {
  const { schemas } = z.toJSONSchema(contractSchemas, { target: 'draft-2020-12', uri: (id) => schemaRef(id).$ref });
  const request = z.toJSONSchema(saveRequestSchema, { target: 'draft-2020-12', io: 'input' });
  return sortedComponents({
    ...schemas,
    BookmarkSaveRequest: { ...request, description: 'Unknown fields are ignored; blank strings count as absent.' },
  });
}

export function sortedComponents(all: Record<string, JsonObject>): Record<string, JsonObject> {
  return Object.fromEntries(
    Object.entries(all)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, { $schema: _dialect, $id: _id, ...schema }]) => [name, schema]),
  );
}

const unexpectedFailure = jsonResponse(
  'An unexpected failure; the message names the request id it was logged under.',
  'Error',
);

/** What the route table adds to an operation: HEAD, a retirement, and the 500 every route may answer. */
function routeOperation(route: RouteDefinition, operation: JsonObject): JsonObject {
  const head = route.answersHead ? 'HEAD answers the same status and headers without a body.' : undefined;
  const responses = { ...(operation.responses as Record<string, JsonObject>), 500: unexpectedFailure };
  const retiring = route.retirement
    ? {
        deprecated: true,
        responses: Object.fromEntries(
          Object.entries(responses).map(([status, response]) => [
            status,
            {
              ...response,
              headers: {
                ...(response.headers as JsonObject),
                ...Object.fromEntries(Object.keys(retirementHeaders).map((name) => [name, headerRef(name)])),
              },
            },
          ]),
        ),
      }
    : { responses };
  const description = [operation.description, head].filter(Boolean).join(' ');
  return { ...operation, ...(description ? { description } : {}), ...retiring };
}

export function pathsOf(table: readonly RouteDefinition[], operations: Record<string, JsonObject>): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of table) {
    const operation = operations[route.id];
    if (operation)
      paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: routeOperation(route, operation) };
  }
  return paths;
}

/** The document for a route table: the real one, or one with routes marked as retiring. */
export function buildOpenApiDocument(table: readonly RouteDefinition[] = routes): JsonObject {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gleaner: bookmark capture and published feeds',
      version: '1.1.0',
      description:
        'Save a web page as a bookmark-backed note with a personal access token, and read published feeds as JSON or RSS 2.0 without authentication. Every answer carries the four RateLimit headers (draft-ietf-httpapi-ratelimit-headers-06). Paths are relative to the address this document is served from. The per-user API and the other feed formats are described at /openapi/v2.json.',
    },
    tags: [
      { name: 'bookmarks', description: 'The capture path (personal access tokens).' },
      { name: 'feeds', description: 'Published feeds, for feed readers and site embeds (no credentials).' },
    ],
    paths: pathsOf(table, contractOperations),
    components: {
      schemas: componentSchemas(),
      headers: { ...headers, ...(table.some((route) => route.retirement) ? retirementHeaders : {}) },
      securitySchemes: {
        personalAccessToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A personal access token (`gln_…`), minted in the application settings under API tokens; it authenticates the save only.',
        },
      },
    },
  };
}

/** The document as committed: two-space indented JSON with a final newline. */
export function serializeOpenApiDocument(document: JsonObject = buildOpenApiDocument()): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
