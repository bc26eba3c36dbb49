import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { readExport } from '../../functions/core/import/detect';
import { renderNetscapeBookmarks } from '../../functions/core/workspace/netscape-bookmarks';
import { InMemoryBookmarkStore } from '../support/in-memory-bookmark-store';
import { InMemoryImportStore } from '../support/in-memory-import-store';
import { importerOver, manyLinks, pocketZip } from '../support/save-ports';

/**
 * A large bookmark file through the import (its chunks run here, as `gleaner import` runs them) and
 * the save core, over the store ports kept in memory.
 * The DynamoDB store's side of an import (merges, the note cap, re-runs) is in
 * test/integration/import-export.test.ts; how fast DynamoDB Local takes 5,000 links is `npm run bench`'s.
 */
it('imports a 5,000-link file in one run, each link once, with its tags', async () => {
  const store = new InMemoryBookmarkStore(10_000);
  const userId = randomUUID();
  const entries = manyLinks(5000);
  const progress: number[] = [];
  const html = new TextEncoder().encode(renderNetscapeBookmarks(entries));
  const report = await importerOver(new InMemoryImportStore(), () => store)(
    userId,
    readExport([{ name: 'bookmarks.html', bytes: html }]),
    (done) => progress.push(done),
  );
  expect(report).toEqual({
    format: 'netscape',
    rows: 5000,
    imported: 5000,
    merged: 0,
    notes: 0,
    highlights: 0,
    articles: 0,
    skipped: [],
    notes_without_bookmark: [],
    over_cap: 0,
    note_cap: null,
    notices: [],
    enrichment_waiting: 5000,
  });
  expect(store.notes.size).toBe(5000);
  expect(new Set([...store.bookmarks.values()].map((bookmark) => bookmark.url)).size).toBe(5000);
  expect([...store.notes.values()].find((note) => note.title === 'Link 4321')?.tags).toEqual(['t2x']);
  expect(progress.at(-1)).toBe(5000);
});

it('imports a 25,000-row Pocket zip of three parts in one run, archived rows archived', async () => {
  const store = new InMemoryBookmarkStore(30_000);
  const report = await importerOver(new InMemoryImportStore(), () => store)(
    randomUUID(),
    readExport([{ name: 'pocket.zip', bytes: pocketZip(25_000) }]),
  );
  expect(report).toMatchObject({ format: 'pocket', rows: 25_000, imported: 25_000, skipped: [] });
  expect(store.notes.size).toBe(25_000);
  const archived = [...store.notes.values()].filter((note) => note.archivedAt);
  expect(archived).toHaveLength(2_500);
  expect([...store.notes.values()].find((note) => note.title === 'Pocket 20001')?.tags).toEqual(['t2x', 'read']);
});
