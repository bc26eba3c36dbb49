import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Key } from './keys';
import { backoff } from './transactions';

/** BatchGetItem takes at most 100 keys a call. */
export const BATCH_GET_KEYS = 100;

/**
 * Reads all `keys` (any number), retrying the keys DynamoDB returns unprocessed; only `attributes`
 * of each item when given.
 */
export async function batchGetAll(
  doc: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly Key[],
  options: { consistentRead?: boolean; attributes?: readonly string[] } = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  const projection = options.attributes && {
    ProjectionExpression: options.attributes.map((_, i) => `#a${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(options.attributes.map((name, i) => [`#a${i}`, name])),
  };
  for (let start = 0; start < keys.length; start += BATCH_GET_KEYS) {
    let pending: Record<string, unknown>[] = keys.slice(start, start + BATCH_GET_KEYS);
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > 1) await backoff(attempt);
      const { Responses, UnprocessedKeys } = await doc.send(
        new BatchGetCommand({
          RequestItems: { [tableName]: { Keys: pending, ConsistentRead: options.consistentRead, ...projection } },
        }),
      );
      items.push(...(Responses?.[tableName] ?? []));
      pending = UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  }
  return items;
}
