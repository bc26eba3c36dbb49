/**
 * Failures that say nothing about the request and pass by themselves: the answer is 503 with
 * Retry-After (the contract's temporary fault), not 500. Told apart by name, as the AWS SDK and
 * Node name them, so this module needs neither.
 */

/** Lost races until the time or attempts ran out, or DynamoDB shedding load: retry in a second. */
const CONTENDED = new Set([
  'DeadlineExceededError',
  'ContentionError',
  'TransactionConflictException',
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
]);

/** DynamoDB (or SQS) down, restarting or unreachable: give it a few seconds. */
const UNREACHABLE_NAMES = new Set(['InternalServerError', 'ServiceUnavailable', 'TimeoutError']);
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
]);

/** Seconds a client should wait before trying again, or null when the failure is not a temporary one. */
export function temporaryFaultRetryAfter(error: unknown): number | null {
  if (!(error instanceof Error)) return null;
  if (CONTENDED.has(error.name) || transactionCancelledBy(error, ['TransactionConflict', 'ThrottlingError'])) return 1;
  const code = (error as NodeJS.ErrnoException).code;
  if (UNREACHABLE_NAMES.has(error.name) || (code && UNREACHABLE_CODES.has(code))) return 5;
  // The SDK wraps a refused connection; its cause, or an AggregateError's parts, say what it was.
  const causes = [error.cause, ...((error as Partial<AggregateError>).errors ?? [])];
  return causes.reduce<number | null>((found, cause) => found ?? temporaryFaultRetryAfter(cause), null);
}

function transactionCancelledBy(error: Error, codes: readonly string[]): boolean {
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (
    error.name === 'TransactionCanceledException' && !!reasons?.some((reason) => codes.includes(reason.Code ?? ''))
  );
}
