import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { DynamoFeedStore } from '../../functions/adapters/dynamo/feed-store';
import { DynamoImportStore } from '../../functions/adapters/dynamo/import-store';
import { readExport } from '../../functions/core/import/detect';
import { newUser } from '../../functions/core/workspace/accounts';
import { bookmarkFileEntries, exportWorkspace, parseWorkspaceExport } from '../../functions/core/workspace/export';
import { type BookmarkFileEntry, renderNetscapeBookmarks } from '../../functions/core/workspace/netscape-bookmarks';
import { createTestTable } from '../support/dynamo';
import { importerOver, quietSavePorts } from '../support/save-ports';

/** `gleaner import` (the import worker's chunks, run here) and `gleaner export` through the save core, against DynamoDB Local. */

let table: Awaited<ReturnType<typeof createTestTable>>;
let accounts: DynamoAccountStore;
let store: DynamoBookmarkStore;
let feeds: DynamoFeedStore;
const ports = () => quietSavePorts(store);
const importer = () =>
  importerOver(
    new DynamoImportStore(table.doc, table.tableName),
    (backlog) => new DynamoBookmarkStore(table.doc, table.tableName, backlog),
  );
/** A file's text imported as an upload named `name`. */
const importText = (userId: string, name: string, text: string) =>
  importer()(userId, readExport([{ name, bytes: new TextEncoder().encode(text) }]));
/** Entries as a parser gives them, imported. */
const importEntries = (userId: string, entries: readonly BookmarkFileEntry[]) =>
  importer()(userId, {
    format: 'netscape',
    items: entries.map((entry, index) => ({ ...entry, file: null, row: index + 1 })),
    books: [],
    skipped: [],
    notices: [],
  });

beforeAll(async () => {
  table = await createTestTable();
  accounts = new DynamoAccountStore(table.doc, table.tableName);
  store = new DynamoBookmarkStore(table.doc, table.tableName);
  feeds = new DynamoFeedStore(table.doc, table.tableName);
});
const exportOf = async (userId: string) =>
  (await exportWorkspace({ notes: store, highlights: feeds }, userId)).bookmarks;
afterAll(() => table.client.destroy());

async function user(noteCap?: number): Promise<string> {
  const created = newUser({ id: randomUUID(), name: 'Importer', noteCap, now: new Date() });
  await accounts.createUser(created);
  return created.id;
}

const file = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<DL><p>
  <DT><H3>Work Stuff</H3>
  <DL><p>
    <DT><A HREF="https://Example.com/a?utm_source=x" ADD_DATE="1500000000" TAGS="aws">A</A>
    <DT><A HREF="https://example.com/b" ADD_DATE="1500000100">B</A>
  </DL><p>
  <DT><A HREF="https://example.com/a" TAGS="later">A again</A>
  <DT><A HREF="place:sort=8">Firefox smart folder</A>
</DL><p>`;

describe('import and export', () => {
  it('imports links through the save core: normalised, duplicates merged, folders and TAGS= as tags, ADD_DATE kept; a re-run creates nothing', async () => {
    const userId = await user();
    expect(await importText(userId, 'bookmarks.html', file)).toEqual({
      format: 'netscape',
      rows: 4,
      imported: 2,
      merged: 0,
      notes: 0,
      highlights: 0,
      articles: 0,
      skipped: [
        { row: 3, reason: 'duplicate of row 1 (merged into it)' },
        { row: 4, reason: 'not an http(s) URL (place:)' },
      ],
      notes_without_bookmark: [],
      over_cap: 0,
      note_cap: null,
      notices: [],
      // Their pages wait in the import backlog, none fetched yet.
      enrichment_waiting: 2,
    });
    const exported = await exportOf(userId);
    expect(exported.map(({ url, title, created, tags }) => ({ url, title, created, tags }))).toEqual([
      {
        url: 'https://example.com/a?utm_source=x',
        title: 'A',
        created: expect.stringMatching(/^2017-07-14T02:40:00/),
        tags: ['work-stuff', 'aws', 'later'],
      },
      {
        url: 'https://example.com/b',
        title: 'B',
        created: expect.stringMatching(/^2017-07-14T02:41:40/),
        tags: ['work-stuff'],
      },
    ]);
    expect(await importText(userId, 'bookmarks.html', file)).toMatchObject({ imported: 0, merged: 2 });
    expect((await accounts.getUser(userId))!.noteCount).toBe(2);
  });

  it('stops at the note cap with a report, and finishes when run again after the cap is raised', async () => {
    const userId = await user(3);
    const links = Array.from({ length: 10 }, (_, i) => ({
      url: `https://cap.example/${i}`,
      title: `${i}`,
      tags: [],
      added: null,
      description: null,
    }));
    expect(await importEntries(userId, links)).toMatchObject({
      rows: 10,
      imported: 3,
      over_cap: 7,
      note_cap: 3,
    });
    await accounts.updatePlan(userId, { plan: 'free', noteCap: 100 });
    expect(await importEntries(userId, links)).toMatchObject({ imported: 7, merged: 3, over_cap: 0 });
  });

  it('exports a workspace that imports into a fresh user as the same workspace, notes and highlights included, in either format', async () => {
    const source = await user();
    await importText(source, 'bookmarks.html', file);
    // Highlights and comments appended by later saves, and a description with markup-looking text.
    const { saveBookmark } = await import('../../functions/core/save/save-bookmark');
    const save = (url: string, selection: string | null, comment: string | null, description: string | null = null) =>
      saveBookmark(ports(), {
        userId: source,
        request: { url: new URL(url), title: null, selection, comment, description, append: true },
        siteIcon: null,
        idempotency: null,
      });
    await save('https://example.com/b', 'A quote\nover two lines & <b>markup</b>', 'Worth it #keep');
    await save('https://example.com/b', 'A second highlight', null);
    await save('https://example.com/c', 'Quoted', 'First note #new', 'A page about **things** < 5');
    // Later changes happen later: the note's last update must survive the round trip, not be the import's time.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await save('https://example.com/c', 'A later highlight', null);
    const original = await exportOf(source);
    expect(original.find((bookmark) => bookmark.url === 'https://example.com/b')?.note).toContain(
      '> A second highlight',
    );
    const highlightsOf = (url: string) => original.find((bookmark) => bookmark.url === url)!.highlights;
    expect(highlightsOf('https://example.com/c').map((highlight) => highlight.quote)).toEqual([
      'Quoted',
      'A later highlight',
    ]);
    // Saved more than a second apart: a round trip that gave every highlight one time would be caught.
    const [first, later] = highlightsOf('https://example.com/c').map((highlight) => Date.parse(highlight.saved));
    expect(later! - first!).toBeGreaterThan(1000);

    // A bookmark file dates links to the second (ADD_DATE); JSON keeps the exact times.
    const toSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
    const comparable = (list: typeof original, precision: (iso: string) => number | string) =>
      list.map(({ url, title, created, updated, tags, note, highlights }) => ({
        url,
        title,
        created: precision(created),
        updated: precision(updated),
        tags: [...tags].sort(),
        note,
        // Every highlight's text, place and time.
        highlights: highlights.map(({ quote, comment, saved }) => ({ quote, comment, saved: precision(saved) })),
      }));

    const fromFile = await user();
    const html = renderNetscapeBookmarks(bookmarkFileEntries(original));
    await importText(fromFile, 'bookmarks.html', html);
    expect(comparable(await exportOf(fromFile), toSeconds)).toEqual(comparable(original, toSeconds));

    const fromJson = await user();
    const json = JSON.stringify({ user_id: source, bookmarks: original });
    await importText(fromJson, 'export.json', json);
    expect(comparable(await exportOf(fromJson), (iso) => iso)).toEqual(comparable(original, (iso) => iso));

    // Importing the same export again creates nothing and repeats no highlight.
    expect(await importText(fromJson, 'export.json', json)).toMatchObject({
      imported: 0,
      merged: original.length,
    });
    expect(comparable(await exportOf(fromJson), (iso) => iso)).toEqual(comparable(original, (iso) => iso));
  });

  it('round-trips reading states through the JSON export, each with its time, listed as archived and starred', async () => {
    const source = await user();
    await importText(source, 'bookmarks.html', file);
    const [a, b] = (await store.listNotes(source, {}, { limit: 10 })).items.sort((x, y) =>
      x.url!.localeCompare(y.url!),
    );
    const setState = (noteId: string, state: { archivedAt?: string | null; starredAt?: string | null }) =>
      store.editNote(
        noteId,
        (note) => ({ title: note.title, comment: note.comment ?? null, tags: note.tags, ...state }),
        '',
      );
    await setState(a!.id, { archivedAt: '2024-03-01T10:00:00.000+00:00', starredAt: '2024-03-02T10:00:00.000+00:00' });
    await setState(b!.id, { starredAt: '2024-04-01T10:00:00.000+00:00' });
    const original = await exportOf(source);
    const states = (list: typeof original) =>
      list.map(({ url, archived, archived_at, starred, starred_at }) => ({
        url,
        archived,
        archived_at,
        starred,
        starred_at,
      }));
    expect(states(original)).toEqual([
      {
        url: a!.url,
        archived: true,
        archived_at: '2024-03-01T10:00:00.000+00:00',
        starred: true,
        starred_at: '2024-03-02T10:00:00.000+00:00',
      },
      { url: b!.url, archived: false, archived_at: null, starred: true, starred_at: '2024-04-01T10:00:00.000+00:00' },
    ]);
    // A state change leaves the note's update time (what feeds and the export date it by) as it was.
    expect(original.map((bookmark) => bookmark.updated)).toEqual([a!.updated, b!.updated]);

    const restored = await user();
    await importText(restored, 'export.json', JSON.stringify({ bookmarks: original }));
    expect(states(await exportOf(restored))).toEqual(states(original));
    const listed = async (filter: { archived?: boolean; starred?: boolean }) =>
      (await store.listNotes(restored, filter, { limit: 10 })).items.map((note) => note.url);
    expect(await listed({ archived: true })).toEqual([a!.url]);
    expect(await listed({ archived: false })).toEqual([b!.url]);
    expect(await listed({ starred: true })).toEqual([b!.url, a!.url]);

    // An export from before reading states lands in the inbox; a state of the wrong type is named.
    const older = original.map(({ archived, archived_at, starred, starred_at, ...rest }) => rest);
    const fromOlder = await user();
    await importText(fromOlder, 'export.json', JSON.stringify({ bookmarks: older }));
    expect((await exportOf(fromOlder)).every((bookmark) => !bookmark.archived && !bookmark.starred)).toBe(true);
    const wrong = JSON.stringify({ bookmarks: [{ ...original[0], archived: 'yes' }] });
    expect(() => parseWorkspaceExport(wrong)).toThrow(/bookmarks\[0\]\.archived/);
  });

  it('names what is wrong with a JSON file that is not an export', () => {
    expect(() => parseWorkspaceExport('{"bookmarks": [{"url": "https://example.com/", "title": "t"}]}')).toThrow(
      /bookmarks\[0\]\.created/,
    );
    expect(() => parseWorkspaceExport('{"links": []}')).toThrow(/no "bookmarks" list/);
    expect(() => parseWorkspaceExport('{oops')).toThrow(/not JSON/);
  });
});

describe('highlights made while reading', () => {
  it('keep their TextQuoteSelector through an export and an import', async () => {
    const selector = {
      type: 'TextQuoteSelector',
      exact: 'The tide came in.',
      prefix: 'mean high water rising slowly.\n\n',
      suffix: ' By evening the flats',
    };
    const bookmark = {
      url: 'https://example.com/tides',
      title: 'Tides',
      created: '2024-05-01T10:00:00.000+00:00',
      updated: '2024-05-01T10:05:00.000+00:00',
      tags: [],
      note: 'Source: [Tides](https://example.com/tides)\n\n> The tide came in.\n\n> Mudflats',
      highlights: [
        { quote: 'The tide came in.', comment: null, saved: '2024-05-01T10:01:00.000+00:00', selector },
        { quote: 'Mudflats', comment: null, saved: '2024-05-01T10:02:00.000+00:00' },
      ],
    };
    const first = await user();
    await importText(first, 'export.json', JSON.stringify({ bookmarks: [bookmark] }));
    const [exported] = await exportOf(first);
    expect(exported!.highlights).toEqual(bookmark.highlights);
    const second = await user();
    await importText(second, 'export.json', JSON.stringify({ bookmarks: await exportOf(first) }));
    expect((await exportOf(second))[0]!.highlights).toEqual(bookmark.highlights);
    // A selector that is not one is named, as any other field of the wrong type.
    const wrong = { ...bookmark, highlights: [{ ...bookmark.highlights[0], selector: { prefix: 3 } }] };
    expect(() => parseWorkspaceExport(JSON.stringify({ bookmarks: [wrong] }))).toThrow(/bookmarks\[0\]\.highlights/);
  });
});
