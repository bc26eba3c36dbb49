import { DeleteCommand, type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { writtenUnlessConditionFails } from './conditional-write';
import { TTL_ATTRIBUTE } from './keys';

/**
 * DynamoDB's TTL for notes in the Trash, played where it does not run: DynamoDB Local never deletes
 * expired items, so the local stack deletes the trashed notes past their time itself (a Scan, as
 * TTL's own background sweep reads the table), each conditional on its expiry still being passed (a
 * restore meanwhile removed it). The stream then carries the deletion to its consumer exactly as
 * TTL's would. Returns how many it deleted.
 */
export async function deleteExpiredTrash(doc: DynamoDBDocumentClient, tableName: string, now: Date): Promise<number> {
  const names = { '#type': 'type', '#ttl': TTL_ATTRIBUTE };
  const values = { ':now': Math.floor(now.getTime() / 1000) };
  let deleted = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#type = :note AND attribute_exists(trashedAt) AND #ttl <= :now',
        ProjectionExpression: 'pk, sk',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ...values, ':note': 'Note' },
        ExclusiveStartKey,
      }),
    );
    for (const { pk, sk } of page.Items ?? []) {
      const expired = await writtenUnlessConditionFails(() =>
        doc.send(
          new DeleteCommand({
            TableName: tableName,
            Key: { pk, sk },
            ConditionExpression: 'attribute_exists(trashedAt) AND #ttl <= :now',
            ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
            ExpressionAttributeValues: values,
          }),
        ),
      );
      if (expired) deleted++;
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return deleted;
}
