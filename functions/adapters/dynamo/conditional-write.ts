import { type AttributeValue, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { cancellationReasons, type TransactionAction } from './transactions';

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

/**
 * A transaction's actions under step names. A refused transaction's conditions are read back by
 * step (`refused`), never by position, so adding or reordering a step cannot misreport another.
 */
export class TransactionSteps<Step extends string> {
  readonly actions: TransactionAction[] = [];
  private readonly steps: Step[] = [];

  /** Adds the actions of one step (none when the step does not apply). */
  add(step: Step, ...actions: TransactionAction[]): this {
    for (const action of actions) {
      this.actions.push(action);
      this.steps.push(step);
    }
    return this;
  }

  /** The first refused condition of `step` in a failed transaction's outcome, or null. */
  refused(step: Step, failed: readonly (FailedCondition | null)[]): FailedCondition | null {
    return failed.find((failure, index) => failure !== null && this.steps[index] === step) ?? null;
  }

  /** A failed outcome as if `step`'s condition had refused with `item` (a conflict read from the item). */
  refusal(step: Step, item: FailedCondition['item']): { written: false; failed: (FailedCondition | null)[] } {
    return { written: false, failed: this.steps.map((each) => (each === step ? { item } : null)) };
  }
}
