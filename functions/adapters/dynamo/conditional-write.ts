import { type AttributeValue, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { cancellationReasons } from './transactions';

/** An action whose condition did not hold, with the item as it was (when the write asked for it). */
export interface FailedCondition {
  readonly item: Record<string, AttributeValue> | null;
}

/**
 * How a conditional write ended: written, or refused by its condition. A single write's failure is
 * `failed[0]`; a transaction's lists each action by its index, null where the action's condition held.
 */
export type ConditionalOutcome<T> =
  | { readonly written: true; readonly value: T }
  | { readonly written: false; readonly failed: readonly (FailedCondition | null)[] };

/**
 * Runs a conditional write (a Put, Update or Delete with a condition, or a transaction), turning
 * DynamoDB's ConditionalCheckFailedException, or a transaction cancelled by failed conditions, into
 * an outcome. Everything else is thrown as it came, a cancellation by a conflicting transaction
 * included (retryOnConflict's to retry).
 */
export async function conditionalWrite<T>(write: () => Promise<T>): Promise<ConditionalOutcome<T>> {
  try {
    return { written: true, value: await write() };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) {
      return { written: false, failed: [{ item: error.Item ?? null }] };
    }
    const reasons = cancellationReasons(error);
    const conflict = reasons?.some((reason) => reason.Code === 'TransactionConflict');
    if (!reasons || conflict || !reasons.some((reason) => reason.Code === 'ConditionalCheckFailed')) throw error;
    return {
      written: false,
      failed: reasons.map((reason) =>
        reason.Code === 'ConditionalCheckFailed' ? { item: reason.Item ?? null } : null,
      ),
    };
  }
}

/** Whether the write happened: for writes whose refusal means "nothing to do" (already there, or gone). */
export async function writtenUnlessConditionFails(write: () => Promise<unknown>): Promise<boolean> {
  return (await conditionalWrite(write)).written;
}

/**
 * Whether DynamoDB refused a write because an item would pass its 400 KB: a single write's
 * ValidationException, or a transaction cancelled with a ValidationError on the item's action.
 * Nothing was written either way.
 */
export function itemTooLarge(error: unknown): boolean {
  const tooLarge = (message: string | undefined) => /item size/i.test(message ?? '');
  if (error instanceof Error && error.name === 'ValidationException') return tooLarge(error.message);
  return (
    cancellationReasons(error)?.some((reason) => reason.Code === 'ValidationError' && tooLarge(reason.Message)) ?? false
  );
}
