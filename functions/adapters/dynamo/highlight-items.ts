import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { HIGHLIGHT_SORT_PREFIX, keys } from './keys';

/** The items of a note's highlights, in the order they were saved (`projection`: only those attributes). */
export async function noteHighlightItems(
  doc: DynamoDBDocumentClient,
  tableName: string,
  noteId: string,
  projection?: string,
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.note(noteId).pk, ':prefix': HIGHLIGHT_SORT_PREFIX },
        ...(projection ? { ProjectionExpression: projection } : {}),
        ExclusiveStartKey,
      }),
    );
    found.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return found;
}
