import { type DynamoDBDocumentClient, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { Note } from '../../core/model';
import type { NoteChange } from '../../core/search/indexer';
import { batchGetAll } from '../dynamo/batch-get';
import { readNote } from '../dynamo/entities/note';
import { keys, LOOKUP_INDEX } from '../dynamo/keys';

/**
 * Stream records as note changes. Only the note item matters: its body already holds the
 * description, the highlights and the comments, its own attributes the title, URL and tags, and every
 * write to any of them raises its version. Other items (bookmarks, tag index, highlights) are skipped.
 */
export function noteChangeOf(record: Pick<DynamoDBRecord, 'eventName' | 'dynamodb'>): NoteChange | null {
  const image = record.eventName === 'REMOVE' ? record.dynamodb?.OldImage : record.dynamodb?.NewImage;
  // Other items are skipped before they are unmarshalled: DynamoDB Local's stream writes an empty map
  // (in an OAuth artifact's payload) as `{}`, which unmarshall refuses.
  if (image?.type?.S !== 'Note' || image.sk?.S !== 'NOTE') return null;
  // The stream's attribute values are the SDK's own AttributeValue shape.
  const item = unmarshall(image as Parameters<typeof unmarshall>[0]);
  if (record.eventName === 'REMOVE')
    return {
      kind: 'deleted',
      noteId: String(item.id),
      userId: String(item.userId),
      ...(item.trashedAt ? { fromTrash: { bookmarkId: (item.bookmarkId as string | undefined) ?? null } } : {}),
    };
  return { kind: 'saved', note: readNote(item) };
}

/** The notes with these ids that exist now (a consistent read: the table is the source of truth). */
export async function readNotes(doc: DynamoDBDocumentClient, tableName: string, noteIds: readonly string[]) {
  const items = await batchGetAll(doc, tableName, noteIds.map(keys.note), { consistentRead: true });
  return items.map(readNote);
}

/**
 * Every note in the table (a Scan) or one user's (their notes index), a page at a time, for
 * rebuilding the index.
 */
export async function* allNotes(
  doc: DynamoDBDocumentClient,
  tableName: string,
  userId?: string,
): AsyncGenerator<Note[]> {
  for await (const { notes } of notePages(doc, tableName, userId)) yield notes;
}

/** allNotes' pages with the key each one ends at, from `from` (where an earlier scan stopped) on. */
export async function* notePages(
  doc: DynamoDBDocumentClient,
  tableName: string,
  userId?: string,
  from?: Record<string, unknown>,
  /** Items a page evaluates (a Scan's Limit): a rebuild saves its progress once per page. */
  pageSize?: number,
): AsyncGenerator<{ notes: Note[]; next: Record<string, unknown> | undefined }> {
  let ExclusiveStartKey: Record<string, unknown> | undefined = from;
  do {
    const page = await doc.send(
      userId === undefined
        ? new ScanCommand({
            TableName: tableName,
            FilterExpression: '#type = :note',
            ExpressionAttributeNames: { '#type': 'type' },
            ExpressionAttributeValues: { ':note': 'Note' },
            ExclusiveStartKey,
            Limit: pageSize,
          })
        : new QueryCommand({
            TableName: tableName,
            IndexName: LOOKUP_INDEX,
            KeyConditionExpression: 'gsi1pk = :notes',
            ExpressionAttributeValues: { ':notes': keys.userNotesIndex(userId).gsi1pk },
            ExclusiveStartKey,
          }),
    );
    ExclusiveStartKey = page.LastEvaluatedKey;
    yield { notes: (page.Items ?? []).map(readNote), next: ExclusiveStartKey };
  } while (ExclusiveStartKey);
}
