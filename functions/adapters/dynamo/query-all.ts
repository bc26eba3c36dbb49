import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';

/** Every item a query matches, page after page. */
export async function queryAll(
  doc: DynamoDBDocumentClient,
  tableName: string,
  query: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName' | 'ExclusiveStartKey'>,
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new QueryCommand({ ...query, TableName: tableName, ExclusiveStartKey }));
    found.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return found;
}
