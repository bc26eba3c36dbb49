import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { newUser } from '../../functions/core/accounts';
import { bookmarkFileEntries, exportWorkspace } from '../../functions/core/export-workspace';
import { importBookmarks } from '../../functions/core/import-bookmarks';
import { parseNetscapeBookmarks, renderNetscapeBookmarks } from '../../functions/core/netscape-bookmarks';
import { createTestTable } from '../support/dynamo';

/** `gleaner import` and `gleaner export` through the save core, against DynamoDB Local. */

let table: Awaited<ReturnType<typeof createTestTable>>;
let accounts: DynamoAccountStore;
let store: DynamoBookmarkStore;
const ports = () => ({ store, enrichment: { publish: async () => {} }, newId: randomUUID, now: () => new Date(), logger: { warn: () => {} } });

beforeAll(async () => {
  table = await createTestTable();
  accounts = new DynamoAccountStore(table.doc, table.tableName);
  store = new DynamoBookmarkStore(table.doc, table.tableName);
});
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
    expect(await importBookmarks(ports(), userId, parseNetscapeBookmarks(file))).toEqual({ links: 4, imported: 2, merged: 1, skipped: 1, over_cap: 0, note_cap: null });
    const exported = await exportWorkspace(store, userId);
    expect(exported.map(({ url, title, created, tags }) => ({ url, title, created, tags }))).toEqual([
      { url: 'https://example.com/a?utm_source=x', title: 'A', created: expect.stringMatching(/^2017-07-14T02:40:00/), tags: ['work-stuff', 'aws', 'later'] },
      { url: 'https://example.com/b', title: 'B', created: expect.stringMatching(/^2017-07-14T02:41:40/), tags: ['work-stuff'] },
    ]);
    expect(await importBookmarks(ports(), userId, parseNetscapeBookmarks(file))).toMatchObject({ imported: 0, merged: 3 });
    expect((await accounts.getUser(userId))!.noteCount).toBe(2);
  });

  it('stops at the note cap with a report, and finishes when run again after the cap is raised', async () => {
    const userId = await user(3);
    const links = Array.from({ length: 10 }, (_, i) => ({ url: `https://cap.example/${i}`, title: `${i}`, tags: [], added: null, description: null }));
    expect(await importBookmarks(ports(), userId, links)).toMatchObject({ links: 10, imported: 3, over_cap: 7, note_cap: 3 });
    await accounts.updatePlan(userId, { plan: 'free', noteCap: 100 });
    expect(await importBookmarks(ports(), userId, links)).toMatchObject({ imported: 7, merged: 3, over_cap: 0 });
  });

  it('exports a workspace that imports into a fresh user as the same workspace', async () => {
    const source = await user();
    await importBookmarks(ports(), source, parseNetscapeBookmarks(file));
    const exported = renderNetscapeBookmarks(bookmarkFileEntries(await exportWorkspace(store, source)));
    const copy = await user();
    await importBookmarks(ports(), copy, parseNetscapeBookmarks(exported));
    // A bookmark file dates links to the second (ADD_DATE).
    const strip = (list: Awaited<ReturnType<typeof exportWorkspace>>) =>
      list.map(({ url, title, created, tags }) => ({ url, title, created: Math.floor(Date.parse(created) / 1000), tags: [...tags].sort() }));
    expect(strip(await exportWorkspace(store, copy))).toEqual(strip(await exportWorkspace(store, source)));
  });

  it('imports a 5,000-link file in one run', async () => {
    const userId = await user(10_000);
    const entries = Array.from({ length: 5000 }, (_, i) => ({ url: `https://many.example/${i}`, title: `Link ${i}`, tags: [`t${i % 7}x`], added: new Date(1_600_000_000_000 + i * 1000), description: null }));
    const html = renderNetscapeBookmarks(entries);
    expect(await importBookmarks(ports(), userId, parseNetscapeBookmarks(html))).toMatchObject({ links: 5000, imported: 5000 });
    expect((await accounts.getUser(userId))!.noteCount).toBe(5000);
  }, 600_000);
});
