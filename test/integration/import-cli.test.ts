import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { DynamoImportStore } from '../../functions/adapters/dynamo/import-store';
import { sweepOutbox } from '../../functions/core/enrich/outbox';
import { openImport } from '../../functions/core/import/job';
import { newUser } from '../../functions/core/workspace/accounts';
import { writeLocalState } from '../../local/state';
import { gleanerInProcess as gleaner } from '../support/cli';
import { createTestTable } from '../support/dynamo';
import { pocketZip } from '../support/save-ports';

/**
 * `gleaner import` against DynamoDB Local runs the import worker's own path: the import is recorded
 * as the account's (listed with its report, one at a time), and its new pages wait in the import
 * backlog, which the outbox's sweep hands to the page worker a bounded batch at a time, rather than
 * in the enrichment outbox, whose oldest request the OutboxOldestPending alarm watches.
 */

let table: Awaited<ReturnType<typeof createTestTable>>;
let dataDir: string;
let env: Record<string, string>;
beforeAll(async () => {
  table = await createTestTable();
  dataDir = mkdtempSync(join(tmpdir(), 'gleaner-import-cli-'));
  writeLocalState(dataDir, {
    pid: process.pid,
    baseUrl: 'http://localhost:1',
    dynamoEndpoint: table.endpoint,
    tableName: table.tableName,
  });
  env = { GLEANER_DATA_DIR: dataDir };
});
afterAll(() => {
  table.client.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

async function user(): Promise<string> {
  const created = newUser({ id: randomUUID(), name: 'Importer', now: new Date() });
  await new DynamoAccountStore(table.doc, table.tableName).createUser(created);
  return created.id;
}

it('imports through the import backlog, not the outbox: recorded as the account’s import, a sweep hands its pages on; again changes nothing', async () => {
  const [alice, bob] = [await user(), await user()];
  const rows = 250;
  const file = join(dataDir, 'pocket.zip');
  writeFileSync(file, pocketZip(rows));
  const bookmarks = new DynamoBookmarkStore(table.doc, table.tableName);
  const imports = new DynamoImportStore(table.doc, table.tableName);

  const run = await gleaner(['import', '--user', alice, file, '--json'], env);
  expect(run.code).toBe(0);
  const report = JSON.parse(run.stdout);
  expect(report).toMatchObject({
    user_id: alice,
    import_id: expect.any(String),
    format: 'pocket',
    rows,
    imported: rows,
    merged: 0,
    notes: 0,
    skipped: [],
    enrichment_waiting: rows,
  });

  // Nothing waits in the enrichment outbox (whose age the alarm watches); every page waits in the backlog.
  expect(await bookmarks.pendingEnrichments('9999-12-31T00:00:00.000Z', 1000)).toEqual([]);
  const waiting = await bookmarks.importWaiting(1000);
  expect(waiting).toHaveLength(rows);
  expect(new Set(waiting.map((entry) => `${entry.userId} ${entry.importId}`))).toEqual(
    new Set([`${alice} ${report.import_id}`]),
  );

  // The import is the account's, with its report, as an upload's is; Bob's id finds nothing.
  const [listed] = await imports.listImports(alice, 20);
  expect(listed).toMatchObject({
    id: report.import_id,
    status: 'done',
    fileName: 'pocket.zip',
    format: 'pocket',
    links: rows,
    done: rows,
    imported: rows,
    enrichmentWaiting: rows,
  });
  expect(await imports.getImport(bob, report.import_id)).toBeNull();
  expect(await imports.listImports(bob, 20)).toEqual([]);

  // The outbox's sweep hands the backlog to the page worker (at most IMPORT_RELEASE_PER_SHARD a shard).
  const published: string[] = [];
  const swept = await sweepOutbox({
    bookmarks,
    enrichment: { publish: async (request) => void published.push(request.bookmarkId) },
    imports,
    graceSeconds: 60,
    now: () => new Date(),
  });
  expect(swept.released).toBe(rows);
  expect(new Set(published).size).toBe(rows);
  expect((await imports.getImport(alice, report.import_id))?.enrichmentWaiting).toBe(0);

  // The same file again: nothing new, nothing waiting.
  const again = JSON.parse((await gleaner(['import', '--user', alice, file, '--json'], env)).stdout);
  expect(again).toMatchObject({ imported: 0, merged: rows, enrichment_waiting: 0 });
  expect(await bookmarks.importWaiting(1000)).toEqual([]);
  expect((await bookmarks.listBookmarks(bob, {}, { limit: 10 })).items).toEqual([]);
}, 300_000);

it('is refused while another import of the account is under way, naming it; another account imports meanwhile', async () => {
  const [alice, bob] = [await user(), await user()];
  const file = join(dataDir, 'small.zip');
  writeFileSync(file, pocketZip(3));
  const imports = new DynamoImportStore(table.doc, table.tableName);
  const underWay = await openImport({ imports, newId: randomUUID, now: () => new Date() }, alice, 'web.zip', 3600);

  const refused = await gleaner(['import', '--user', alice, file, '--json'], env);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`Import ${underWay.id} is still under way`);
  expect(
    (await new DynamoBookmarkStore(table.doc, table.tableName).listBookmarks(alice, {}, { limit: 10 })).items,
  ).toEqual([]);
  const other = await gleaner(['import', '--user', bob, file, '--json'], env);
  expect(other.code).toBe(0);
  expect(JSON.parse(other.stdout)).toMatchObject({ imported: 3 });
}, 60_000);
