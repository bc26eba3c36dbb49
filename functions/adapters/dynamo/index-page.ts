import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { InvalidCursorError, type PageRequest } from '../../core/workspace/listing';
import { LOOKUP_INDEX } from './keys';

/**
 * One page of the lookup index's `partition`, newest first (every list the CLI prints is), and the
 * cursor of the next one. One item more than the page is read, so the last page gives no cursor:
 * DynamoDB's own LastEvaluatedKey is set whenever a page is full, even when nothing follows.
 */
export async function queryIndexPage(
  doc: DynamoDBDocumentClient,
  tableName: string,
  partition: string,
  page: PageRequest,
): Promise<{ items: Record<string, unknown>[]; cursor: string | null }> {
  const { Items = [] } = await doc.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: LOOKUP_INDEX,
      KeyConditionExpression: 'gsi1pk = :partition',
      ExpressionAttributeValues: { ':partition': partition },
      ScanIndexForward: false,
      Limit: page.limit + 1,
      ExclusiveStartKey: decodeCursor(page.cursor, partition),
    }),
  );
  const items = Items.slice(0, page.limit);
  const last = items.at(-1);
  return { items, cursor: Items.length > page.limit && last ? encodeCursor(last) : null };
}

type IndexKey = { pk: string; sk: string; gsi1pk: string; gsi1sk: string };

/** The index key of a page's last item as an opaque, URL-safe cursor. */
function encodeCursor(item: Record<string, unknown>): string {
  const { pk, sk, gsi1pk, gsi1sk } = item;
  return Buffer.from(JSON.stringify({ pk, sk, gsi1pk, gsi1sk })).toString('base64url');
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
