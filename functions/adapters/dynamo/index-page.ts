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
  return queryFilteredIndexPage(doc, tableName, partition, page, async (items) => items);
}

/** A filtered page reads at most `reads` times (`size` entries each, after the first) before it answers short, with a cursor. */
const FILTERED_READS = { reads: 10, size: 100 } as const;

/**
 * A page of what `resolve` makes of the entries of `partition` (newest first), leaving out the
 * entries it makes null (filtered out, or gone). Entries are read until the page is full, the
 * partition ends, or `bounds.reads` reads: then the page may be short (even empty) and its cursor
 * goes on from the last entry read.
 */
export async function queryFilteredIndexPage<T>(
  doc: DynamoDBDocumentClient,
  tableName: string,
  partition: string,
  page: PageRequest,
  resolve: (items: Record<string, unknown>[]) => Promise<(T | null)[]>,
  bounds: { readonly reads: number; readonly size: number } = FILTERED_READS,
): Promise<{ items: T[]; cursor: string | null }> {
  const kept: { entry: Record<string, unknown>; value: T }[] = [];
  let start: Record<string, unknown> | undefined = decodeCursor(page.cursor, partition);
  for (let read = 0; read < bounds.reads; read++) {
    const { Items = [], LastEvaluatedKey } = await doc.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: LOOKUP_INDEX,
        KeyConditionExpression: 'gsi1pk = :partition',
        ExpressionAttributeValues: { ':partition': partition },
        ScanIndexForward: false,
        Limit: read === 0 ? page.limit + 1 : bounds.size,
        ExclusiveStartKey: start,
      }),
    );
    const values = await resolve(Items);
    for (const [index, entry] of Items.entries()) {
      const value = values[index];
      if (value != null && kept.length <= page.limit) kept.push({ entry, value });
    }
    // More than a page: the entry after the page's last says another follows.
    if (kept.length > page.limit) break;
    if (!LastEvaluatedKey) return { items: kept.map(({ value }) => value), cursor: null };
    start = LastEvaluatedKey;
  }
  const items = kept.slice(0, page.limit);
  const last = kept.length > page.limit ? items.at(-1)?.entry : start;
  return { items: items.map(({ value }) => value), cursor: last ? encodeCursor(last) : null };
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
