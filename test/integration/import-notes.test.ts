import { expect, it } from 'vitest';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { DynamoImportStore } from '../../functions/adapters/dynamo/import-store';
import { readExport } from '../../functions/core/import/detect';
import { importTable } from '../support/import-table';
import { importerOver } from '../support/save-ports';

/**
 * Notes without a bookmark, against DynamoDB Local: Readwise highlights of books no document of the
 * import matches become one note per book, named after the user and the book, so the same file
 * again, a run cut short and run again, and a later file's highlights of the same book find that
 * note (new highlights appended, none twice). The note cap holds, nothing half-written. The JSON
 * export carries them, and imports into another user as they were.
 */

const t = importTable();
const { user, exportOf } = t;

const importer = (bookmarks: (backlog: { importId: string; since: string }) => DynamoBookmarkStore) =>
  importerOver(new DynamoImportStore(t.table.doc, t.table.tableName), bookmarks);
const backlogStore = (backlog: { importId: string; since: string }) =>
  new DynamoBookmarkStore(t.table.doc, t.table.tableName, backlog);
const importText = (userId: string, name: string, text: string) =>
  importer(backlogStore)(userId, readExport([{ name, bytes: new TextEncoder().encode(text) }]));

const HEADER =
  'Highlight,Book Title,Book Author,Amazon Book ID,Note,Color,Tags,Location Type,Location,Highlighted at,Document tags';
const highlights = [
  HEADER,
  '"Ink dries slowly.",The Printed Book,B. Author,,"as on page 3",blue,print,page,40,2024-12-02 10:00:00+00:00,',
  '"From a paper book",The Printed Book,B. Author,,,blue,,page,12,2024-12-01 09:00:00+00:00,',
  '"Ein Satz.",Büchertage,C. Autorin,,,yellow,lesen,location,7,2024-11-01 08:00:00+00:00,',
].join('\r\n');

it('makes one note per unmatched book, without a bookmark; again changes nothing; a later file’s highlights of the book join its note once', async () => {
  const [alice, bob] = [await user(), await user()];
  const report = await importText(alice, 'readwise-highlights.csv', highlights);
  expect(report).toMatchObject({
    format: 'readwise',
    imported: 0,
    merged: 0,
    notes: 2,
    highlights: 3,
    skipped: [],
    notes_without_bookmark: [
      { row: 1, title: 'The Printed Book', highlights: 2 },
      { row: 3, title: 'Büchertage', highlights: 1 },
    ],
    enrichment_waiting: 0,
  });
  const notes = (await t.store.listNotes(alice, {}, { limit: 10 })).items;
  expect(notes.map((note) => [note.title, note.bookmarkId, note.url]).sort()).toEqual([
    ['Büchertage', null, null],
    ['The Printed Book', null, null],
  ]);
  expect((await t.store.listBookmarks(alice, {}, { limit: 10 })).items).toEqual([]);
  expect((await t.accounts.getUser(alice))!.noteCount).toBe(2);
  const book = notes.find((note) => note.title === 'The Printed Book')!;
  expect(book.body).toBe('By B. Author\n\n> From a paper book\n\n> Ink dries slowly.\n\nas on page 3');
  expect(await t.store.tagCounts(alice)).toEqual(
    new Map([
      ['print', 1],
      ['lesen', 1],
    ]),
  );
  const before = await exportOf(alice);

  // The same file again: nothing new.
  expect(await importText(alice, 'readwise-highlights.csv', highlights)).toMatchObject({
    notes: 0,
    merged: 2,
    highlights: 0,
  });
  expect(await exportOf(alice)).toEqual(before);
  expect((await t.accounts.getUser(alice))!.noteCount).toBe(2);

  // A later export: one highlight the note has, one it has not, the title written otherwise.
  const later = [
    HEADER,
    '"From a paper book",the printed  book,B. Author,,,blue,,page,12,2024-12-01 09:00:00+00:00,',
    '"A new passage.",THE PRINTED BOOK,B. Author,,,blue,margins,page,90,2025-01-05 10:00:00+00:00,',
  ].join('\n');
  expect(await importText(alice, 'readwise-later.csv', later)).toMatchObject({ notes: 0, merged: 1, highlights: 1 });
  const grown = (await t.store.getNote(book.id))!;
  expect(grown.body).toBe(`${book.body}\n\n> A new passage.`);
  expect(grown.tags).toEqual(['print', 'margins']);
  expect((await t.store.noteHighlights(book.id)).map((highlight) => [highlight.quote, highlight.saved])).toEqual([
    ['From a paper book', '2024-12-01T09:00:00.000+00:00'],
    ['Ink dries slowly.', '2024-12-02T10:00:00.000+00:00'],
    ['A new passage.', '2025-01-05T10:00:00.000+00:00'],
  ]);
  expect((await t.accounts.getUser(alice))!.noteCount).toBe(2);

  // Bob's import of the same file makes his own notes; Alice's stay hers.
  await importText(bob, 'readwise-highlights.csv', highlights);
  const bobs = (await t.store.listNotes(bob, {}, { limit: 10 })).items;
  expect(bobs).toHaveLength(2);
  expect(bobs.some((note) => notes.some((own) => own.id === note.id))).toBe(false);
  expect((await t.store.getNote(book.id))!.body).toBe(grown.body);
}, 120_000);

it('round-trips notes without a bookmark through the JSON export into another user, field by field', async () => {
  const [source, copy] = [await user(), await user()];
  await importText(source, 'readwise-highlights.csv', highlights);
  const exported = await exportOf(source);
  expect(exported.notes).toHaveLength(2);
  const json = JSON.stringify({ user_id: source, ...exported });
  expect(await importText(copy, 'export.json', json)).toMatchObject({ format: 'gleaner', notes: 2, highlights: 3 });
  expect(await exportOf(copy)).toEqual(exported);
  // The export imported again changes nothing.
  expect(await importText(copy, 'export.json', json)).toMatchObject({ notes: 0, merged: 2, highlights: 0 });
  expect(await exportOf(copy)).toEqual(exported);
});

it('holds the note cap: the book past it is left out whole, and a run after the cap is raised adds it', async () => {
  const alice = await user(1);
  expect(await importText(alice, 'readwise-highlights.csv', highlights)).toMatchObject({
    notes: 1,
    over_cap: 1,
    note_cap: 1,
  });
  const [kept] = (await t.store.listNotes(alice, {}, { limit: 10 })).items;
  expect((await t.accounts.getUser(alice))!.noteCount).toBe(1);
  // Nothing of the refused note: no tag entry, no highlight.
  expect([...(await t.store.tagCounts(alice)).keys()]).toEqual(kept!.tags);
  expect((await exportOf(alice)).notes.flatMap((note) => note.highlights)).toHaveLength(
    (await t.store.noteHighlights(kept!.id)).length,
  );
  await t.accounts.updatePlan(alice, { plan: 'free', noteCap: 10 });
  expect(await importText(alice, 'readwise-highlights.csv', highlights)).toMatchObject({ notes: 1, merged: 1 });
  expect((await t.accounts.getUser(alice))!.noteCount).toBe(2);
});

it('writes nothing twice when a run dies after a book’s note was written and runs again', async () => {
  const alice = await user();
  let crash = true;
  const dying = (backlog: { importId: string; since: string }) => {
    const bookmarks = backlogStore(backlog);
    const createNote = bookmarks.createNote.bind(bookmarks);
    bookmarks.createNote = async (...args) => {
      const outcome = await createNote(...args);
      if (crash) throw new Error('the process died');
      return outcome;
    };
    return bookmarks;
  };
  const parsed = readExport([{ name: 'readwise-highlights.csv', bytes: new TextEncoder().encode(highlights) }]);
  await expect(importer(dying)(alice, parsed)).rejects.toThrow('the process died');
  const [failed] = await new DynamoImportStore(t.table.doc, t.table.tableName).listImports(alice, 1);
  expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining('the process died') });
  crash = false;
  // The account is free again, and the run finds what the first one wrote.
  const rerun = await importer(dying)(alice, parsed);
  expect(rerun.notes + rerun.merged).toBe(2);
  expect((await t.accounts.getUser(alice))!.noteCount).toBe(2);
  expect((await exportOf(alice)).notes.flatMap((note) => note.highlights)).toHaveLength(3);
});
