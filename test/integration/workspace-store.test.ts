import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import type { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import type { DynamoFeedStore } from '../../functions/adapters/dynamo/feed-store';
import { queryFilteredIndexPage } from '../../functions/adapters/dynamo/index-page';
import { keys } from '../../functions/adapters/dynamo/keys';
import { newFeedRecord } from '../../functions/core/feed/settings';
import type { Bookmark, Note } from '../../functions/core/model';
import { saveBookmark } from '../../functions/core/save/save-bookmark';
import { isoTimestamp } from '../../functions/core/text/text';
import { newUser } from '../../functions/core/workspace/accounts';
import { InvalidCursorError } from '../../functions/core/workspace/listing';
import { createTestStores, type createTestTable } from '../support/dynamo';
import { quietSavePorts } from '../support/save-ports';

/** Listing and deleting a user's notes and bookmarks against DynamoDB Local. */

let table: Awaited<ReturnType<typeof createTestTable>>;
let accounts: DynamoAccountStore;
let store: DynamoBookmarkStore;
let feeds: DynamoFeedStore;

beforeAll(async () => {
  ({ table, accounts, bookmarks: store, feeds } = await createTestStores());
});
afterAll(() => table.client.destroy());

async function userWithCap(noteCap: number): Promise<string> {
  const user = newUser({ id: randomUUID(), name: 'U', noteCap, now: new Date() });
  await accounts.createUser(user);
  return user.id;
}

let clock = Date.parse('2026-01-01T00:00:00Z');
/** Saves a new page the way the save core does (bookmark, note, marker and counter in one transaction). */
async function save(userId: string, path: string, tags: string[] = []) {
  const now = isoTimestamp(new Date((clock += 1000)));
  const url = `https://example.com/${path}`;
  const bookmark: Bookmark = {
    id: randomUUID(),
    userId,
    noteId: randomUUID(),
    title: path,
    url,
    normalizedUrl: url,
    icon: null,
    created: now,
    updated: now,
  };
  const note: Note = {
    id: bookmark.noteId,
    userId,
    bookmarkId: bookmark.id,
    url,
    title: path,
    body: url,
    tags,
    lastHighlight: null,
    created: now,
    updated: now,
    version: 1,
  };
  const outcome = await store.createBookmark(bookmark, note, null, null);
  return { outcome, bookmark, note };
}

async function allNoteIds(userId: string, tag?: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listNotes(userId, tag === undefined ? {} : { tag }, { limit: 2, cursor });
    ids.push(...page.items.map((note) => note.id));
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return ids;
}

describe('listing a workspace', () => {
  it('pages through notes and bookmarks most recently updated first, with and without a tag', async () => {
    const userId = await userWithCap(100);
    const saved = [];
    for (let i = 0; i < 5; i++) saved.push(await save(userId, `list-${i}`, i % 2 === 0 ? ['even'] : ['odd']));
    expect(await allNoteIds(userId)).toEqual(saved.map((s) => s.note.id).reverse());
    expect(await allNoteIds(userId, 'even')).toEqual([saved[4]!, saved[2]!, saved[0]!].map((s) => s.note.id));

    // Appending to a note moves it to the front.
    await store.updateSavedNote(
      { bookmarkId: saved[1]!.bookmark.id, noteId: saved[1]!.note.id },
      (n) => ({ body: `${n.body}\n\n> more`, tags: n.tags, lastHighlight: 'more' }),
      isoTimestamp(new Date((clock += 1000))),
      null,
    );
    expect((await allNoteIds(userId))[0]).toBe(saved[1]!.note.id);

    const bookmarks = await store.listBookmarks(userId, { tag: 'odd' }, { limit: 10 });
    expect(bookmarks.items.map((b) => b.id)).toEqual([saved[1]!.bookmark.id, saved[3]!.bookmark.id]);
    expect(bookmarks.cursor).toBeNull();
  });

  it('pages a filtered list past entries it leaves out, a short page (even empty) going on with its cursor', async () => {
    const userId = await userWithCap(100);
    const saved = [];
    for (let i = 0; i < 12; i++) saved.push((await save(userId, `filtered-${i}`)).note);
    const wanted = new Set([saved[11]!.id, saved[10]!.id, saved[2]!.id]);
    const partition = keys.userNotesIndex(userId).gsi1pk;
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      // Two reads of at most three entries a page: the gap between notes 10 and 2 takes more than that.
      const page = await queryFilteredIndexPage(
        table.doc,
        table.tableName,
        partition,
        { limit: 2, cursor },
        async (entries) => entries.map((entry) => (wanted.has(entry.id as string) ? (entry.id as string) : null)),
        { reads: 2, size: 3 },
      );
      pages.push(page.items);
      cursor = page.cursor ?? undefined;
    } while (cursor);
    expect(pages.flat()).toEqual([saved[11]!.id, saved[10]!.id, saved[2]!.id]);
    expect(pages[0]).toEqual([saved[11]!.id, saved[10]!.id]);
    expect(pages.some((items) => items.length === 0)).toBe(true);
  });

  it('refuses a cursor it did not give out, or one of another list', async () => {
    const userId = await userWithCap(100);
    await save(userId, 'a');
    await save(userId, 'b');
    const first = await store.listNotes(userId, {}, { limit: 1 });
    expect(first.cursor).not.toBeNull();
    await expect(store.listNotes(await userWithCap(100), {}, { limit: 1, cursor: first.cursor! })).rejects.toThrow(
      InvalidCursorError,
    );
    await expect(store.listNotes(userId, {}, { limit: 1, cursor: 'not-a-cursor' })).rejects.toThrow(InvalidCursorError);
  });

  it('lists users newest first, the last page without a cursor, and changes a plan', async () => {
    const ids = [await userWithCap(1), await userWithCap(2)];
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await accounts.listUsers({ limit: 3, cursor });
      listed.push(...page.items.map((user) => user.id));
      cursor = page.cursor ?? undefined;
    } while (cursor);
    expect(listed.slice(0, 2)).toEqual([...ids].reverse());
    // A page that ends the list exactly gives no cursor to a page that would be empty.
    const exact = await accounts.listUsers({ limit: listed.length });
    expect(exact.items).toHaveLength(listed.length);
    expect(exact.cursor).toBeNull();
    expect(await accounts.updatePlan(ids[0]!, { plan: 'pro', noteCap: 5 })).toMatchObject({
      id: ids[0],
      plan: 'pro',
      noteCap: 5,
    });
    expect(await accounts.updatePlan(randomUUID(), { plan: 'pro', noteCap: 5 })).toBeNull();
  });
});

describe('deleting a note', () => {
  it('removes the note, its bookmark, marker and tag entries, and frees its place under the cap', async () => {
    const userId = await userWithCap(2);
    const first = await save(userId, 'one', ['shared']);
    await save(userId, 'two');
    expect((await save(userId, 'three')).outcome.kind).toBe('note-limit');
    const feed = newFeedRecord({
      id: randomUUID(),
      userId,
      settings: { title: 'F', tags: ['shared'], sharing: 'public' },
      now: new Date(),
    });
    expect((await feeds.matchingEntries(feed, 10)).map((entry) => entry.noteId)).toEqual([first.note.id]);

    expect(await store.deleteNote(first.note.id)).toMatchObject({ id: first.note.id });
    expect(await store.getNote(first.note.id)).toBeNull();
    expect(await store.getBookmark(first.bookmark.id)).toBeNull();
    expect(await feeds.matchingEntries(feed, 10)).toEqual([]);
    expect(await allNoteIds(userId, 'shared')).toEqual([]);
    expect((await accounts.getUser(userId))!.noteCount).toBe(1);
    expect(await store.deleteNote(first.note.id)).toBeNull();

    // The cap has room again, and the URL saves as new (its marker went with the bookmark).
    expect((await save(userId, 'one')).outcome.kind).toBe('created');
    expect((await accounts.getUser(userId))!.noteCount).toBe(2);
  });

  it('keeps the note counter exact under concurrent saves and deletes', async () => {
    const userId = await userWithCap(30);
    const existing = [];
    for (let i = 0; i < 20; i++) existing.push(await save(userId, `old-${i}`, ['t']));
    const outcomes = await Promise.all([
      ...existing.slice(0, 15).map((s) => store.deleteNote(s.note.id)),
      ...existing.slice(0, 5).map((s) => store.deleteNote(s.note.id)), // deleted twice at once: one wins
      ...Array.from({ length: 20 }, (_, i) => save(userId, `new-${i}`, ['t'])),
    ]);
    const created = outcomes.filter((o) => o && 'outcome' in o && o.outcome.kind === 'created').length;
    const remaining = await allNoteIds(userId);
    expect(remaining.length).toBe(5 + created);
    expect((await accounts.getUser(userId))!.noteCount).toBe(remaining.length);
    expect((await allNoteIds(userId, 't')).sort()).toEqual([...remaining].sort());
  });

  it('a save that finds the URL just before its note is deleted saves it anew', async () => {
    const userId = await userWithCap(10);
    const { note } = await save(userId, 'raced');
    // The note goes between the save finding the URL taken and appending to its note.
    const racing = Object.create(store) as DynamoBookmarkStore;
    racing.appendToNote = async (...args) => {
      await store.deleteNote(note.id);
      return store.appendToNote(...args);
    };
    const ports = quietSavePorts(racing);
    const request = {
      url: new URL('https://example.com/raced'),
      title: null,
      selection: 'again',
      comment: null,
      description: 'd',
      append: false,
    };
    const outcome = await saveBookmark(ports, { userId, request, siteIcon: null, idempotency: null });
    expect(outcome).toMatchObject({ kind: 'saved', isNewBookmark: true });
    expect((await allNoteIds(userId)).length).toBe(1);
    expect((await accounts.getUser(userId))!.noteCount).toBe(1);
  });
});
