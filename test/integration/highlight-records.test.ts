import { randomUUID } from 'node:crypto';
import { DeleteCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import type { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import type { DynamoFeedStore } from '../../functions/adapters/dynamo/feed-store';
import { keys } from '../../functions/adapters/dynamo/keys';
import { runMigrations } from '../../functions/adapters/dynamo/migrations';
import { saveBookmark } from '../../functions/core/save/save-bookmark';
import { newUser } from '../../functions/core/workspace/accounts';
import { createTestStores, type createTestTable } from '../support/dynamo';
import { quietSavePorts } from '../support/save-ports';

/** Highlights as their own records, against DynamoDB Local: written with the note, deleted with it, migrated from bodies. */

let table: Awaited<ReturnType<typeof createTestTable>>;
let accounts: DynamoAccountStore;
let store: DynamoBookmarkStore;
let feeds: DynamoFeedStore;
const ports = () => quietSavePorts(store);

beforeAll(async () => {
  ({ table, accounts, bookmarks: store, feeds } = await createTestStores());
});
afterAll(() => table.client.destroy());

async function user(noteCap?: number) {
  const created = newUser({ id: randomUUID(), name: 'Reader', noteCap, now: new Date() });
  await accounts.createUser(created);
  return created.id;
}

const save = (userId: string, url: string, selection: string | null, comment: string | null = null) =>
  saveBookmark(ports(), {
    userId,
    request: { url: new URL(url), title: 'Page', selection, comment, description: null, append: true },
    siteIcon: null,
    idempotency: null,
  });

const noteIdOf = (outcome: Awaited<ReturnType<typeof save>>) =>
  (outcome.kind === 'saved' ? outcome.bookmark.noteId : null)!;

describe('highlight records', () => {
  it('are written with the save that makes them, one per selection, and not for a comment alone', async () => {
    const userId = await user();
    const noteId = noteIdOf(await save(userId, 'https://example.com/h', 'First quote', 'why #tag'));
    await save(userId, 'https://example.com/h', 'Second quote');
    await save(userId, 'https://example.com/h', null, 'just a comment');
    const highlights = await feeds.highlightsOf([noteId]);
    expect(highlights.map(({ quote, comment, noteId: of, userId: by }) => ({ quote, comment, of, by }))).toEqual([
      { quote: 'First quote', comment: 'why #tag', of: noteId, by: userId },
      { quote: 'Second quote', comment: null, of: noteId, by: userId },
    ]);
  });

  it('are not written by a save that fails (here: at the note cap)', async () => {
    const userId = await user(1);
    await save(userId, 'https://example.com/first', 'kept');
    expect((await save(userId, 'https://example.com/second', 'refused')).kind).toBe('note-limit');
    const { Items } = await table.doc.send(
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: '#type = :type AND userId = :user',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':type': 'Highlight', ':user': userId },
      }),
    );
    expect(Items?.map((item) => item.quote)).toEqual(['kept']);
  });

  it('are deleted with their note', async () => {
    const userId = await user();
    const noteId = noteIdOf(await save(userId, 'https://example.com/d', 'one'));
    await save(userId, 'https://example.com/d', 'two');
    expect(await feeds.highlightsOf([noteId])).toHaveLength(2);
    await store.deleteNote(noteId);
    expect(await feeds.highlightsOf([noteId])).toEqual([]);
  });

  it('are made from the bodies of notes saved before they were kept, once, by gleaner migrate', async () => {
    const userId = await user();
    const noteId = noteIdOf(await save(userId, 'https://example.com/m', 'old quote', 'old comment'));
    await save(userId, 'https://example.com/m', 'later quote');
    // Back to how an earlier version left it: the quotes only in the body, no records, no marker.
    for (const highlight of await feeds.highlightsOf([noteId])) {
      await table.doc.send(
        new DeleteCommand({ TableName: table.tableName, Key: keys.highlight(noteId, highlight.saved, highlight.id) }),
      );
    }
    await table.doc.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.note(noteId),
        UpdateExpression: 'REMOVE highlightsRecorded',
      }),
    );

    const first = (await runMigrations(table.doc, table.tableName)).find(
      (result) => result.name === 'highlight-records',
    );
    expect(first?.changed).toEqual({ notes: 1, highlights: 2 });
    const note = await store.getNote(noteId);
    const restored = await feeds.highlightsOf([noteId]);
    expect(restored.map(({ quote, comment, saved }) => ({ quote, comment, saved }))).toEqual([
      { quote: 'old quote', comment: 'old comment', saved: note!.created },
      { quote: 'later quote', comment: null, saved: note!.updated },
    ]);
    const second = (await runMigrations(table.doc, table.tableName)).find(
      (result) => result.name === 'highlight-records',
    );
    expect(second?.changed).toEqual({ notes: 0, highlights: 0 });
    expect(await feeds.highlightsOf([noteId])).toHaveLength(2);
  });
});
