import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { DynamoFeedStore } from '../../functions/adapters/dynamo/feed-store';
import { importedArticles } from '../../functions/core/import/articles';
import { readExport, type UploadedFile } from '../../functions/core/import/detect';
import { importExport } from '../../functions/core/import/import';
import { newUser } from '../../functions/core/workspace/accounts';
import { type ExportedBookmark, exportWorkspace } from '../../functions/core/workspace/export';
import { MemoryArticleStore } from '../support/article-ports';
import { createTestTable } from '../support/dynamo';
import { quietSavePorts } from '../support/save-ports';

/**
 * Every export format and era of test/fixtures/import, imported into a fresh user through the save
 * core against DynamoDB Local: the report (every skipped row with its reason) and the JSON export,
 * field by field, are the fixture's expected.json. The same export again (as a zip this time)
 * changes nothing, and a second user importing it gets the same workspace while the first keeps hers.
 */

const FIXTURES = new URL('../fixtures/import/', import.meta.url).pathname;
const EXPECTED = 'expected.json';

let table: Awaited<ReturnType<typeof createTestTable>>;
let accounts: DynamoAccountStore;
let store: DynamoBookmarkStore;
let feeds: DynamoFeedStore;

beforeAll(async () => {
  table = await createTestTable();
  accounts = new DynamoAccountStore(table.doc, table.tableName);
  store = new DynamoBookmarkStore(table.doc, table.tableName);
  feeds = new DynamoFeedStore(table.doc, table.tableName);
});
afterAll(() => table.client.destroy());

async function user(): Promise<string> {
  const created = newUser({ id: randomUUID(), name: 'Importer', now: new Date() });
  await accounts.createUser(created);
  return created.id;
}

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
function comparable(exported: readonly ExportedBookmark[], importStarted: number) {
  const time = (iso: string) => (Date.parse(iso) >= importStarted ? '(import time)' : iso);
  const maybe = (iso: string | null) => (iso === null ? null : time(iso));
  // In URL order: rows the export gave no time were saved side by side, in no set order.
  return [...exported]
    .sort((a, b) => a.url.localeCompare(b.url))
    .map((bookmark) => ({
      ...bookmark,
      created: time(bookmark.created),
      updated: time(bookmark.updated),
      highlights: bookmark.highlights.map((highlight) => ({ ...highlight, saved: time(highlight.saved) })),
      archived_at: maybe(bookmark.archived_at),
      starred_at: maybe(bookmark.starred_at),
    }));
}

const exportOf = (userId: string) => exportWorkspace({ notes: store, highlights: feeds }, userId);
/** The save core's ports, and an article store the readable copies an export carries are kept in. */
const importPorts = (articles: MemoryArticleStore) => ({
  ...quietSavePorts(store),
  articles: importedArticles({ store: articles, bookmarks: store, now: () => new Date() }),
});
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
    const report = await importExport(importPorts(articles), first, readExport(looseFiles(fixture)));
    const workspace = comparable(await exportOf(first), started);
    const kept = await keptTexts(articles);
    await expect(`${JSON.stringify({ report, export: workspace, articles: kept }, null, 2)}\n`).toMatchFileSnapshot(
      join(FIXTURES, fixture, EXPECTED),
    );

    const again = await importExport(importPorts(articles), first, readExport(zipped(fixture)));
    expect(again).toEqual({
      ...report,
      imported: 0,
      merged: report.imported + report.merged,
      highlights: 0,
      articles: 0,
    });
    expect(comparable(await exportOf(first), started)).toEqual(workspace);
    expect(await keptTexts(articles)).toEqual(kept);

    await importExport(importPorts(new MemoryArticleStore()), second, readExport(zipped(fixture)));
    expect(comparable(await exportOf(second), started)).toEqual(workspace);
    expect(comparable(await exportOf(first), started)).toEqual(workspace);
  });
});
