import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/dynamo/keys';
import { readNotes } from '../../functions/adapters/search/note-changes';
import { rebuildIndex, scheduledIndexStep } from '../../functions/adapters/search/search-services';
import { RebuildUnderWayError, ShardedSearchIndex } from '../../functions/adapters/search/sharded-index';
import type { Note } from '../../functions/core/model';
import { testEmbedder } from '../../functions/core/search/embedder';
import { applyNoteChanges, type IndexerPorts } from '../../functions/core/search/indexer';
import { searchNotes } from '../../functions/core/search/search';
import { shardOf } from '../../functions/core/search/shards';
import { createTestTable } from '../support/dynamo';
import { searchableNote } from '../support/search-notes';

/**
 * The sharded index against DynamoDB Local (the table a rebuild scans) and LanceDB in a folder: users
 * routed to their shard, rebuilds beside the live layout with searches and saves running through them,
 * resharding resumed after a crash, and re-embedding from a per-shard watermark.
 */
let table: Awaited<ReturnType<typeof createTestTable>>;
let folder: string;
let index: ShardedSearchIndex;
const embedder = testEmbedder(8);

beforeEach(async () => {
  table = await createTestTable();
  folder = mkdtempSync(join(tmpdir(), 'gleaner-shards-'));
  index = await ShardedSearchIndex.open({ uri: folder, shards: 4 });
});
afterEach(() => {
  index.close();
  rmSync(folder, { recursive: true, force: true });
});

const users = Array.from({ length: 8 }, () => randomUUID());
let counter = 0;

/** A word of four letters no other note has (too short for typo tolerance to match another). */
function uniqueWord(): string {
  let n = ++counter;
  let word = '';
  for (let i = 0; i < 3; i++, n = Math.floor(n / 26)) word += String.fromCharCode(97 + (n % 26));
  return `z${word}`;
}

/** A note with a word of its own, saved in the table. */
async function save(userId: string, version = 1, note?: Note): Promise<Note> {
  const word = uniqueWord();
  const saved = note
    ? { ...note, title: `${note.title.split(' ')[0]} ${word}`, version, updated: new Date().toISOString() }
    : searchableNote(userId, { title: `Survey ${word}`, version });
  await table.doc.send(
    new PutCommand({
      TableName: table.tableName,
      Item: {
        ...keys.note(saved.id),
        ...keys.userNotesIndex(userId, saved.updated ?? saved.created, saved.id),
        type: 'Note',
        ...saved,
      },
    }),
  );
  return saved;
}

const wordOf = (note: Note) => note.title.split(' ')[1]!;

function writer(target = index): IndexerPorts {
  return { index: target, embedder, readNotes: (ids) => readNotes(table.doc, table.tableName, ids) };
}

async function found(userId: string, word: string): Promise<string[]> {
  const answer = await searchNotes({ index, embedder: null }, userId, word);
  if (!answer.ok) throw new Error(answer.problem.message);
  return answer.answer.results.map((hit) => hit.note_id);
}

/** Saves `count` notes of each user and indexes them as the stream would. */
async function seed(count: number): Promise<Note[]> {
  const notes: Note[] = [];
  for (const userId of users) for (let i = 0; i < count; i++) notes.push(await save(userId));
  await applyNoteChanges(
    writer(),
    notes.map((note) => ({ kind: 'saved', note })),
  );
  return notes;
}

describe('a sharded search index', () => {
  it("keeps each user's notes in the user's shard, and a query opens that shard alone", async () => {
    const notes = await seed(2);
    const { layout } = await index.layout();
    expect(layout).toMatchObject({ shards: 4, generations: [0, 0, 0, 0], build: null });
    const shardsUsed = new Set(users.map((userId) => shardOf(userId, 4)));
    const tables = readdirSync(folder).filter((name) => name.endsWith('_notes.lance') && !name.includes('recent'));
    expect(tables.sort()).toEqual([...shardsUsed].map((shard) => `n4g0s${shard}_notes.lance`).sort());
    for (const note of notes) {
      expect(await found(note.userId, wordOf(note))).toEqual([note.id]);
      // Another user, in the same shard or not, never sees it.
      const other = users.find((userId) => userId !== note.userId)!;
      expect(await found(other, wordOf(note))).toEqual([]);
    }
  });

  it('rebuilds beside the live index while a writer saves and a reader searches: no search fails or misses, a second rebuild is refused', async () => {
    const seeded = await seed(10);
    const indexed = new Map(seeded.map((note) => [note.id, note]));
    const deleted = new Set<string>();
    let rebuilding = true;
    const failures: string[] = [];

    const writing = (async () => {
      let round = 0;
      while (rebuilding || round < 3) {
        round++;
        const userId = users[round % users.length]!;
        const fresh = await save(userId);
        const edited = [...indexed.values()].find((note) => note.userId === userId)!;
        const edit = await save(userId, edited.version + 1, edited);
        const gone = [...indexed.values()].find((note) => note.userId !== userId && note.id !== edited.id)!;
        await table.doc.send(new DeleteCommand({ TableName: table.tableName, Key: keys.note(gone.id) }));
        // The reader checks only notes no write is changing.
        indexed.delete(edited.id);
        indexed.delete(gone.id);
        await applyNoteChanges(writer(), [
          { kind: 'saved', note: fresh },
          { kind: 'saved', note: edit },
          { kind: 'deleted', noteId: gone.id, userId: gone.userId },
        ]);
        indexed.set(fresh.id, fresh);
        indexed.set(edit.id, edit);
        deleted.add(gone.id);
      }
    })();

    const reading = (async () => {
      let round = 0;
      while (rebuilding || round < 10) {
        round++;
        // Everything indexed before this search started is found by its word; nothing deleted is.
        const known = [...indexed.values()];
        const note = known[round % known.length]!;
        try {
          const hits = await found(note.userId, wordOf(note));
          if (indexed.get(note.id) === note && !hits.includes(note.id)) failures.push(`missed ${wordOf(note)}`);
          for (const hit of hits) if (deleted.has(hit)) failures.push(`found deleted ${hit}`);
        } catch (error) {
          failures.push(String(error));
        }
      }
    })();

    const ports = { doc: table.doc, tableName: table.tableName, index, embedder, pageItems: 25 };
    const rebuilding1 = rebuildIndex(ports);
    // The second full rebuild and a reshard, started while the first runs, are refused with the reason;
    // one user's rebuilds (in place) run beside it.
    await expect.poll(async () => (await index.layout()).layout.build !== null).toBe(true);
    await expect(rebuildIndex(ports)).rejects.toThrow(RebuildUnderWayError);
    await expect(rebuildIndex(ports, { shards: 2 })).rejects.toThrow(/a reindex of the search index is under way/);
    const perUser = await Promise.all([
      rebuildIndex(ports, { userId: users[0]! }),
      rebuildIndex(ports, { userId: users[1]! }),
    ]);
    expect(perUser.every((count) => count > 0)).toBe(true);
    await rebuilding1;
    rebuilding = false;
    await Promise.all([writing, reading]);

    expect(failures).toEqual([]);
    const { layout } = await index.layout();
    expect(layout).toMatchObject({ shards: 4, generations: [1, 1, 1, 1], build: null });
    expect(layout.retired.map(({ prefix }) => prefix).sort()).toEqual(['n4g0s0_', 'n4g0s1_', 'n4g0s2_', 'n4g0s3_']);
    // The index ends complete: every note of the table found by its word, no deleted one.
    const { Items = [] } = await table.doc.send(new ScanCommand({ TableName: table.tableName }));
    expect(Items.length).toBe(indexed.size);
    for (const note of indexed.values()) expect(await found(note.userId, wordOf(note))).toEqual([note.id]);
    for (const noteId of deleted) expect(indexed.has(noteId)).toBe(false);
  }, 300_000);

  it('reshards N → M resumably: a scan that stopped is continued from where it got, and the switch keeps every note', async () => {
    const notes = await seed(6);
    let scans = 0;
    // The table answers two pages, then fails, as a process killed mid-scan would stop.
    const failing = {
      send: (command: unknown) => {
        if (command instanceof ScanCommand && ++scans > 2) return Promise.reject(new Error('the process stopped'));
        return table.doc.send(command as never);
      },
    } as typeof table.doc;
    const ports = { doc: table.doc, tableName: table.tableName, index, embedder, pageItems: 10 };
    await expect(rebuildIndex({ ...ports, doc: failing }, { shards: 2 })).rejects.toThrow('the process stopped');
    const stopped = (await index.layout()).layout;
    expect(stopped.shards).toBe(4);
    expect(stopped.build).toMatchObject({ kind: 'reshard', shards: 2, scanned: 20 });
    expect(stopped.build?.cursor).not.toBeNull();
    // Meanwhile searches answer from the live four shards.
    expect(await found(notes[0]!.userId, wordOf(notes[0]!))).toEqual([notes[0]!.id]);

    await expect(rebuildIndex(ports, { shards: 2 })).rejects.toThrow(/--resume/);
    const resumed = await rebuildIndex(ports, { shards: 2, resume: true });
    expect(resumed).toBeLessThan(notes.length);
    const { layout } = await index.layout();
    expect(layout).toMatchObject({ shards: 2, generations: [1, 1], build: null });
    for (const note of notes) expect(await found(note.userId, wordOf(note))).toEqual([note.id]);
    await expect(rebuildIndex(ports, { resume: true })).rejects.toThrow(/no reindex or reshard under way/);
  }, 120_000);

  it('re-embeds from a watermark per shard: a new model once, then only what failed on the stream', async () => {
    const notes = await seed(5);
    const other = testEmbedder(8, 'another-model');
    let embedded = 0;
    const counting = {
      model: other.model,
      embed: async (texts: readonly string[], kind: 'document' | 'query') => {
        embedded += texts.length;
        return other.embed(texts, kind);
      },
    };
    const deadline = Date.now() + 60_000;
    expect((await scheduledIndexStep(index, counting, deadline)).reembedded).toBe(notes.length);
    expect(embedded).toBe(notes.length);
    // Every shard's watermark is at the end: the next run reads no range and embeds nothing.
    expect((await scheduledIndexStep(index, counting, deadline)).reembedded).toBe(0);
    expect(embedded).toBe(notes.length);

    // A stream batch whose embedding failed moves its shard's watermark back before its notes.
    const failingModel = {
      model: other.model,
      embed: () => Promise.reject(new Error('model down')),
    };
    const fresh = [await save(users[2]!), await save(users[5]!)];
    await applyNoteChanges(
      {
        ...writer(),
        embedder: failingModel,
        onEmbeddingFailure: (_error, failed) => index.reembedLater(other.model, failed),
      },
      fresh.map((note) => ({ kind: 'saved', note })),
    );
    expect(await found(fresh[0]!.userId, wordOf(fresh[0]!))).toEqual([fresh[0]!.id]);
    expect((await scheduledIndexStep(index, counting, deadline)).reembedded).toBe(2);
    expect((await index.coverage(fresh[0]!.userId, other.model)).embedded).toBe(6);
  }, 120_000);
});
