/**
 * The fold of one shard, against the shard's size and the rows changed since the last fold:
 * `npx tsx bench/search-fold.ts`. For each size it indexes that many notes (100 users, 64-d vectors)
 * into one table set, folds them, then three times edits `changed` notes spread over the shard and
 * times the fold that follows; and a fold with nothing written since the last. It prints the median
 * of the three; bench/search-cost-model.ts takes its figures (docs/search.md).
 *
 * `BENCH_FOLD_ROWS=20000,50000` (the default) sets the sizes, `BENCH_FOLD_CHANGED=200` the rows changed
 * (under 500: the writes fold their shard themselves at 500, leaving the timed fold nothing).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LanceSearchIndex } from '../functions/adapters/search/lance-index';
import { searchDocumentWithArticle } from '../functions/core/search/document';
import { testEmbedder } from '../functions/core/search/embedder';
import { embedDocuments } from '../functions/core/search/indexer';
import { syntheticNotes, uuidOf } from './search';

type AddRow = (name: string, value: string) => void;

const SIZES = (process.env.BENCH_FOLD_ROWS ?? '20000,50000').split(',').map(Number);
const CHANGED = Number(process.env.BENCH_FOLD_CHANGED ?? 200);
const USERS = 100;
const ROUNDS = 3;
/** Bulk writes of this many notes (each folds once the recent table passes its size). */
const LOAD_BATCH = 5000;
/** The stream's batches of changes. */
const CHANGE_BATCH = 50;

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const seconds = (value: number) => `${(value / 1000).toFixed(2)} s`;

async function foldRows(row: AddRow, size: number) {
  const folder = mkdtempSync(join(tmpdir(), 'gleaner-bench-fold-'));
  const index = await LanceSearchIndex.open({ uri: folder, keepVersionsSeconds: 0 });
  const embedder = testEmbedder(64);
  const write = async (notes: ReturnType<typeof syntheticNotes>, batch: number) => {
    for (let start = 0; start < notes.length; start += batch) {
      const documents = notes.slice(start, start + batch).map((note) => searchDocumentWithArticle(note, ''));
      await index.upsert(documents, { model: embedder.model, rows: await embedDocuments(embedder, documents) });
    }
  };
  const timed = async () => {
    const started = performance.now();
    await index.optimize();
    return performance.now() - started;
  };
  try {
    const notes = Array.from({ length: USERS }, (_, u) =>
      syntheticNotes(uuidOf(`fold-user-${u}`), Math.ceil(size / USERS), u),
    ).flat();
    await write(notes, LOAD_BATCH);
    await index.optimize();
    const folds: number[] = [];
    const step = Math.max(1, Math.floor(notes.length / CHANGED));
    for (let round = 1; round <= ROUNDS; round++) {
      const edited = notes
        .filter((_, i) => i % step === round % step)
        .slice(0, CHANGED)
        .map((note) => ({ ...note, version: note.version + round, title: `${note.title} edit${round}` }));
      await write(edited, CHANGE_BATCH);
      folds.push(await timed());
      process.stderr.write(`\r${size} rows: fold ${round} of ${ROUNDS}   `);
    }
    const idle = await timed();
    row(
      `search fold, one shard of ${notes.length} notes: after ${CHANGED} changed / after none`,
      `${seconds(median(folds))} (of ${folds.map(seconds).join(', ')}) / ${seconds(idle)}`,
    );
  } finally {
    index.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

export async function foldBench(row: AddRow): Promise<void> {
  for (const size of SIZES) await foldRows(row, size);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await foldBench((name, value) => console.log(`${name}  ${value}`));
}
