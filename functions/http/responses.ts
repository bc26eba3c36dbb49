import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type {
  ErrorBody,
  HTTPValidationError,
  IdempotencyInFlightError,
  NoteLimitError,
  RateLimitError,
} from '../core/contract/contract';

/** Every non-2xx JSON answer of the contract has a top-level `detail`: one of the contract's error bodies. */
type ErrorDetail = (
  | ErrorBody
  | HTTPValidationError
  | IdempotencyInFlightError
  | NoteLimitError
  | RateLimitError
)['detail'];

export type Headers = Record<string, string>;

export function jsonResponse(statusCode: number, body: unknown, headers: Headers = {}): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}

export function errorResponse(statusCode: number, detail: ErrorDetail, headers: Headers = {}): APIGatewayProxyResult {
  return jsonResponse(statusCode, { detail }, headers);
}

/**
 * Every value a request sent for a header, case-insensitively: API Gateway keeps only the last one in
 * `headers`, all of them in `multiValueHeaders`.
 */
export function headerValues(
  event: Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'>,
  name: string,
): string[] {
  const wanted = name.toLowerCase();
  const values = Object.entries(event.multiValueHeaders ?? {}).flatMap(([key, list]) =>
    key.toLowerCase() === wanted ? (list ?? []) : [],
  );
  if (values.length) return values;
  const single = header(event.headers, name);
  return single === undefined ? [] : [single];
}

/** Case-insensitive header lookup (API Gateway passes headers as the client wrote them). */
export function header<Value = string>(
  headers: Record<string, Value | undefined> | null | undefined,
  name: string,
): Value | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}
