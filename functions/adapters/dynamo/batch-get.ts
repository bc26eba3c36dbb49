import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Key } from './keys';
import { backoff } from './transactions';

/** BatchGetItem takes at most 100 keys a call. */
const BATCH_SIZE = 100;

/** Reads all `keys` (any number), retrying the keys DynamoDB returns unprocessed. */
export async function batchGetAll(
  doc: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly Key[],
  options: { consistentRead?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let start = 0; start < keys.length; start += BATCH_SIZE) {
    let pending: Record<string, unknown>[] = keys.slice(start, start + BATCH_SIZE);
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > 1) await backoff(attempt);
      const { Responses, UnprocessedKeys } = await doc.send(
        new BatchGetCommand({
          RequestItems: { [tableName]: { Keys: pending, ConsistentRead: options.consistentRead } },
        }),
      );
      items.push(...(Responses?.[tableName] ?? []));
      pending = UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  }
  return items;
}
