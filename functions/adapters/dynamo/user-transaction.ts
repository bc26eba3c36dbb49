import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import { cancellationReasons, retryOnConflict } from './transactions';

export class UserNotFoundError extends Error {}

type TransactItems = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;

/**
 * Writes `items` in one transaction that also checks the user exists. Only a failed check of the
 * user item means "no such user": a conflict with another transaction is retried, and any other
 * cancellation (a throttled item, a failed condition of `items`) is thrown as it came.
 */
export async function transactForUser(
  doc: DynamoDBDocumentClient,
  tableName: string,
  userId: string,
  items: TransactItems,
): Promise<void> {
  await retryOnConflict(async () => {
    try {
      await doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: tableName,
                Key: keys.user(userId),
                ConditionExpression: 'attribute_exists(pk)',
              },
            },
            ...items,
          ],
        }),
      );
    } catch (error) {
      if (cancellationReasons(error)?.[0]?.Code === 'ConditionalCheckFailed')
        throw new UserNotFoundError(`no user with id ${userId}`);
      throw error;
    }
  });
}
