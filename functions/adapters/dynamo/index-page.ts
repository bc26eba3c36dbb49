import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { InvalidCursorError, type PageRequest } from '../../core/workspace/listing';
import { LOOKUP_INDEX } from './keys';

/** One page of the lookup index's `partition`, and the cursor of the next one. */
export async function queryIndexPage(
  doc: DynamoDBDocumentClient,
  tableName: string,
  partition: string,
  page: PageRequest,
  order: 'newest first' | 'oldest first',
): Promise<{ items: Record<string, unknown>[]; cursor: string | null }> {
  const { Items = [], LastEvaluatedKey } = await doc.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: LOOKUP_INDEX,
      KeyConditionExpression: 'gsi1pk = :partition',
      ExpressionAttributeValues: { ':partition': partition },
      ScanIndexForward: order === 'oldest first',
      Limit: page.limit,
      ExclusiveStartKey: decodeCursor(page.cursor, partition),
    }),
  );
  return { items: Items, cursor: encodeCursor(LastEvaluatedKey) };
}

type IndexKey = { pk: string; sk: string; gsi1pk: string; gsi1sk: string };

/** A query's LastEvaluatedKey as an opaque, URL-safe cursor. */
function encodeCursor(lastKey: Record<string, unknown> | undefined): string | null {
  return lastKey ? Buffer.from(JSON.stringify(lastKey)).toString('base64url') : null;
}

/**
 * The ExclusiveStartKey a cursor stands for. Only a key of the lookup index inside `partition` is
 * accepted, so a cursor of another list (another user's, another tag's) is refused, not followed.
 */
function decodeCursor(cursor: string | undefined, partition: string): IndexKey | undefined {
  if (cursor === undefined) return undefined;
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  const fields = ['pk', 'sk', 'gsi1pk', 'gsi1sk'] as const;
  const valid =
    typeof key === 'object' &&
    key !== null &&
    Object.keys(key).length === fields.length &&
    fields.every((field) => typeof (key as Record<string, unknown>)[field] === 'string');
  if (!valid || (key as IndexKey).gsi1pk !== partition) throw new InvalidCursorError();
  return key as IndexKey;
}
