import { randomUUID } from 'node:crypto';
import { unzipSync } from 'fflate';
import { expect, it } from 'vitest';
import { readExport } from '../../functions/core/import/detect';
import { prepareImport } from '../../functions/core/import/import';
import { NOTE_BODY_MAX_BYTES } from '../../functions/core/save/note-body';
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

/*
 * Three parts prove the parts are read as one file; their size does not matter to the import, so the
 * parts are small here. How fast a Pocket zip of 10,000-row parts imports (50,000 rows) is `npm run
 * bench`'s row, through the API, the import worker and DynamoDB Local.
 */
it('imports a Pocket zip of three parts in one run, archived rows archived', async () => {
  const store = new InMemoryBookmarkStore(3_000);
  const zip = pocketZip(2_500, 1_000);
  expect(Object.keys(unzipSync(zip))).toEqual(['part_000000.csv', 'part_000001.csv', 'part_000002.csv']);
  const report = await importerOver(new InMemoryImportStore(), () => store)(
    randomUUID(),
    readExport([{ name: 'pocket.zip', bytes: zip }]),
  );
  expect(report).toMatchObject({ format: 'pocket', rows: 2_500, imported: 2_500, skipped: [] });
  expect(store.notes.size).toBe(2_500);
  const archived = [...store.notes.values()].filter((note) => note.archivedAt);
  expect(archived).toHaveLength(250);
  // A row of the last part, whole.
  expect([...store.notes.values()].find((note) => note.title === 'Pocket 2001')).toMatchObject({
    tags: ['t6x', 'read'],
  });
  expect([...store.notes.values()].find((note) => note.title === 'Pocket 2001')?.archivedAt).toBeFalsy();
  expect([...store.notes.values()].find((note) => note.title === 'Pocket 2010')?.archivedAt).toEqual(
    expect.any(String),
  );
});

it('keeps as many of a book’s highlights as its note holds, so a note too big to store is never written', () => {
  const quote = (i: number) => `Highlight ${i} ${'x'.repeat(300)}`;
  const csv = [
    'Highlight,Book Title,Book Author,Amazon Book ID,Note,Color,Tags,Location Type,Location,Highlighted at,Document tags',
    ...Array.from(
      { length: 2_000 },
      (_, i) => `${quote(i)},A Long Book,,,,,,,,2024-01-01 00:00:${String(i % 60).padStart(2, '0')}+00:00,`,
    ),
  ].join('\n');
  const prepared = prepareImport(
    readExport([{ name: 'readwise-highlights.csv', bytes: new TextEncoder().encode(csv) }]),
    new Date(),
  );
  const [note] = prepared.notes;
  expect(new TextEncoder().encode(note!.body).length).toBeLessThanOrEqual(NOTE_BODY_MAX_BYTES);
  expect(note!.highlights.length).toBeGreaterThan(500);
  expect(note!.highlights.length).toBeLessThan(2_000);
  expect(note!.body.endsWith(`> ${note!.highlights.at(-1)!.quote}`)).toBe(true);
});
