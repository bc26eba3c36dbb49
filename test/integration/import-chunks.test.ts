import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { DynamoImportStore } from '../../functions/adapters/dynamo/import-store';
import type { Principal } from '../../functions/core/identity/principal';
import { IMPORT_CHUNK_LINKS, runImportChunk } from '../../functions/core/import/chunks';
import {
  createImport,
  type ImportChunkMessage,
  type ImportJob,
  ownImport,
  startImport,
  type UploadStore,
} from '../../functions/core/import/job';
import { NotFoundError } from '../../functions/core/owner/library';
import { newUser } from '../../functions/core/workspace/accounts';
import { createTestTable } from '../support/dynamo';
import { pocketZip, quietSavePorts } from '../support/save-ports';

/**
 * The import worker's chunks against DynamoDB Local: a chunk that dies halfway (its process gone
 * after some saves) runs again and writes nothing twice, a redelivered chunk changes nothing, and
 * the counts come out exact. Two users: one's import is not the other's to read.
 */

let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(() => table.client.destroy());

class MemoryUploads implements UploadStore {
  readonly files = new Map<string, Uint8Array>();
  async uploadTarget(key: string) {
    return { url: `https://uploads.invalid/${key}`, headers: {} };
  }
  async read(key: string) {
    return this.files.get(key) ?? null;
  }
  async remove(key: string) {
    this.files.delete(key);
  }
}

async function owner(): Promise<Principal> {
  const user = newUser({ id: randomUUID(), name: 'Importer', noteCap: 10_000, now: new Date() });
  await new DynamoAccountStore(table.doc, table.tableName).createUser(user);
  return { userId: user.id, via: 'session', scopes: new Set() };
}

function workerPorts(crashAfterSaves: number | null = null) {
  const queued: ImportChunkMessage[] = [];
  let saves = 0;
  return {
    queued,
    ports: (uploads: MemoryUploads) => ({
      imports: new DynamoImportStore(table.doc, table.tableName),
      uploads,
      queue: { publish: async (message: ImportChunkMessage) => void queued.push(message) },
      newId: randomUUID,
      now: () => new Date(),
      save: (job: ImportJob) => {
        const store = new DynamoBookmarkStore(table.doc, table.tableName, { importId: job.id, since: job.created });
        const createBookmark = store.createBookmark.bind(store);
        // The process dies after `crashAfterSaves` bookmarks: what it wrote stays, the chunk does not finish.
        store.createBookmark = async (...args) => {
          if (crashAfterSaves !== null && ++saves > crashAfterSaves) throw new Error('the worker died');
          return createBookmark(...args);
        };
        return quietSavePorts(store);
      },
    }),
  };
}

it('runs a chunk again after a crash halfway and a redelivered chunk without writing anything twice', async () => {
  const [alice, bob] = [await owner(), await owner()];
  const rows = IMPORT_CHUNK_LINKS + 50;
  const uploads = new MemoryUploads();
  const healthy = workerPorts();
  const { job } = await createImport(healthy.ports(uploads), alice, 'pocket.zip');
  uploads.files.set(job.uploadKey, pocketZip(rows));
  await startImport(healthy.ports(uploads), alice, job.id);
  const [first] = healthy.queued.splice(0);

  // Dies after 70 of the first chunk's 200 saves; the message comes back and runs whole.
  const crashing = workerPorts(70);
  await expect(runImportChunk(crashing.ports(uploads), first!)).rejects.toThrow('the worker died');
  expect(await runImportChunk(healthy.ports(uploads), first!)).toBe('imported');
  // Redelivered after its counts were recorded: it only queues the next chunk again.
  expect(await runImportChunk(healthy.ports(uploads), first!)).toBe('already-done');
  const next = healthy.queued.splice(0);
  expect(next).toEqual([
    { user_id: alice.userId, import_id: job.id, chunk: 1 },
    { user_id: alice.userId, import_id: job.id, chunk: 1 },
  ]);
  expect(await runImportChunk(healthy.ports(uploads), next[0]!)).toBe('imported');
  expect(await runImportChunk(healthy.ports(uploads), next[1]!)).toBe('gone');

  const done = await ownImport(healthy.ports(uploads), alice, job.id);
  expect(done).toMatchObject({
    status: 'done',
    rows,
    links: rows,
    done: rows,
    imported: rows,
    merged: 0,
    chunksDone: 2,
    enrichmentWaiting: rows,
  });
  const bookmarks = new DynamoBookmarkStore(table.doc, table.tableName);
  const saved = await bookmarks.listBookmarks(alice.userId, {}, { limit: 1000 });
  expect(saved.items).toHaveLength(rows);
  expect(new Set(saved.items.map((bookmark) => bookmark.url)).size).toBe(rows);
  // The file is not kept once imported, and Bob can neither read the import nor has any of it.
  expect(uploads.files.size).toBe(0);
  await expect(ownImport(healthy.ports(uploads), bob, job.id)).rejects.toThrow(NotFoundError);
  expect((await bookmarks.listBookmarks(bob.userId, {}, { limit: 10 })).items).toHaveLength(0);
});
