import { TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';

/**
 * Runs a DynamoDB transaction-based operation, retrying (with jittered exponential backoff) when it
 * was cancelled because another transaction touched the same items at the same moment.
 */
export async function retryOnConflict<T>(operation: (attempt: number) => Promise<T>, maxAttempts = 12): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (attempt >= maxAttempts || !isConflict(error)) throw error;
      await backoff(attempt);
    }
  }
}

export function cancellationReasons(error: unknown): CancellationReason[] | null {
  return error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : null;
}

function isConflict(error: unknown): boolean {
  return (
    (error as { name?: string }).name === 'TransactionConflictException' ||
    (cancellationReasons(error)?.some((reason) => reason.Code === 'TransactionConflict') ?? false)
  );
}

export function backoff(attempt: number): Promise<void> {
  const ceiling = Math.min(1000, 10 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}
