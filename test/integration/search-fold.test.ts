import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ShardedSearchIndex } from '../../functions/adapters/search/sharded-index';
import type { Note } from '../../functions/core/model';
import { testEmbedder } from '../../functions/core/search/embedder';
import { indexNotes } from '../../functions/core/search/indexer';
import { searchNotes } from '../../functions/core/search/search';
import { shardOf, tableSetPrefix } from '../../functions/core/search/shards';
import { searchableNote } from '../support/search-notes';

/**
 * The fold, per shard: only the shards (and tables) written since their last fold are folded, the most
 * rows first, within a deadline; and a note a rebuild's scan and the stream both inserted into the
 * shard being built is one row after the build's fold.
 */
let folder: string;
let index: ShardedSearchIndex;
const embedder = testEmbedder(8);

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'gleaner-fold-'));
  index = await ShardedSearchIndex.open({ uri: folder, shards: 2 });
});
afterEach(() => {
  index.close();
  rmSync(folder, { recursive: true, force: true });
});

/** A user of each of the two shards. */
function userOfShard(shard: number): string {
  for (;;) {
    const userId = randomUUID();
    if (shardOf(userId, 2) === shard) return userId;
  }
}
const alice = userOfShard(0);
const bob = userOfShard(1);

let counter = 0;
/** A word of four letters no other note has (too short for typo tolerance to match another). */
function uniqueWord(): string {
  let n = ++counter;
  let word = '';
  for (let i = 0; i < 3; i++, n = Math.floor(n / 26)) word += String.fromCharCode(97 + (n % 26));
  return `q${word}`;
}

const notesOf = (userId: string, count: number) =>
  Array.from({ length: count }, () => searchableNote(userId, { title: `Field notes ${uniqueWord()}` }));
const wordOf = (note: Note) => note.title.split(' ')[2]!;
const edited = (note: Note) => ({ ...note, version: note.version + 1, title: `Field notes ${uniqueWord()}` });

async function found(userId: string, word: string): Promise<string[]> {
  const answer = await searchNotes({ index, embedder: null }, userId, word);
  if (!answer.ok) throw new Error(answer.problem.message);
  return answer.answer.results.map((hit) => hit.note_id);
}

/** Every table's version, by name (what a fold would raise). */
async function versions(): Promise<Map<string, number>> {
  const db = await lancedb.connect(folder);
  const found = new Map<string, number>();
  for (const name of await db.tableNames()) {
    const table = await db.openTable(name);
    found.set(name, await table.version());
    table.close();
  }
  db.close();
  return found;
}

async function unindexed(name: string, indexName: string): Promise<number> {
  const db = await lancedb.connect(folder);
  const table = await db.openTable(name);
  const stats = await table.indexStats(indexName);
  table.close();
  db.close();
  return stats!.numUnindexedRows;
}

describe('the fold', () => {
  it('after N changes folds only those: the shard written, its tables written, each change indexed; other shards keep their versions', async () => {
    const large = notesOf(alice, 1200);
    const other = notesOf(bob, 300);
    for (let start = 0; start < large.length; start += 400)
      await indexNotes({ index, embedder }, large.slice(start, start + 400));
    await indexNotes({ index, embedder }, other);
    await index.optimize();
    const before = await versions();

    const changed = large.filter((_, i) => i % 60 === 0).map(edited);
    await indexNotes({ index, embedder }, changed);
    const written = await versions();
    expect(await index.optimize()).toEqual({ folded: 1, left: 0 });
    const after = await versions();

    const aliceSet = tableSetPrefix(2, 0, 0);
    const bobSet = tableSetPrefix(2, 0, 1);
    for (const [name, version] of after) {
      if (name.startsWith(bobSet)) expect(version, name).toBe(before.get(name));
      // Alice's notes and vectors tables are folded: a new version beyond the writes'.
      if (name === `${aliceSet}notes` || name.startsWith(`${aliceSet}vectors_`))
        expect(version, name).toBeGreaterThan(written.get(name)!);
    }
    expect(await unindexed(`${aliceSet}notes`, 'title_idx')).toBe(0);
    expect(await unindexed(`${aliceSet}recent_notes`, 'title_idx')).toBe(0);
    const db = await lancedb.connect(folder);
    expect(await (await db.openTable(`${aliceSet}recent_notes`)).countRows()).toBe(0);
    expect(await (await db.openTable(`${aliceSet}notes`)).countRows()).toBe(large.length);
    db.close();
    for (const note of changed) expect(await found(alice, wordOf(note))).toEqual([note.id]);
    expect(await found(alice, wordOf(large[0]!))).toEqual([]);

    // Nothing written since: a fold writes no version anywhere.
    expect(await index.optimize()).toEqual({ folded: 0, left: 0 });
    expect(await versions()).toEqual(after);
  }, 240_000);

  it('folds the shards with the most unfolded rows first, leaves those under the minimum, and stops at the deadline to resume later', async () => {
    await indexNotes({ index, embedder }, notesOf(alice, 30));
    await indexNotes({ index, embedder }, notesOf(bob, 10));
    // Under the minimum: nothing folds.
    expect(await index.optimize({ minRows: 50 })).toEqual({ folded: 0, left: 2 });
    // A deadline already past: the shard with the most rows alone (every call folds one).
    expect(await index.optimize({ deadline: Date.now() - 1 })).toEqual({ folded: 1, left: 1 });
    const db = await lancedb.connect(folder);
    expect(await (await db.openTable(`${tableSetPrefix(2, 0, 0)}recent_notes`)).countRows()).toBe(0);
    expect(await (await db.openTable(`${tableSetPrefix(2, 0, 1)}recent_notes`)).countRows()).toBe(10);
    // The next call takes up the rest.
    expect(await index.optimize({ deadline: Date.now() - 1 })).toEqual({ folded: 1, left: 0 });
    expect(await (await db.openTable(`${tableSetPrefix(2, 0, 1)}recent_notes`)).countRows()).toBe(0);
    db.close();
  }, 120_000);

  it("leaves one row per note in a rebuilt shard when the rebuild's scan and the stream inserted the same note: semantic results and coverage count it once", async () => {
    const notes = notesOf(alice, 6);
    await indexNotes({ index, embedder }, notes);
    await index.optimize();
    const build = await index.startBuild({ kind: 'reindex', shard: 0 });
    await indexNotes({ index: index.builder(build), embedder }, notes);
    // What the stream's insert of the same notes at the same moment leaves: a second row of each, in
    // the notes table and the model's vectors.
    const built = tableSetPrefix(2, 1, 0);
    const db = await lancedb.connect(folder);
    for (const name of (await db.tableNames()).filter(
      (name) => name === `${built}notes` || name.startsWith(`${built}vectors_`),
    )) {
      const table = await db.openTable(name);
      const rows = (await table.query().where(`note_id IN ('${notes[0]!.id}', '${notes[1]!.id}')`).toArray()).map(
        (row) => Object.fromEntries(Object.entries(row.toJSON()).map(([key, value]) => [key, plain(value)])),
      );
      expect(rows).toHaveLength(2);
      await table.add(rows);
      expect(await table.countRows()).toBe(notes.length + 2);
      table.close();
    }
    db.close();
    await index.finishBuild(build);

    expect(await index.coverage(alice, embedder.model)).toEqual({
      notes: notes.length,
      embedded: notes.length,
      waiting: 0,
    });
    expect((await index.liveNoteIds(alice)).sort()).toEqual(notes.map((note) => note.id).sort());
    const answer = await searchNotes({ index, embedder }, alice, 'field notes', { mode: 'semantic', limit: 10 });
    if (!answer.ok) throw new Error(answer.problem.message);
    expect(answer.answer.mode).toBe('semantic');
    expect(answer.answer.results.map((hit) => hit.note_id).sort()).toEqual(notes.map((note) => note.id).sort());
  }, 120_000);
});

/** An Arrow value as the plain value a table's add takes (lists and vectors as arrays). */
function plain(value: unknown): unknown {
  if (value && typeof value === 'object' && Symbol.iterator in value) return Array.from(value as Iterable<unknown>);
  return value;
}
