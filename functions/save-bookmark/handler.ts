import { randomUUID } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { DynamoAccountStore } from '../adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../adapters/dynamo/bookmark-store';
import { tableFromEnv } from '../adapters/dynamo/client';
import { DynamoRateLimiter } from '../adapters/dynamo/rate-limiter';
import { createSqsClient, SqsJsonPublisher } from '../adapters/sqs/sqs';
import type { IdempotencyInFlightError } from '../core/contract/contract';
import type { BodyParse } from '../core/contract/json-body';
import { noteLimitDetail } from '../core/contract/note-limit';
import type { RateLimiter, RateLimitPolicy } from '../core/contract/rate-limit';
import { parseRetirement, type Retirement } from '../core/contract/retirement';
import { keyReusedIssue, parseIdempotencyKey } from '../core/save/idempotency';
import {
  type AnswerOutcome,
  type SaveBookmarkPorts,
  type SaveContextReader,
  saveBookmark,
  saveResult,
} from '../core/save/save-bookmark';
import { parseSaveRequest, type SaveRequest } from '../core/save/save-request';
import { jsonBodyParser, type ParsedBodyEvent } from '../http/json-body-parser';
import { httpRoute } from '../http/middleware';
import { errorResponse, headerValues, jsonResponse } from '../http/responses';
import { deferred, type Environment } from '../platform/env';
import { metricNames } from '../platform/metric-names';
import { count, createLogger, createMetrics } from '../platform/observability';
import { rateLimitSettings, setting, settings } from '../platform/settings';
import { createTracing, type Tracing } from '../platform/tracing';
import { type AuthenticatedEvent, authenticate } from './authenticate';

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

type SaveEvent = AuthenticatedEvent<ParsedBodyEvent<SaveRequest>>;

export function makeHandler(deps: SaveBookmarkDeps) {
  return httpRoute<SaveEvent>(
    (event) => saveBookmarkRoute(deps, event),
    { ...deps, rateLimit: { limiter: deps.rateLimiter, policy: deps.rateLimitPolicy } },
    [jsonBodyParser(readSaveRequest), authenticate(deps, (event) => savedHost(event.parsedBody))],
  );
}

/** The request as core reads it; its refusals stay 422s. */
function readSaveRequest(value: unknown): BodyParse<SaveRequest> {
  const parsed = parseSaveRequest(value);
  return parsed.ok ? { ok: true, value: parsed.request } : { ok: false, status: 422, issues: parsed.issues };
}

const savedHost = (body: BodyParse<SaveRequest>) => (body.ok ? body.value.url.host : null);

async function saveBookmarkRoute(deps: SaveBookmarkDeps, event: SaveEvent): Promise<APIGatewayProxyResult> {
  const { parsedBody: body, caller } = event;
  if (!body.ok && body.status === 415) {
    count(deps.metrics, metricNames.saveInvalid);
    return errorResponse(415, body.detail);
  }
  const idempotencyKey = parseIdempotencyKey(headerValues(event, 'Idempotency-Key'));
  if (!body.ok || !idempotencyKey.ok) {
    count(deps.metrics, metricNames.saveInvalid);
    return errorResponse(422, [...(body.ok ? [] : body.issues), ...(idempotencyKey.ok ? [] : idempotencyKey.issues)]);
  }
  const outcome = await saveBookmark(deps, {
    userId: caller.token.userId,
    request: body.value,
    siteIcon: caller.siteIcon,
    idempotency: idempotencyKey.key === null ? null : { scope: caller.token.id, key: idempotencyKey.key },
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
      return errorResponse(402, noteLimitDetail(outcome.used, outcome.limit));
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

export function createHandler(env: Environment) {
  const logger = createLogger(env);
  const tracing = createTracing();
  const { instrument } = tracing;
  const { doc, tableName } = tableFromEnv(env, instrument);
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
