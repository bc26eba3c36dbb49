import type { APIGatewayProxyResult } from 'aws-lambda';
import type { RateLimitError } from '../core/contract/contract';
import type { RateLimitDecision } from '../core/contract/rate-limit';
import { errorResponse, type Headers } from './responses';

/** 429 RateLimitError; `retry_after` and the Retry-After header both say when the window resets. */
export function rateLimited(limit: RateLimitDecision, headers: Headers = {}): APIGatewayProxyResult {
  return errorResponse(
    429,
    {
      code: 'rate_limited',
      message: `Rate limit exceeded: ${limit.policy.limit} requests per ${limit.policy.windowSeconds} seconds.`,
      retry_after: limit.resetSeconds,
    } satisfies RateLimitError['detail'],
    { ...headers, 'Retry-After': String(limit.resetSeconds) },
  );
}
