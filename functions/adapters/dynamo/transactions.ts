import { type CancellationReason, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Deadline } from '../../core/deadline';
import { requestDeadline } from '../../platform/request-deadline';

/**
 * Runs a DynamoDB transaction-based operation, retrying (with jittered exponential backoff) when it
 * was cancelled because another transaction touched the same items at the same moment, for as long
 * as the request's deadline allows.
 */
export async function retryOnConflict<T>(
  operation: (attempt: number) => Promise<T>,
  maxAttempts = 12,
  deadline = requestDeadline(),
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (attempt >= maxAttempts || !isConflict(error)) throw error;
      await backoff(attempt, deadline);
    }
  }
}

/** One action of a document-client transaction (a Put, Update, Delete or ConditionCheck). */
export type TransactionAction = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** DynamoDB's limit on the actions of one transaction. */
const MAX_TRANSACTION_ACTIONS = 100;

/**
 * A transaction of `actions` and as many of `more` as it has room for; `overflow` (the rest of
 * `more`) is for the caller to write right after it.
 */
export function fillTransaction<More extends TransactionAction>(
  actions: readonly TransactionAction[],
  more: readonly More[],
): { actions: TransactionAction[]; overflow: More[] } {
  const room = Math.max(0, MAX_TRANSACTION_ACTIONS - actions.length);
  return { actions: [...actions, ...more.slice(0, room)], overflow: more.slice(room) };
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

/** Waits before retry `attempt`, unless the request's deadline would pass (DeadlineExceededError). */
export function backoff(attempt: number, deadline: Deadline = requestDeadline()): Promise<void> {
  const ceiling = Math.min(1000, 10 * 2 ** attempt);
  const waitMs = Math.random() * ceiling;
  deadline.allowWait(waitMs, `retry ${attempt}`);
  return new Promise((resolve) => setTimeout(resolve, waitMs));
}
