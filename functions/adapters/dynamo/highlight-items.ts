import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { HIGHLIGHT_SORT_PREFIX, keys } from './keys';
import { queryAll } from './query-all';

/** The items of a note's highlights, in the order they were saved (`projection`: only those attributes). */
export async function noteHighlightItems(
  doc: DynamoDBDocumentClient,
  tableName: string,
  noteId: string,
  projection?: string,
): Promise<Record<string, unknown>[]> {
  return queryAll(doc, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.note(noteId).pk, ':prefix': HIGHLIGHT_SORT_PREFIX },
    ...(projection ? { ProjectionExpression: projection } : {}),
  });
}
