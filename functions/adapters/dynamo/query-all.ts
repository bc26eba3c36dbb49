import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

/** Every item a query matches, page after page (at most `limit`, when given). */
export async function queryAll(
  doc: DynamoDBDocumentClient,
  input: Omit<QueryCommandInput, 'ExclusiveStartKey' | 'Limit'>,
  limit?: number,
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({ ...input, ExclusiveStartKey, ...(limit ? { Limit: limit - found.length } : {}) }),
    );
    found.push(...(page.Items ?? []));
    ExclusiveStartKey = limit && found.length >= limit ? undefined : page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return found;
}
