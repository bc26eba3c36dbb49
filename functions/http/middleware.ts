import middy from '@middy/core';
import httpCors from '@middy/http-cors';
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { errorResponse } from './responses';

export type HttpHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Response headers a browser client may read: the rate-limit state and when to retry. */
const EXPOSED_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'Retry-After', 'ETag', 'Last-Modified'];

/**
 * The middleware every HTTP route shares: structured logs with the request id, metrics flushed per
 * invocation, CORS headers on every answer, and a last-resort 500 in the contract's shape with no
 * stack trace.
 */
export function httpRoute(handler: HttpHandler, options: { logger: Logger; metrics?: Metrics; corsOrigins: readonly string[] }) {
  const route = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(handler).use(injectLambdaContext(options.logger, { resetKeys: true }));
  if (options.metrics) route.use(logMetrics(options.metrics));
  return route
    .use(httpCors({ origins: [...options.corsOrigins], exposeHeaders: EXPOSED_HEADERS.join(', ') }))
    .use(unexpectedErrors(options.logger));
}

function unexpectedErrors(logger: Logger): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    onError: async (request) => {
      const requestId = request.context.awsRequestId;
      logger.error('Unhandled error', { error: request.error as Error, requestId });
      request.response = errorResponse(500, `Internal server error (request id ${requestId})`);
    },
  };
}

/** Comma-separated origins from the environment; any origin when unset. */
export function corsOrigins(value: string | undefined): string[] {
  const origins = (value ?? '*').split(',').map((origin) => origin.trim()).filter(Boolean);
  return origins.length ? origins : ['*'];
}
