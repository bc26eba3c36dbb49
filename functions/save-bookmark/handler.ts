import { randomUUID } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { DynamoAccountStore } from '../adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../adapters/dynamo/bookmark-store';
import { createDynamoClients } from '../adapters/dynamo/client';
import { DynamoRateLimiter } from '../adapters/dynamo/rate-limiter';
import { createSqsClient, SqsJsonPublisher } from '../adapters/sqs/sqs';
import type { IdempotencyInFlightError, NoteLimitError } from '../core/contract/contract';
import { clientQuotaKey, type RateLimiter, type RateLimitPolicy } from '../core/contract/rate-limit';
import { parseRetirement, type Retirement } from '../core/contract/retirement';
import { jsonContentTypeIssues } from '../core/contract/validation';
import { keyReusedIssue, parseIdempotencyKey } from '../core/save/idempotency';
import {
  type AnswerOutcome,
  type SaveBookmarkPorts,
  type SaveContextReader,
  saveBookmark,
  saveResult,
} from '../core/save/save-bookmark';
import { parseSaveRequest, type SaveRequestParse } from '../core/save/save-request';
import { lastUseDue, tokenAccepted, userAgentFamily } from '../core/token/lifecycle';
import { bearerToken, hashToken } from '../core/token/token';
import { isWellFormedToken } from '../core/wire/token-format';
import { httpRoute, type RouteRequest } from '../http/middleware';
import { rateLimited } from '../http/rate-limited';
import { errorResponse, header, headerValues, jsonResponse } from '../http/responses';
import { deferred, type Environment } from '../platform/env';
import { metricNames } from '../platform/metric-names';
import { count, createLogger, createMetrics } from '../platform/observability';
import { rateLimitSettings, setting, settings } from '../platform/settings';
import { createTracing, type Tracing } from '../platform/tracing';

/** POST /api/v1/bookmarks/save — the one operation personal access tokens authenticate. */

export interface SaveBookmarkDeps extends Omit<SaveBookmarkPorts, 'logger'> {
  readonly accounts: SaveContextReader;
  readonly rateLimiter: RateLimiter;
  readonly rateLimitPolicy: RateLimitPolicy;
  readonly corsOrigins: readonly string[];
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly tracing?: Tracing;
  readonly retirement?: Retirement | null;
}

export function makeHandler(deps: SaveBookmarkDeps) {
  return httpRoute((event, request) => saveBookmarkRoute(deps, event, request), {
    ...deps,
    rateLimit: { limiter: deps.rateLimiter, policy: deps.rateLimitPolicy },
  });
}

async function saveBookmarkRoute(
  deps: SaveBookmarkDeps,
  event: APIGatewayProxyEvent,
  request: RouteRequest,
): Promise<APIGatewayProxyResult> {
  const authorization = headerValues(event, 'Authorization');
  // Two credentials are ambiguous: which one a proxy on the way would keep is anybody's guess.
  const ambiguous = authorization.length > 1;
  const token = ambiguous ? null : bearerToken(authorization[0]);
  const parsed = parseRequestBody(event);
  const addressQuota = `ip:${clientQuotaKey(event.requestContext.identity.sourceIp)}`;
  // A token that fails its checksum is rejected without a database call. A well-formed one counts
  // against its own quota (keyed by its hash) while it is being looked up, so a save waits for one
  // round trip here, not two.
  const tokenHash = token && isWellFormedToken(token) ? hashToken(token) : null;
  const [context, tokenLimit] = tokenHash
    ? await Promise.all([
        deps.accounts.loadSaveContext(tokenHash, parsed.ok ? parsed.request.url.host : null),
        request.rateLimit(`token:${tokenHash}`),
      ])
    : [{ token: null, siteIcon: null }, null];
  const now = deps.now();
  const caller = context.token && tokenAccepted(context.token, now) ? context.token : null;
  // Off the critical path: written while the save runs, at most hourly, and never failing the save.
  const recordingUse =
    caller && tokenHash && lastUseDue(caller, now) ? recordTokenUse(deps, tokenHash, now, event) : null;
  try {
    // Callers without a valid token share their address's quota (an IPv6 /64's): a refused token counts there too.
    const limit = caller && tokenLimit ? tokenLimit : await request.rateLimit(addressQuota);
    if (!limit.allowed) {
      count(deps.metrics, metricNames.saveRateLimited);
      return rateLimited(limit);
    }
    if (!caller) {
      count(deps.metrics, metricNames.saveUnauthorized);
      const detail = ambiguous
        ? 'Ambiguous credentials: send exactly one Authorization header'
        : token === null
          ? 'Not authenticated: send Authorization: Bearer <token>'
          : 'Invalid, expired or revoked token';
      return errorResponse(401, detail, { 'WWW-Authenticate': 'Bearer realm="gleaner"' });
    }
    const idempotencyKey = parseIdempotencyKey(headerValues(event, 'Idempotency-Key'));
    if (!parsed.ok || !idempotencyKey.ok) {
      count(deps.metrics, metricNames.saveInvalid);
      return errorResponse(422, [
        ...(parsed.ok ? [] : parsed.issues),
        ...(idempotencyKey.ok ? [] : idempotencyKey.issues),
      ]);
    }

    const outcome = await saveBookmark(deps, {
      userId: caller.userId,
      request: parsed.request,
      siteIcon: context.siteIcon,
      idempotency: idempotencyKey.key === null ? null : { scope: caller.id, key: idempotencyKey.key },
    });
    switch (outcome.kind) {
      case 'replayed':
        // The first answer again; the middleware adds this request's rate-limit headers.
        count(deps.metrics, metricNames.saveReplayed);
        return answer(outcome.first);
      case 'key-reused':
        count(deps.metrics, metricNames.idempotencyKeyReused);
        return errorResponse(422, [keyReusedIssue]);
      case 'in-flight':
        count(deps.metrics, metricNames.idempotencyKeyInFlight);
        return errorResponse(409, IN_FLIGHT, { 'Retry-After': String(IN_FLIGHT.retry_after) });
      case 'saved':
        count(deps.metrics, outcome.isNewBookmark ? metricNames.bookmarkCreated : metricNames.noteAppended);
        return answer(outcome);
      case 'note-limit':
        count(deps.metrics, metricNames.noteLimitReached);
        return answer(outcome);
      case 'note-full':
        return answer(outcome);
    }
  } finally {
    await recordingUse;
  }
}

async function recordTokenUse(
  deps: SaveBookmarkDeps,
  tokenHash: string,
  now: Date,
  event: APIGatewayProxyEvent,
): Promise<void> {
  try {
    await deps.accounts.recordTokenUse(tokenHash, now, userAgentFamily(header(event.headers, 'User-Agent')));
  } catch (error) {
    deps.logger.warn("Recording the token's last use failed; the next use records it", { error: String(error) });
  }
}

/** A repeat of a save still running: the draft's 409, with a second's wait (a save takes well under one). */
const IN_FLIGHT = {
  code: 'idempotency_in_flight',
  message: 'A request with this Idempotency-Key is still being processed; retry shortly.',
  retry_after: 1,
} as const satisfies IdempotencyInFlightError['detail'];

/** The HTTP answer to a save's outcome, the first time and on every replay. */
function answer(outcome: AnswerOutcome): APIGatewayProxyResult {
  switch (outcome.kind) {
    case 'saved':
      return jsonResponse(200, saveResult(outcome));
    case 'note-limit':
      return errorResponse(402, {
        code: 'note_limit',
        message: `Note limit reached: your plan allows ${outcome.limit.toLocaleString('en-US')} notes.`,
        hint: 'Delete notes you no longer need, or upgrade your plan, to save new pages.',
        used: outcome.used,
        limit: outcome.limit,
      } satisfies NoteLimitError['detail']);
    case 'note-full':
      return errorResponse(422, [
        {
          loc: ['body', 'selection'],
          msg: 'The note for this page has reached its maximum size; nothing was appended',
          type: 'note_too_large',
        },
      ]);
  }
}

function parseRequestBody(event: APIGatewayProxyEvent): SaveRequestParse {
  const contentTypeIssues = jsonContentTypeIssues(header(event.headers, 'Content-Type'));
  if (contentTypeIssues.length) return { ok: false, issues: contentTypeIssues };
  return parseSaveRequest(
    event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : event.body,
  );
}

export function createHandler(env: Environment) {
  const tableName = setting(env, settings.tableName);
  const logger = createLogger(env);
  const tracing = createTracing();
  const { instrument } = tracing;
  const { doc } = createDynamoClients({ endpoint: setting(env, settings.dynamoEndpoint), instrument });
  return makeHandler({
    accounts: new DynamoAccountStore(doc, tableName),
    store: new DynamoBookmarkStore(doc, tableName),
    rateLimiter: new DynamoRateLimiter(doc, tableName),
    enrichment: new SqsJsonPublisher(
      createSqsClient({ endpoint: setting(env, settings.sqsEndpoint), instrument }),
      setting(env, settings.enrichmentQueueUrl),
    ),
    rateLimitPolicy: setting(env, rateLimitSettings.save),
    retirement: parseRetirement(setting(env, settings.routeRetirement)),
    corsOrigins: setting(env, settings.corsAllowedOrigins),
    logger,
    metrics: createMetrics(logger),
    tracing,
    newId: randomUUID,
    now: () => new Date(),
  });
}

export const handler = deferred(() => createHandler(process.env));
