import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import type { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { DynamoLinkStore } from '../../functions/adapters/dynamo/link-store';
import { createTestStores, type createTestTable } from '../support/dynamo';
import { linkingUser, saveLinkingNote } from '../support/link-notes';

/** Links and backlinks against DynamoDB Local, with two users whose notes link to the same titles. */

let table: Awaited<ReturnType<typeof createTestTable>>;
let accounts: DynamoAccountStore;
let bookmarks: DynamoBookmarkStore;
let links: DynamoLinkStore;

beforeAll(async () => {
  ({ table, accounts, bookmarks } = await createTestStores());
  links = new DynamoLinkStore(table.doc, table.tableName);
});
afterAll(() => table.client.destroy());

const user = () => linkingUser(accounts);

/** Saves a page (or a selection on it) and syncs the note's links, as the change stream does. */
async function save(userId: string, url: string, title: string, comment: string | null = null): Promise<string> {
  const note = await saveLinkingNote(bookmarks, userId, { url, title, comment });
  expect(await links.syncNote(note)).not.toBe('moved-on');
  return note.id;
}

/** A note's outgoing links as its page shows them: what each names, and the note it resolves to. */
const outgoing = async (noteId: string) =>
  (await links.outgoing((await bookmarks.getNote(noteId))!)).map((link) => ({
    target: link.target,
    note: link.note?.id ?? null,
  }));

describe('links between notes', () => {
  it("shows a note's backlinks by title and by saved URL, with their sentences, and never another user's", async () => {
    const a = await user();
    const b = await user();
    const queues = await save(a, 'https://example.com/queues', 'Queues in practice');
    const byTitle = await save(a, 'https://example.com/one', 'One', 'Compare [[queues IN practice]] here. More.');
    const byUrl = await save(a, 'https://example.com/two', 'Two', 'Read https://EXAMPLE.com/queues?utm_source=x first');
    // B links to the same title and URL from B's own notes.
    await save(b, 'https://example.com/queues', 'Queues in practice');
    const bNote = await save(
      b,
      'https://example.com/b',
      'B',
      'See [[Queues in practice]] and https://example.com/queues',
    );

    const backlinks = await links.backlinks(a, (await bookmarks.getNote(queues))!);
    expect(backlinks).toEqual([
      { note: { id: byTitle, title: 'One' }, context: 'Compare queues IN practice here.' },
      { note: { id: byUrl, title: 'Two' }, context: 'Read https://EXAMPLE.com/queues?utm_source=x first' },
    ]);
    expect(backlinks.map((link) => link.note.id)).not.toContain(bNote);
    // B's outgoing links resolve to B's own note, never to A's.
    const fromB = await links.outgoing((await bookmarks.getNote(bNote))!);
    expect(fromB.every((link) => link.note !== null && link.note.id !== queues)).toBe(true);
  });

  it('keeps an unresolved link waiting until its target is saved, and unresolves it when the target is deleted', async () => {
    const a = await user();
    const b = await user();
    await save(b, 'https://example.com/later-b', 'Later reading'); // another user's note of that title
    const source = await save(a, 'https://example.com/src', 'Source', 'Next: [[Later reading]].');
    expect(await outgoing(source)).toEqual([{ target: 'Later reading', note: null }]);

    const later = await save(a, 'https://example.com/later', 'Later Reading');
    expect(await outgoing(source)).toEqual([{ target: 'Later reading', note: later }]);
    expect((await links.backlinks(a, (await bookmarks.getNote(later))!)).map((link) => link.note.id)).toEqual([source]);

    await bookmarks.deleteNote(later);
    await links.removeNote(later);
    expect(await outgoing(source)).toEqual([{ target: 'Later reading', note: null }]);
  });

  it("follows a note's edits, ignores a stale image, and drops a deleted note's links from its targets", async () => {
    const a = await user();
    const target = await save(a, 'https://example.com/t', 'Target');
    const source = await save(a, 'https://example.com/s', 'Source', 'About [[Target]].');
    const stale = (await bookmarks.getNote(source))!;
    const renamed = await bookmarks.editNote(
      source,
      (note) => ({ title: 'Source renamed', comment: note.comment ?? null, tags: note.tags }),
      new Date().toISOString(),
    );
    expect(await links.syncNote(renamed!)).toBe('written');
    expect(await links.syncNote(stale)).toBe('moved-on'); // the note moved on: its old name is not written back
    const targetNote = (await bookmarks.getNote(target))!;
    expect((await links.backlinks(a, targetNote)).map((link) => link.note.id)).toEqual([source]);

    await bookmarks.deleteNote(source);
    await links.removeNote(source);
    expect(await links.backlinks(a, targetNote)).toEqual([]);
  });
});
