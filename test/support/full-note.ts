import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/adapters/dynamo/keys';

/**
 * Fills a note with appends of `text` as the save writes them (its list entry, its id, the body's
 * byte count), twenty at a time rather than saved one by one, until DynamoDB refuses the item's size:
 * the note is then as full as that many saves made it. How many were appended.
 */
export async function fillNoteToTheBrink(
  table: { doc: DynamoDBDocumentClient; tableName: string },
  noteId: string,
  text: string,
): Promise<number> {
  let appended = 0;
  for (;;) {
    const batch = Array.from({ length: 20 }, (_, index) => ({
      id: randomUUID(),
      saved: new Date(Date.UTC(2026, 0, 1, 0, 0, appended + index)).toISOString(),
      text,
    }));
    const filled = await table.doc
      .send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: keys.note(noteId),
          UpdateExpression:
            'SET appended = list_append(if_not_exists(appended, :none), :entries), bodyBytes = bodyBytes + :bytes ADD appendIds :ids',
          ExpressionAttributeValues: {
            ':none': [],
            ':entries': batch,
            ':bytes': batch.reduce((sum, entry) => sum + Buffer.byteLength(entry.text) + 2, 0),
            ':ids': new Set(batch.map((entry) => entry.id)),
          },
        }),
      )
      .then(
        () => true,
        (error: Error) => {
          if (error.name !== 'ValidationException') throw error;
          return false;
        },
      );
    if (!filled) return appended;
    appended += batch.length;
  }
}
