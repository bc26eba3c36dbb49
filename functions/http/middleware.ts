import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import httpCors from '@middy/http-cors';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import {
  fullQuota,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitPolicy,
  rateLimitHeaders,
} from '../core/contract/rate-limit';
import { type Retirement, retirementHeaders } from '../core/contract/retirement';
import { withInvocationDeadline } from '../platform/request-deadline';
import type { Tracing } from '../platform/tracing';
import { errorResponse, type Headers } from './responses';
import { temporaryFaultRetryAfter } from './temporary-fault';

/** What a route's own code gets besides the event: its rate limiter, bound to the route's policy. */
export interface RouteRequest {
  /**
   * Counts this request against `subject`'s quota (the route's policy unless another is given); the
   * answer then carries the resulting headers, of the tightest quota when it counts against several.
   */
  rateLimit(subject: string, policy?: RateLimitPolicy): Promise<RateLimitDecision>;
}

export type RouteHandler<Event extends APIGatewayProxyEvent = APIGatewayProxyEvent> = (
  event: Event,
  request: RouteRequest,
) => Promise<APIGatewayProxyResult>;

/** A route's own middleware (authentication, the body parser), run innermost, after the shared ones. */
export type RouteMiddleware<Event extends APIGatewayProxyEvent = APIGatewayProxyEvent> = middy.MiddlewareObj<
  Event,
  APIGatewayProxyResult
>;

/**
 * Thrown by a route's middleware to answer now (a 401, a 429): the route's handler does not run, and
 * the answer still gets every header the route's answers carry (which middy's early return would skip).
 */
export class RouteAnswer extends Error {
  constructor(readonly response: APIGatewayProxyResult) {
    super(`answered ${response.statusCode} before the handler`);
  }
}

/** The rate limiter of the invocation `context` belongs to, for a route's middleware. */
export function routeRequest(context: Context): RouteRequest {
  const request = invocations.get(context);
  if (!request) throw new Error('routeRequest outside an httpRoute invocation');
  return request;
}

const invocations = new WeakMap<Context, RequestRateLimit>();

export interface RouteOptions {
  readonly logger: Logger;
  readonly metrics?: Metrics;
  /** Traces the invocation (X-Ray); the route's AWS clients are traced where they are built. */
  readonly tracing?: Tracing;
  readonly corsOrigins: readonly string[];
  /** The route's quota: every answer, a 500 included, then carries the four RateLimit headers. */
  readonly rateLimit?: { readonly limiter: RateLimiter; readonly policy: RateLimitPolicy };
  /** A retiring route's dates: every answer then carries Deprecation, Sunset and Link. */
  readonly retirement?: Retirement | null;
}

/** Response headers a browser client may read: the rate-limit state, when to retry, the validators, the bearer challenge, the route's retirement. */
const EXPOSED_HEADERS = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
  'Retry-After',
  'ETag',
  'Last-Modified',
  'WWW-Authenticate',
  'Deprecation',
  'Sunset',
  'Link',
];

/**
 * The middleware every HTTP route shares: an X-Ray segment, structured logs with the request id,
 * metrics flushed per invocation, the request's deadline (retries stop in time to answer: see request-deadline.ts),
 * CORS headers on every answer, a last-resort 500 in the contract's shape with no stack
 * trace (503 with Retry-After when the failure is a temporary one), and the headers the contract wants on every answer of a route, errors included: the four
 * RateLimit headers (the limiter's last answer, or the full quota when it never answered) and, on a
 * retiring route, Deprecation/Sunset/Link. A HEAD request gets the GET answer without its body.
 */
export function httpRoute<Event extends APIGatewayProxyEvent = APIGatewayProxyEvent>(
  handler: RouteHandler<Event>,
  options: RouteOptions,
  middlewares: readonly RouteMiddleware<Event>[] = [],
) {
  const route = middy<Event, APIGatewayProxyResult>((event: Event, context: Context) =>
    handler(event, routeRequest(context)),
  );
  // Answers (feeds, icons) can be large: the trace keeps the timing, not the body.
  if (options.tracing) route.use(options.tracing.middleware({ captureResponse: false }));
  route.use(injectLambdaContext(options.logger, { resetKeys: true }));
  if (options.metrics) route.use(logMetrics(options.metrics));
  route
    .use(httpCors({ origins: [...options.corsOrigins], exposeHeaders: EXPOSED_HEADERS.join(', ') }))
    .use(everyAnswer(options));
  for (const middleware of middlewares) route.use(middleware);
  // Lambda hands over a plain proxy event; the route's middlewares add what `Event` has beyond it.
  return (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> =>
    withInvocationDeadline(context, () => route(event as Event, context));
}

/** The route's limiter for one request, remembering its last decision for the answer's headers. */
class RequestRateLimit implements RouteRequest {
  private decision: RateLimitDecision | null = null;

  constructor(private readonly quota: RouteOptions['rateLimit']) {}

  async rateLimit(subject: string, policy?: RateLimitPolicy): Promise<RateLimitDecision> {
    if (!this.quota) throw new Error('This route has no rate limit');
    const decision = await this.quota.limiter.hit(subject, policy ?? this.quota.policy);
    if (!this.decision || !decision.allowed || decision.remaining < this.decision.remaining) this.decision = decision;
    return decision;
  }

  headers(): Headers {
    if (!this.quota) return {};
    return rateLimitHeaders(this.decision ?? fullQuota(this.quota.policy, Date.now()));
  }
}

/**
 * What CloudFront's security headers policy adds to every answer (lib/cdn.ts), sent by the handlers
 * too, so the local stack answers as AWS does. HSTS stays CloudFront's: it means nothing over http.
 */
const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
} as const;

/**
 * Runs first on the way in (the request's limiter) and last on the way out (before CORS): a
 * middleware's RouteAnswer, or a 500/503 for a failure; the route's headers; HEAD.
 */
function everyAnswer<Event extends APIGatewayProxyEvent>(
  options: RouteOptions,
): middy.MiddlewareObj<Event, APIGatewayProxyResult> {
  const routeHeaders = options.retirement ? retirementHeaders(options.retirement) : {};
  const finish = (request: middy.Request<Event, APIGatewayProxyResult>, response: APIGatewayProxyResult) => {
    const limits = invocations.get(request.context) ?? new RequestRateLimit(options.rateLimit);
    request.response = {
      ...response,
      headers: { ...SECURITY_HEADERS, ...response.headers, ...limits.headers(), ...routeHeaders },
      ...(request.event.httpMethod === 'HEAD' ? { body: '', isBase64Encoded: false } : {}),
    };
  };
  return {
    before: async (request) => {
      invocations.set(request.context, new RequestRateLimit(options.rateLimit));
    },
    after: async (request) => finish(request, request.response!),
    onError: async (request) =>
      finish(
        request,
        request.error instanceof RouteAnswer
          ? request.error.response
          : internalError(options.logger, request.error, request.context.awsRequestId),
      ),
  };
}

/** The last-resort answer: 503 with Retry-After for a temporary fault (contention, DynamoDB unreachable), else 500. */
function internalError(logger: Logger, error: unknown, requestId: string): APIGatewayProxyResult {
  const retryAfter = temporaryFaultRetryAfter(error);
  if (retryAfter !== null) {
    logger.warn('Temporary fault; answered 503', { error: error as Error, requestId });
    return errorResponse(503, `Temporarily unavailable; retry in ${retryAfter} s (request id ${requestId})`, {
      'Retry-After': String(retryAfter),
    });
  }
  logger.error('Unhandled error', { error: error as Error, requestId });
  return errorResponse(500, `Internal server error (request id ${requestId})`);
}
