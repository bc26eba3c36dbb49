import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { DynamoImportStore } from '../adapters/dynamo/import-store';
import { createSqsClient, SqsJsonPublisher } from '../adapters/sqs/sqs';
import { createUploadStore } from '../adapters/upload-store';
import type { RateLimiter, RateLimitPolicy } from '../core/contract/rate-limit';
import { parseUuidParameter } from '../core/contract/validation';
import { entityTagOf, isNotModified } from '../core/feed/conditional-get';
import type { Principal } from '../core/identity/principal';
import { createImport, type ImportChunkMessage, type ImportJobPorts, ownImport, startImport } from '../core/import/job';
import * as highlights from '../core/owner/highlights';
import * as library from '../core/owner/library';
import { InvalidInputError, type OwnerPorts } from '../core/owner/library';
import * as trash from '../core/owner/trash';
import type { ReviewPorts } from '../core/review/use-cases';
import * as review from '../core/review/use-cases';
import { NOTE_PAGE_LIMIT } from '../core/workspace/listing';
import { serviceBaseUrl } from '../http/base-url';
import { answeringFailures, failureResponse } from '../http/failures';
import { parseBody } from '../http/json-body-parser';
import { type Authenticate, addressQuotaSubject, admitOwner } from '../http/owner-access';
import { ownerDeps } from '../http/owner-deps';
import { feedAddresses } from '../http/published-feed';
import { rateLimited } from '../http/rate-limited';
import { errorResponse, header, jsonResponse } from '../http/responses';
import { reviewLinks } from '../http/review-links';
import { type RouteCall, type RouteOperation, routeWrapper } from '../http/route-wrapper';
import { deferred, type Environment } from '../platform/env';
import { requestDeadline } from '../platform/request-deadline';
import { corsAllowedOrigins, OWNER_API_PREFLIGHT } from '../platform/routes';
import { setting, settings } from '../platform/settings';
import type { Tracing } from '../platform/tracing';

/**
 * `/api/v2/me/…`: the per-user API. One function serves every route of the table whose entry is this
 * module; the route (method and resource) picks the operation. Each request is admitted by
 * `ownerAccess` (the route's scope, session-only routes), counted against its user's quota, parsed
 * with the schemas of core/owner/api.ts, and answered in the contract's shapes.
 */

export interface OwnerApiDeps extends Omit<OwnerPorts, 'feedLinks'>, ReviewPorts {
  /** Imports: their records, the uploads and the worker's queue. */
  readonly importJobs: ImportJobPorts;
  readonly authenticate: Authenticate;
  readonly rateLimiter: RateLimiter;
  readonly rateLimitPolicy: RateLimitPolicy;
  /** Readers' address of the feeds; null takes it from the request. */
  readonly publicBaseUrl: string | null;
  /** The web app's address (the review feed links its Review page); null takes the feeds'. */
  readonly webBaseUrl: string | null;
  readonly corsOrigins: readonly string[];
  readonly logger: Logger;
  readonly tracing?: Tracing;
}

interface Call {
  readonly ports: OwnerPorts & ReviewPorts & Pick<OwnerApiDeps, 'importJobs'>;
  readonly principal: Principal;
  readonly event: APIGatewayProxyEvent;
  readonly reviewLinks: review.ReviewLinks;
}

type Operation = (call: Call) => Promise<APIGatewayProxyResult>;

const ok = async (answer: Promise<unknown>, status = 200) => jsonResponse(status, await answer);
const noContent = async (done: Promise<void>): Promise<APIGatewayProxyResult> => {
  await done;
  return { statusCode: 204, headers: {}, body: '' };
};

/**
 * The request bodies' schemas and the import resource, loaded by the first request that needs them:
 * building the zod schemas of the whole API took more of a cold start than the DynamoDB client's own
 * init, for routes most of which read no body.
 */
const ownerApi = () => import('../core/owner/api');
const reviewApi = () => import('../core/review/api');
const importApi = () => import('../core/import/api');

/** The operation of each route id but the review feed's (the route wrapper checks that every route of this module has one). */
const operations: Record<string, Operation> = {
  GetMyAccount: ({ ports, principal }) => ok(library.getAccount(ports, principal)),
  ExportMyAccount: async ({ ports, principal }) => ({
    ...(await ok(library.exportAccount(ports, principal))),
    headers: {
      'Content-Type': 'application/json',
      'Content-Disposition': 'attachment; filename="gleaner-export.json"',
    },
  }),
  DeleteMyAccount: async ({ ports, principal, event }) => {
    parseBody((await ownerApi()).accountDeleteSchema, event);
    return noContent(library.deleteAccount(ports, principal));
  },
  ListMyNotes: ({ ports, principal, event }) => {
    const query = event.queryStringParameters ?? {};
    const archived = booleanQuery(query, 'archived');
    const starred = booleanQuery(query, 'starred');
    return ok(
      library.listNotes(
        ports,
        principal,
        {
          ...(query.tag === undefined ? {} : { tag: query.tag }),
          ...(archived === undefined ? {} : { archived }),
          ...(starred === undefined ? {} : { starred }),
        },
        { limit: pageLimit(query.limit), ...(query.cursor ? { cursor: query.cursor } : {}) },
      ),
    );
  },
  BulkEditMyNotes: async ({ ports, principal, event }) =>
    ok(library.bulkEdit(ports, principal, parseBody((await ownerApi()).noteBulkEditSchema, event))),
  GetMyNote: ({ ports, principal, event }) => ok(library.getNote(ports, principal, uuidParameter(event, 'note_id'))),
  GetMyNoteArticle: ({ ports, principal, event }) =>
    ok(library.getArticle(ports, principal, uuidParameter(event, 'note_id'))),
  EditMyNote: async ({ ports, principal, event }) => {
    const noteId = uuidParameter(event, 'note_id');
    return ok(library.editNote(ports, principal, noteId, parseBody((await ownerApi()).noteEditSchema, event)));
  },
  CreateMyHighlight: async ({ ports, principal, event }) => {
    const noteId = uuidParameter(event, 'note_id');
    const highlight = parseBody((await ownerApi()).highlightCreateSchema, event);
    return ok(highlights.addHighlight(ports, principal, noteId, highlight), 201);
  },
  EditMyHighlight: async ({ ports, principal, event }) => {
    const [noteId, highlightId] = [uuidParameter(event, 'note_id'), uuidParameter(event, 'highlight_id')];
    const edit = parseBody((await ownerApi()).highlightEditSchema, event);
    return ok(highlights.editHighlight(ports, principal, noteId, highlightId, edit));
  },
  DeleteMyHighlight: ({ ports, principal, event }) => {
    const [noteId, highlightId] = [uuidParameter(event, 'note_id'), uuidParameter(event, 'highlight_id')];
    return noContent(highlights.deleteHighlight(ports, principal, noteId, highlightId));
  },
  DeleteMyNote: ({ ports, principal, event }) =>
    noContent(library.deleteNote(ports, principal, uuidParameter(event, 'note_id'))),
  ListMyTrash: ({ ports, principal, event }) => {
    const query = event.queryStringParameters ?? {};
    return ok(
      trash.listTrash(ports, principal, {
        limit: pageLimit(query.limit),
        ...(query.cursor ? { cursor: query.cursor } : {}),
      }),
    );
  },
  EmptyMyTrash: ({ ports, principal }) => ok(trash.emptyTrash(ports, principal)),
  DeleteMyNoteForever: ({ ports, principal, event }) =>
    noContent(trash.deleteForever(ports, principal, uuidParameter(event, 'note_id'))),
  RestoreMyNote: ({ ports, principal, event }) =>
    ok(trash.restoreNote(ports, principal, uuidParameter(event, 'note_id'))),
  ListMyTags: ({ ports, principal }) => ok(library.listTags(ports, principal)),
  RenameMyTag: async ({ ports, principal, event }) => {
    const { name } = parseBody((await ownerApi()).tagRenameSchema, event);
    return ok(library.retag(ports, principal, event.pathParameters?.tag ?? '', name, 'rename', requestDeadline()));
  },
  MergeMyTag: async ({ ports, principal, event }) => {
    const { into } = parseBody((await ownerApi()).tagMergeSchema, event);
    return ok(library.retag(ports, principal, event.pathParameters?.tag ?? '', into, 'merge', requestDeadline()));
  },
  ListMyFeeds: ({ ports, principal }) => ok(library.listFeeds(ports, principal)),
  CreateMyFeed: async ({ ports, principal, event }) =>
    ok(library.createFeed(ports, principal, parseBody((await ownerApi()).feedCreateSchema, event)), 201),
  GetMyFeed: ({ ports, principal, event }) => ok(library.getFeed(ports, principal, uuidParameter(event, 'feed_id'))),
  EditMyFeed: async ({ ports, principal, event }) => {
    const feedId = uuidParameter(event, 'feed_id');
    return ok(library.editFeed(ports, principal, feedId, parseBody((await ownerApi()).feedEditSchema, event)));
  },
  DeleteMyFeed: ({ ports, principal, event }) =>
    noContent(library.deleteFeed(ports, principal, uuidParameter(event, 'feed_id'))),
  AddMyNoteToFeed: async ({ ports, principal, event }) => {
    const [noteId, feedId] = [uuidParameter(event, 'note_id'), uuidParameter(event, 'feed_id')];
    return ok(library.addNoteToFeed(ports, principal, noteId, feedId).then(({ placed }) => placed));
  },
  ListMyTokens: ({ ports, principal }) => ok(library.listTokens(ports, principal)),
  CreateMyToken: async ({ ports, principal, event }) => ({
    ...(await ok(library.createToken(ports, principal, parseBody((await ownerApi()).tokenCreateSchema, event)), 201)),
    // The secret is in this answer only: no cache may keep it.
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
  }),
  RevokeMyToken: ({ ports, principal, event }) =>
    ok(library.revokeToken(ports, principal, uuidParameter(event, 'token_id'))),
  GetMyReview: ({ ports, principal }) => ok(review.getDailyReview(ports, principal, ports.now())),
  RateMyHighlight: async ({ ports, principal, event }) => {
    const highlightId = uuidParameter(event, 'highlight_id');
    const { rating } = parseBody((await reviewApi()).ratingRequestSchema, event);
    return ok(review.rateHighlight(ports, principal, highlightId, rating, ports.now()));
  },
  GetMyReviewSettings: ({ ports, principal }) => ok(review.getReviewSettings(ports, principal)),
  EditMyReviewSettings: async ({ ports, principal, event }) =>
    ok(review.editReviewSettings(ports, principal, parseBody((await reviewApi()).reviewSettingsEditSchema, event))),
  GetMyReviewFeed: ({ ports, principal }) => ok(review.getReviewFeedStatus(ports, principal)),
  IssueMyReviewFeed: async ({ ports, principal, reviewLinks }) => ({
    ...(await ok(review.issueReviewFeed(ports, principal, reviewLinks, ports.now()), 201)),
    // The secret address is in this answer only: no cache may keep it.
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
  }),
  RevokeMyReviewFeed: ({ ports, principal }) => noContent(review.revokeReviewFeed(ports, principal)),
  ListMyImports: async ({ ports, principal }) => {
    const { importResource } = await importApi();
    return jsonResponse(200, {
      imports: (await ports.importJobs.imports.listImports(principal.userId, IMPORTS_LISTED)).map((job) =>
        importResource(job),
      ),
    });
  },
  CreateMyImport: async ({ ports, principal, event }) => {
    const { importCreateSchema, importResource } = await importApi();
    const { file_name } = parseBody(importCreateSchema, event);
    const { job, upload } = await createImport(ports.importJobs, principal, file_name);
    // The upload URL is a credential for an hour: no cache may keep it.
    return {
      ...jsonResponse(201, { import: importResource(job), upload }),
      headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
    };
  },
  GetMyImport: async ({ ports, principal, event }) => {
    const { importResource } = await importApi();
    const job = await ownImport(ports.importJobs, principal, uuidParameter(event, 'import_id'));
    return jsonResponse(200, importResource(job, await ports.importJobs.imports.listed(job)));
  },
  StartMyImport: async ({ ports, principal, event }) => {
    const { importResource } = await importApi();
    return jsonResponse(
      202,
      importResource(await startImport(ports.importJobs, principal, uuidParameter(event, 'import_id'))),
    );
  },
};

/** Imports a list shows: the latest. */
const IMPORTS_LISTED = 20;

export function makeHandler(deps: OwnerApiDeps) {
  // Each operation runs for an admitted caller, within its quota; its refusals answer in the contract's shapes.
  const api =
    (operation: Operation): RouteOperation =>
    async (call) => {
      const access = await admitOwner(call, deps.authenticate, { page: false });
      if (!access.ok) return access.response;
      const { event } = call;
      const baseUrl = serviceBaseUrl(event, deps.publicBaseUrl, false);
      const ports = { ...deps, feedLinks: (feedId: string) => feedAddresses(baseUrl, feedId) };
      return answeringFailures(async () => {
        const links = reviewLinks(event, deps);
        const answer = await operation({ ports, principal: access.principal, event, reviewLinks: links });
        // Every answer is the caller's own data: no shared cache may keep it.
        return { ...answer, headers: { 'Cache-Control': 'private, no-store', ...answer.headers } };
      }, failureResponse);
    };
  return routeWrapper(
    {
      ...Object.fromEntries(Object.entries(operations).map(([id, operation]) => [id, api(operation)])),
      GetReviewFeed: (call) => reviewFeed(deps, call),
    },
    {
      ...deps,
      entry: 'functions/owner-api/handler.ts',
      rateLimit: { limiter: deps.rateLimiter, policy: deps.rateLimitPolicy },
    },
  );
}

/**
 * The private review feed (no credentials: its unguessable address is the key), counted against the
 * reader's address. Any address that is not a current secret, a revoked one included, is a 404.
 */
async function reviewFeed(deps: OwnerApiDeps, { event, request }: RouteCall): Promise<APIGatewayProxyResult> {
  const limit = await request.rateLimit(addressQuotaSubject(event));
  if (!limit.allowed) return rateLimited(limit);
  const secret = event.pathParameters?.secret ?? '';
  const rss = await review.reviewFeedDocument(deps, secret, reviewLinks(event, deps), deps.now());
  if (rss === null) return errorResponse(404, 'No such feed');
  // The document is a few days of highlights, cheap to render: its own hash is its validator, and a
  // reader polling with it is answered 304 without the body.
  const etag = entityTagOf(rss);
  const headers = {
    'Content-Type': 'application/rss+xml; charset=utf-8',
    // Personal, and its address is its secret: no shared cache keeps it, no search engine lists it.
    'Cache-Control': 'private, no-cache',
    'Referrer-Policy': 'no-referrer',
    'X-Robots-Tag': 'noindex',
    ETag: etag,
  };
  if (isNotModified({ ifNoneMatch: header(event.headers, 'If-None-Match') }, { etag, lastModified: null }))
    return { statusCode: 304, headers, body: '' };
  return { statusCode: 200, headers, body: rss };
}

function uuidParameter(event: APIGatewayProxyEvent, name: string): string {
  const parsed = parseUuidParameter(name, event.pathParameters?.[name]);
  if (!parsed.ok) throw new InvalidInputError(parsed.issues);
  return parsed.value;
}

/** A `true`/`false` query parameter; absent is undefined. */
function booleanQuery(query: Record<string, string | undefined>, name: string): boolean | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new InvalidInputError([{ loc: ['query', name], msg: 'Input should be true or false', type: 'bool_parsing' }]);
}

function pageLimit(raw: string | undefined): number {
  if (raw === undefined) return NOTE_PAGE_LIMIT.default;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < NOTE_PAGE_LIMIT.min || limit > NOTE_PAGE_LIMIT.max)
    throw new InvalidInputError([
      {
        loc: ['query', 'limit'],
        msg: `Input should be a whole number from ${NOTE_PAGE_LIMIT.min} to ${NOTE_PAGE_LIMIT.max}`,
        type: 'int_range',
      },
    ]);
  return limit;
}

export function createHandler(env: Environment) {
  const { deps } = ownerDeps(env);
  const sqs = createSqsClient({ endpoint: setting(env, settings.sqsEndpoint), instrument: deps.tracing.instrument });
  // Every answer carries the CORS headers its preflight promised (see OWNER_API_PREFLIGHT for why any origin).
  return makeHandler({
    ...deps,
    importJobs: {
      imports: new DynamoImportStore(deps.doc, deps.tableName),
      uploads: createUploadStore(setting(env, settings.importUploads), setting(env, settings.publicBaseUrl) ?? ''),
      queue: new SqsJsonPublisher<ImportChunkMessage>(sqs, setting(env, settings.importQueueUrl)),
      newId: deps.newId,
      now: deps.now,
    },
    corsOrigins: corsAllowedOrigins(OWNER_API_PREFLIGHT, setting(env, settings.corsAllowedOrigins)),
  });
}

export const handler = deferred(() => createHandler(process.env));
