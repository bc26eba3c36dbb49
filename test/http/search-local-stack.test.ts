import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rebuildIndex } from '../../functions/adapters/search/search-services';
import { ShardedSearchIndex } from '../../functions/adapters/search/sharded-index';
import { startTestStack, type TestStack } from '../support/local-stack';
import { searchIndexAt } from '../support/search-notes';

/**
 * The whole path on one machine: a save through the local stack's API is written to DynamoDB Local,
 * its stream record is read by the local poller, the indexer handler writes the index, and search
 * finds it; a deleted note disappears, and a removed index folder is rebuilt. How soon is measured by
 * `npm run bench` (save to searchable, docs/search.md), not here: a test on a busy machine would only
 * measure the machine.
 */
let test: TestStack;
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'gleaner-search-stack-'));
  test = await startTestStack({}, { searchIndexUri: join(folder, 'index') });
}, 60_000);
afterAll(async () => {
  await test?.stop();
  rmSync(folder, { recursive: true, force: true });
});

const search = (userId: string, text: string) => searchIndexAt(join(folder, 'index'), userId, text);

/** Until `check` holds: the stream poller and the indexer run moments after the write. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  await vi.waitFor(async () => expect(await check()).toBe(true), { timeout: 30_000, interval: 50 });
}

describe('search on the local stack', () => {
  it('finds a save, only for its owner, and loses a deleted note', async () => {
    const alice = await test.createUser();
    const bob = await test.createUser();
    const saved = await test.save(alice.token, {
      url: 'https://glacier.example/moraine',
      title: 'Moraines and glacial valleys',
      selection: 'Terminal moraines mark the furthest advance.',
      comment: 'Field trip notes #geology',
    });
    expect(saved.status).toBe(200);
    const { note_id: noteId } = (await saved.json()) as { note_id: string };
    await test.save(bob.token, { url: 'https://glacier.example/other', title: 'Moraines elsewhere' });

    await eventually(async () => (await search(alice.user.id, 'moraine')).includes(noteId));
    expect(await search(alice.user.id, 'moraines #geology')).toEqual([noteId]);
    expect(await search(bob.user.id, 'terminal')).toEqual([]);

    // A highlight appended later is searchable too (the note's newer version replaces the old).
    await test.save(alice.token, { url: 'https://glacier.example/moraine', selection: 'Drumlins point downstream.' });
    await eventually(async () => (await search(alice.user.id, 'drumlins')).includes(noteId));

    await test.bookmarks.deleteNote(noteId);
    await eventually(async () => (await search(alice.user.id, 'moraine')).length === 0);
  }, 120_000);

  it('reindex restores an index whose folder was removed', async () => {
    const carol = await test.createUser();
    const saved = await test.save(carol.token, { url: 'https://tides.example/', title: 'Tidal bores explained' });
    const { note_id: noteId } = (await saved.json()) as { note_id: string };
    await eventually(async () => (await search(carol.user.id, 'tidal')).includes(noteId));

    // The stack (its indexer too, which may still be folding the save into the indexes) stops first.
    await test.takeDown();
    rmSync(join(folder, 'index'), { recursive: true, force: true });
    const index = await ShardedSearchIndex.open({ uri: join(folder, 'index') });
    try {
      expect(await search(carol.user.id, 'tidal')).toEqual([]);
      const indexed = await rebuildIndex({
        doc: test.table.doc,
        tableName: test.table.tableName,
        index,
        embedder: null,
      });
      expect(indexed).toBeGreaterThanOrEqual(1);
    } finally {
      index.close();
    }
    await test.bringUp();
    expect(await search(carol.user.id, 'tidal bores')).toEqual([noteId]);
  }, 120_000);
});
