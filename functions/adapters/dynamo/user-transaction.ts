import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { type ConditionalOutcome, conditionalWrite, TransactionSteps } from './conditional-write';
import { keys } from './keys';
import { retryOnConflict } from './transactions';

export class UserNotFoundError extends Error {}

type TransactItems = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;

/**
 * Writes `items` in one transaction that also checks the user exists. Only a failed check of the
 * user item means "no such user" (UserNotFoundError); a conflict with another transaction is retried;
 * failed conditions of `items` come back as the outcome, indexed as `items` are.
 */
export async function transactForUser(
  doc: DynamoDBDocumentClient,
  tableName: string,
  userId: string,
  items: TransactItems,
): Promise<ConditionalOutcome<unknown>> {
  const steps = new TransactionSteps<'user' | 'items'>()
    .add('user', {
      ConditionCheck: { TableName: tableName, Key: keys.user(userId), ConditionExpression: 'attribute_exists(pk)' },
    })
    .add('items', ...items);
  const outcome = await retryOnConflict(() =>
    conditionalWrite(() => doc.send(new TransactWriteCommand({ TransactItems: steps.actions }))),
  );
  if (outcome.written) return outcome;
  if (steps.refused('user', outcome.failed)) throw new UserNotFoundError(`no user with id ${userId}`);
  // The failures of the caller's items, in their order.
  return { written: false, failed: outcome.failed.slice(1) };
}
