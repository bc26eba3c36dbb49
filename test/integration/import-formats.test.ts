import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { DynamoImportStore } from '../../functions/adapters/dynamo/import-store';
import { readExport, type UploadedFile } from '../../functions/core/import/detect';
import type { ExportedNote } from '../../functions/core/workspace/export';
import { MemoryArticleStore } from '../support/article-ports';
import { importTable } from '../support/import-table';
import { importerOver } from '../support/save-ports';

/**
 * Every export format and era of test/fixtures/import, imported into a fresh user as `gleaner
 * import` imports it (the import worker's chunks, run here) against DynamoDB Local: the report
 * (every skipped row with its reason, every note without a bookmark) and the JSON export (its
 * bookmarks, and its notes without a bookmark), field by field, are the fixture's expected.json. The same export again (as a zip this time)
 * changes nothing, and a second user importing it gets the same workspace while the first keeps hers.
 */

const FIXTURES = new URL('../fixtures/import/', import.meta.url).pathname;
const EXPECTED = 'expected.json';

const t = importTable();
const user = t.user;

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) =>
    statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)],
  );

/** The fixture's files as uploaded loose (their paths inside the folder as names). */
function looseFiles(fixture: string): UploadedFile[] {
  const dir = join(FIXTURES, fixture);
  return walk(dir)
    .filter((path) => !path.endsWith(EXPECTED))
    .map((path) => ({ name: relative(dir, path), bytes: new Uint8Array(readFileSync(path)) }));
}

/** The same files in one zip, as the services hand them out. */
const zipped = (fixture: string): UploadedFile[] => [
  {
    name: `${fixture}.zip`,
    bytes: zipSync(Object.fromEntries(looseFiles(fixture).map((file) => [file.name, file.bytes]))),
  },
];

/** An export as compared: times the export did not give (the import's own) named as such. */
function comparable(
  exported: { bookmarks: readonly (ExportedNote & { url: string })[]; notes: readonly ExportedNote[] },
  importStarted: number,
) {
  const time = (iso: string) => (Date.parse(iso) >= importStarted ? '(import time)' : iso);
  const maybe = (iso: string | null) => (iso === null ? null : time(iso));
  const timed = <N extends ExportedNote>(note: N) => ({
    ...note,
    created: time(note.created),
    updated: time(note.updated),
    highlights: note.highlights.map((highlight) => ({ ...highlight, saved: time(highlight.saved) })),
    archived_at: maybe(note.archived_at),
    starred_at: maybe(note.starred_at),
  });
  // In URL (title) order: rows the export gave no time were saved side by side, in no set order.
  return {
    export: [...exported.bookmarks].sort((a, b) => a.url.localeCompare(b.url)).map(timed),
    notes: [...exported.notes].sort((a, b) => a.title.localeCompare(b.title)).map(timed),
  };
}

const exportOf = t.exportOf;
/** `gleaner import`'s path, with an article store the readable copies an export carries are kept in. */
const importInto = (articles: MemoryArticleStore) =>
  importerOver(
    new DynamoImportStore(t.table.doc, t.table.tableName),
    (backlog) => new DynamoBookmarkStore(t.table.doc, t.table.tableName, backlog),
    { store: articles, bookmarks: t.store },
  );
/** The texts of the articles kept. */
const keptTexts = async (articles: MemoryArticleStore) =>
  Promise.all(
    [...articles.objects.keys()]
      .filter((key) => key.endsWith('/content.json'))
      .map(async (key) => (await articles.getContent(key.split('/')[0]!))!.text),
  );
const fixtures = readdirSync(FIXTURES).filter((name) => statSync(join(FIXTURES, name)).isDirectory());

describe.each(fixtures)('the %s fixture', (fixture) => {
  it('imports as expected.json says, field by field; again changes nothing; a second user gets the same', async () => {
    const [first, second] = [await user(), await user()];
    const started = Date.now();
    const articles = new MemoryArticleStore();
    const report = await importInto(articles)(first, readExport(looseFiles(fixture)));
    const workspace = comparable(await exportOf(first), started);
    const kept = await keptTexts(articles);
    await expect(`${JSON.stringify({ report, ...workspace, articles: kept }, null, 2)}\n`).toMatchFileSnapshot(
      join(FIXTURES, fixture, EXPECTED),
    );

    const again = await importInto(articles)(first, readExport(zipped(fixture)));
    expect(again).toEqual({
      ...report,
      imported: 0,
      merged: report.imported + report.merged + report.notes,
      notes: 0,
      highlights: 0,
      articles: 0,
      // Nothing new waits for its page (no sweep ran: the first import's pages still wait, in its count).
      enrichment_waiting: 0,
    });
    expect(comparable(await exportOf(first), started)).toEqual(workspace);
    expect(await keptTexts(articles)).toEqual(kept);

    await importInto(new MemoryArticleStore())(second, readExport(zipped(fixture)));
    expect(comparable(await exportOf(second), started)).toEqual(workspace);
    expect(comparable(await exportOf(first), started)).toEqual(workspace);
  });
});
