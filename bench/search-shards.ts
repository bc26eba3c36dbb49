/**
 * The sharded row of `npm run bench`: the same notes in one table set and in 16 shards, each written
 * as the FIFO queue hands a shard's changes (batches of one shard), with query p50/p95, save to
 * searchable, the fold (all shards, and per shard), memory and bytes on disk per note.
 *
 * The default is 200 users of 100 notes (20,000 notes): this shared 2-core machine takes minutes a
 * layout. `BENCH_SHARDS_FULL=1` runs the size, 2,000 users and 200,000 notes;
 * `BENCH_SHARDS_USERS=N` any other number of users. Alone: `npx tsx bench/search-shards.ts`.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { connect } from '@lancedb/lancedb';
import { ShardedSearchIndex } from '../functions/adapters/search/sharded-index';
import type { Note } from '../functions/core/model';
import { testEmbedder } from '../functions/core/search/embedder';
import { userFilter } from '../functions/core/search/filter';
import { indexNotes } from '../functions/core/search/indexer';
import { parseQuery } from '../functions/core/search/query';
import { searchNotes } from '../functions/core/search/search';
import { liveSet, shardOf } from '../functions/core/search/shards';
import { syntheticNotes, uuidOf } from './search';

type AddRow = (name: string, value: string) => void;

const USERS = Number(process.env.BENCH_SHARDS_USERS ?? (process.env.BENCH_SHARDS_FULL === '1' ? 2000 : 200));
const NOTES_PER_USER = 100;
/** The layouts measured, one table and 16 shards by default; `BENCH_SHARDS_LAYOUTS=16` runs one alone. */
const LAYOUTS = (process.env.BENCH_SHARDS_LAYOUTS ?? '1,16').split(',').map(Number);
const BATCH = 100;
const QUERIES = 200;
const SAVES = 20;
const RECALL_QUERIES = 50;

const quantile = (values: readonly number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const ms = (value: number) => `${value.toFixed(1)} ms`;

function folderBytes(folder: string): number {
  let bytes = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size;
  return bytes;
}

/**
 * The vector index against exact search in the shard of the first user (its vector table, users'
 * filters): recall@10 over RECALL_QUERIES queries of that shard's users, through the index's own
 * semantic read. Below the row count that makes the index (VECTOR_INDEX_AT_ROWS) reads are exact.
 */
async function vectorRecall(
  row: AddRow,
  label: string,
  folder: string,
  index: ShardedSearchIndex,
  notes: readonly Note[],
) {
  const embedder = testEmbedder(64);
  const { layout } = await index.layout();
  const prefix = liveSet(layout, notes[0]!.userId);
  const db = await connect(folder);
  try {
    const name = (await db.tableNames()).find((table) => table.startsWith(`${prefix}vectors_`))!;
    const table = await db.openTable(name);
    const indexed = (await table.listIndices()).some((found) => found.columns.includes('vector'));
    const users = [...new Set(notes.map((note) => note.userId))].filter((user) => liveSet(layout, user) === prefix);
    const query = parseQuery('anything');
    if (!query.ok) throw new Error('query');
    let recall = 0;
    for (let i = 0; i < RECALL_QUERIES; i++) {
      const user = users[i % users.length]!;
      const [vector] = await embedder.embed([notes[(i * 7919) % notes.length]!.title], 'query');
      const exact = await table
        .query()
        .nearestTo(vector!)
        .distanceType('cosine')
        .where(userFilter(user))
        .bypassVectorIndex()
        .select(['note_id', '_distance'])
        .limit(10)
        .toArray();
      const found = new Set(
        (await index.semantic(user, query.query, vector!, embedder.model, 10)).map((hit) => hit.note.note_id),
      );
      recall += exact.filter((hit) => found.has(String(hit.note_id))).length / exact.length;
    }
    row(
      `search, ${label}: vector recall@10 of exact search, one shard of ${await table.countRows()} rows`,
      `${(recall / RECALL_QUERIES).toFixed(3)} (${indexed ? 'IVF-PQ index' : 'no vector index at this size: exact'})`,
    );
  } finally {
    db.close();
  }
}

async function layoutRows(row: AddRow, shards: number, notes: readonly Note[]) {
  const folder = mkdtempSync(join(tmpdir(), 'gleaner-bench-shards-'));
  // Old versions go at each fold (keepVersionsSeconds 0), so the bytes are the rows' own.
  const location = { uri: folder, shards, keepVersionsSeconds: 0 };
  const index = await ShardedSearchIndex.open(location);
  const reader = await ShardedSearchIndex.open(location);
  const embedder = testEmbedder(64);
  const label = shards === 1 ? 'one table' : `${shards} shards`;
  try {
    // As the FIFO queue hands them: a batch holds one shard's changes.
    const ordered = [...notes].sort((a, b) => shardOf(a.userId, shards) - shardOf(b.userId, shards));
    const started = performance.now();
    for (let start = 0; start < ordered.length; start += BATCH) {
      await indexNotes({ index, embedder }, ordered.slice(start, start + BATCH));
      process.stderr.write(`\r${label}: indexed ${Math.min(ordered.length, start + BATCH)} of ${ordered.length}   `);
    }
    const written = performance.now() - started;
    const foldStarted = performance.now();
    const { folded } = await index.optimize();
    const fold = performance.now() - foldStarted;
    row(
      `search, ${notes.length} notes of ${USERS} users in ${label}: indexing, then the fold`,
      `${((notes.length / written) * 1000).toFixed(0)} notes/s; fold ${(fold / 1000).toFixed(1)} s (${(fold / 1000 / Math.max(1, folded)).toFixed(2)} s a shard, ${folded} folded)`,
    );
    await vectorRecall(row, label, folder, index, notes);
    const times: number[] = [];
    for (let i = 0; i < QUERIES; i++) {
      const note = notes[(i * 7919) % notes.length]!;
      const began = performance.now();
      await searchNotes({ index: reader, embedder }, note.userId, note.title.split(' ').slice(0, 2).join(' '), {
        mode: 'keyword',
      });
      times.push(performance.now() - began);
    }
    row(`search, ${label}: keyword query p50 / p95`, `${ms(quantile(times, 0.5))} / ${ms(quantile(times, 0.95))}`);
    const lags: number[] = [];
    for (let i = 0; i < SAVES; i++) {
      const userId = notes[(i * 104_729) % notes.length]!.userId;
      const [note] = syntheticNotes(userId, 1, 10_000 + i);
      const fresh = {
        ...note!,
        id: uuidOf(`lag:${i}`),
        title: `Zephyrlag${String.fromCharCode(97 + i)} ${note!.title}`,
      };
      const began = performance.now();
      await indexNotes({ index, embedder }, [fresh]);
      for (;;) {
        const answer = await searchNotes({ index: reader, embedder: null }, userId, fresh.title.split(' ')[0]!);
        if (answer.ok && answer.answer.results.some((hit) => hit.note_id === fresh.id)) break;
      }
      lags.push(performance.now() - began);
    }
    row(`search, ${label}: save to searchable p50 / p95`, `${ms(quantile(lags, 0.5))} / ${ms(quantile(lags, 0.95))}`);
    await index.optimize();
    const bytes = folderBytes(folder);
    row(
      `search, ${label}: on disk after the fold, and memory`,
      `${(bytes / (notes.length + SAVES)).toFixed(0)} bytes a note (${(bytes / 1024 ** 2).toFixed(0)} MB); RSS ${(process.memoryUsage().rss / 1024 ** 2).toFixed(0)} MB, peak ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
    );
  } finally {
    reader.close();
    index.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

export async function shardedRows(row: AddRow): Promise<void> {
  const notes = Array.from({ length: USERS }, (_, u) =>
    syntheticNotes(uuidOf(`shard-user-${u}`), NOTES_PER_USER, 100 + u),
  ).flat();
  for (const shards of LAYOUTS) await layoutRows(row, shards, notes);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await shardedRows((name, value) => console.log(`${name}  ${value}`));
}
