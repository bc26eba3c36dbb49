/**
 * The search index's cost and capacity at 10⁹ notes (100,000 users of 10,000 notes), on paper:
 * `npx tsx bench/search-cost-model.ts`. Its inputs are the constants below: the per-shard figures are
 * the benches' (`npm run bench`: bench/search-shards.ts and bench/search.ts; `npx tsx
 * bench/search-fold.ts` for the fold: put a new run's figures here and run it again), the traffic is an
 * assumption, the prices are bench/prices.ts's. It prints the model docs/search.md explains, and beside
 * it the same load on two managed engines, priced from their list prices and sizing rules (not measured:
 * AWS is not reachable from the machine this runs on).
 */
import { MANAGED_SEARCH_PRICES as MANAGED, PRICES, PRICES_AS_OF } from './prices';

const INPUTS = {
  users: 100_000,
  notesPerUser: 10_000,
  /**
   * Measured: bytes on disk a note after the fold, 200,000 notes in 16 shards of about 12,500
   * (bench/search-shards.ts, `BENCH_SHARDS_FULL=1`, 2026-11-28), with 64-d vectors; the per-table
   * overhead shrinks as a shard grows (3,857 at 20,000 notes in one table).
   */
  bytesPerNote: 4_319,
  /** The bench's vectors are 64-d; the built-in model's (and Titan's as configured) 512-d: 4 bytes a dimension more a note. */
  benchVectorDimensions: 64,
  /**
   * Measured (bench/search-fold.ts): a shard's fold after 200 rows changed, by the shard's rows, median
   * of three; two runs, on this shared 2-core machine under its load (2026-11-28) and a quieter pair
   * (the same fold timed by hand, 04:46–04:49, load average 2–7).
   */
  foldRuns: [
    {
      name: 'bench run, 05:09–05:25, load average 12–28',
      points: [
        [20_000, 3.42],
        [50_000, 8.07],
        [100_000, 8.44],
      ],
    },
    {
      name: 'quiet pair, load average 2–7',
      points: [
        [20_000, 0.44],
        [50_000, 1.64],
      ],
    },
  ] as { name: string; points: [rows: number, seconds: number][] }[],
  /** The fold's deadline: half the indexer's 120 s timeout, the rest left for the run's re-embedding and margin. */
  foldBudgetSeconds: 60,
  /** SEARCH_FOLD_ROWS: the scheduled run folds a shard once this many rows wait. */
  foldRows: 100,
  scheduledRunsPerDay: 144,
  maxShards: 1024,
  /** Measured: a keyword query's p50 at 10,000 notes of a user among 19,900 (ms), warm function. */
  queryMs: 12,
  /** Measured: indexing with vectors, notes a second on one busy core (the built-in model embeds 14 a second). */
  indexNotesPerSecond: 189,
  builtInEmbedNotesPerSecond: 14,
  /** Assumed traffic; every query hybrid (keyword and nearest neighbours). */
  savesPerUserPerDay: 10,
  queriesPerUserPerDay: 20,
  /** A FIFO batch of one shard (10 messages) writes one commit: data, deletions, manifest, index deltas. */
  s3PutsPerCommit: 12,
  messagesPerCommit: 10,
  /** Reads a warm query makes: the layout, the manifest checks; index pages mostly cached. */
  s3GetsPerQuery: 4,
  indexerMemoryGb: 1,
  searchMemoryGb: 1,
  /** The built-in model's vectors. */
  vectorDimensions: 512,
  /** Managed engines, assumed from their published sizing (not measured). */
  managed: {
    /** A vector's bytes beyond its floats in S3 Vectors: key and filterable metadata (user, tags, dates). */
    s3VectorsMetadataBytes: 200,
    /** Indexes a vector bucket holds: one index a user, so a query is charged for that user's vectors alone. */
    s3VectorsIndexesPerBucket: 10_000,
    /** OpenSearch Serverless keeps a vector collection's HNSW graphs in OCU memory: bytes a vector with its graph. */
    openSearchHnswBytesPerVector: 512 * 4 * 1.1,
    /** Memory of an OCU for graphs (of its 6 GB), and its local storage for the text index. */
    openSearchOcuGraphGb: 3,
    openSearchOcuStorageGb: 120,
    /** Search OCUs are kept in two zones; indexing OCUs assumed enough for 12 saves/s. */
    openSearchReplicas: 2,
    openSearchIndexingOcus: 2,
  },
};

const i = INPUTS;
const notes = i.users * i.notesPerUser;
const day = 86_400;
const month = 30;
const hoursAMonth = 730;
const savesPerDay = i.users * i.savesPerUserPerDay;
const queriesPerDay = i.users * i.queriesPerUserPerDay;
const dollars = (value: number) => `$${value.toLocaleString('en-US', { maximumFractionDigits: 0 })}`;
const count = (value: number) => Math.round(value).toLocaleString('en-US');

/**
 * A shard's fold time by its rows, from a run's measured points: a power law anchored at its largest
 * shard, growing as fast as a least-squares fit through the points says but never slower than linear
 * (the fold merges the new rows into each full-text index's one segment, rewriting it: docs/search.md).
 */
function foldModel(points: readonly [number, number][]) {
  const logs = points.map(([rows, seconds]) => [Math.log(rows), Math.log(seconds)] as const);
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const mx = mean(logs.map(([x]) => x));
  const my = mean(logs.map(([, y]) => y));
  const fitted =
    logs.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0) / logs.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  const exponent = Math.max(1, fitted);
  const [rows, seconds] = [...points].sort((a, b) => b[0] - a[0])[0]!;
  const foldSeconds = (shardRows: number) => seconds * (shardRows / rows) ** exponent;
  /** The largest shard whose fold fits the budget, and the shards that takes. */
  const largestShard = rows * (i.foldBudgetSeconds / seconds) ** (1 / exponent);
  return { fitted, exponent, foldSeconds, largestShard, shardsNeeded: Math.ceil(notes / largestShard) };
}
const runs = i.foldRuns.map((run) => ({ ...run, ...foldModel(run.points) }));
// Costed on the first run (this bench's own): the second's growth gives longer folds at 1,024 shards, fewer shards fitting.
const { exponent, foldSeconds, shardsNeeded } = runs[0]!;
const shards = Math.min(i.maxShards, Math.max(64, shardsNeeded));
const perShard = notes / shards;
const savesPerShardPerDay = savesPerDay / shards;
/** A shard folds at a scheduled run once foldRows wait: as often as its writes fill that, at most every run. */
const foldsPerShardPerDay = Math.min(i.scheduledRunsPerDay, savesPerShardPerDay / i.foldRows);

const bytesPerNote = i.bytesPerNote + (i.vectorDimensions - i.benchVectorDimensions) * 4;
const storageGb = (notes * bytesPerNote) / 1024 ** 3;
const lance = {
  's3 storage': storageGb * PRICES.s3GbMonth,
  'index writes: Lambda':
    ((savesPerDay / i.indexNotesPerSecond) * i.indexerMemoryGb * PRICES.lambdaX86GbSecond +
      (savesPerDay / i.messagesPerCommit) * PRICES.lambdaRequest) *
    month,
  'index writes: SQS FIFO (send, receive, delete)':
    ((savesPerDay * 3) / i.messagesPerCommit) * PRICES.sqsRequest * month,
  'index writes: S3 PUTs': (savesPerDay / i.messagesPerCommit) * i.s3PutsPerCommit * PRICES.s3Put * month,
  'index writes: commit table (DynamoDB)': (savesPerDay / i.messagesPerCommit) * PRICES.dynamoWriteUnit * month,
  'folds: Lambda':
    shards * foldsPerShardPerDay * foldSeconds(perShard) * i.indexerMemoryGb * PRICES.lambdaX86GbSecond * month,
  'queries: Lambda':
    queriesPerDay * (i.queryMs / 1000) * i.searchMemoryGb * PRICES.lambdaX86GbSecond * month +
    queriesPerDay * PRICES.lambdaRequest * month,
  'queries: S3 GETs': queriesPerDay * i.s3GetsPerQuery * PRICES.s3Get * month,
};
const total = (parts: Record<string, number>) => Object.values(parts).reduce((sum, part) => sum + part, 0);

// OpenSearch Serverless: one vector collection holding the text and the vectors.
const m = i.managed;
const vectorBytes = i.vectorDimensions * 4;
const graphGb = (notes * m.openSearchHnswBytesPerVector) / 1024 ** 3;
const textGb = (notes * (i.bytesPerNote - i.benchVectorDimensions * 4)) / 1024 ** 3;
const searchOcus =
  m.openSearchReplicas *
  Math.max(
    Math.ceil(graphGb / m.openSearchOcuGraphGb),
    Math.ceil(textGb / m.openSearchOcuStorageGb),
    MANAGED.openSearchServerlessMinimumOcus.price / 2,
  );
const openSearch = {
  'search OCUs': searchOcus * MANAGED.openSearchServerlessOcuHour.price * hoursAMonth,
  'indexing OCUs': m.openSearchIndexingOcus * MANAGED.openSearchServerlessOcuHour.price * hoursAMonth,
  'managed storage': (textGb + (notes * vectorBytes) / 1024 ** 3) * MANAGED.openSearchServerlessStorageGbMonth.price,
};

// S3 Vectors, an index per user, beside a keyword engine (these shards with no vector tables).
const s3VectorBytes = vectorBytes + m.s3VectorsMetadataBytes;
const s3Vectors = {
  storage: ((notes * s3VectorBytes) / 1024 ** 3) * MANAGED.s3VectorsStorageGbMonth.price,
  PUTs: ((savesPerDay * s3VectorBytes) / 1024 ** 3) * MANAGED.s3VectorsPutGb.price * month,
  'query requests': queriesPerDay * MANAGED.s3VectorsQueryRequest.price * month,
  'query data processed (a user index a query)':
    queriesPerDay * ((i.notesPerUser * s3VectorBytes) / 1024 ** 4) * MANAGED.s3VectorsQueryTb.price * month,
};
const keywordOnly = total(lance);

console.log(`Inputs: ${JSON.stringify({ ...INPUTS, managed: undefined })}`);
console.log(`Prices: bench/prices.ts, list prices as of ${PRICES_AS_OF}; managed engines' with their sources there\n`);
for (const run of runs) {
  console.log(
    `fold of a shard after 200 rows changed, ${run.name}: ${run.points.map(([rows, seconds]) => `${count(rows)} rows ${seconds} s`).join(', ')}; fitted rows^${run.fitted.toFixed(2)}, taken as rows^${run.exponent.toFixed(2)}`,
  );
  console.log(
    `  a fold within ${i.foldBudgetSeconds} s: shards of at most ${count(run.largestShard)} rows, so ${count(run.shardsNeeded)} shards for ${notes.toExponential(0)} notes: ${run.shardsNeeded <= i.maxShards ? `fits (at most ${i.maxShards})` : `does NOT fit (at most ${i.maxShards} shards)`}; at 64 shards a fold takes ${run.foldSeconds(notes / 64).toFixed(0)} s (timeout 120 s)`,
  );
}
console.log(
  `modelled with ${shards} shards: ${count(perShard)} notes a shard, a fold ${foldSeconds(perShard).toFixed(0)} s, ${foldsPerShardPerDay.toFixed(1)} folds a shard a day (${savesPerShardPerDay.toFixed(0)} saves a shard a day, one fold per ${i.foldRows})`,
);
console.log(
  `on S3: ${storageGb.toFixed(0)} GB (${bytesPerNote.toLocaleString('en-US')} bytes a note with ${i.vectorDimensions}-d vectors)`,
);
console.log(
  `writes: ${count(savesPerDay)} saves a day, ${(savesPerDay / day).toFixed(1)}/s overall, ${(savesPerDay / day / shards).toFixed(3)}/s a shard (one writer a shard: ${i.indexNotesPerSecond} notes/s)`,
);
console.log(`queries: ${count(queriesPerDay)} a day, ${(queriesPerDay / day).toFixed(1)}/s`);
// One scheduled run (one function, every 10 minutes) folds shards one after another, at least one a run.
const scheduledCapacity = i.scheduledRunsPerDay * Math.max(1, Math.floor(i.foldBudgetSeconds / foldSeconds(perShard)));
console.log(
  `folds a day: ${count(shards * foldsPerShardPerDay)} wanted, the scheduled run does ${count(scheduledCapacity)}; the rest wait until a shard's writer folds at 500 rows (${count(savesPerDay / 500)} a day, in the shards' FIFO batches, side by side)`,
);
// A rebuild writes a shard from empty, folding every 500 rows (a write folds the recent table at that
// size), each fold as long as the shard then is: their sum, the integral of the fold's power law.
const rebuildHours = ((perShard / 500) * foldSeconds(perShard)) / (exponent + 1) / 3600;
console.log(
  `a shard's rebuild (reindex): its folds every 500 rows add up to ${rebuildHours.toFixed(0)} hours; one process rebuilding every shard runs them one after another`,
);
const reembedDays = notes / i.builtInEmbedNotesPerSecond / day;
console.log(
  `a full re-embedding with the built-in model: ${reembedDays.toFixed(0)} days of one core; ${(reembedDays / shards).toFixed(1)} days with one writer a shard`,
);
const print = (title: string, parts: Record<string, number>) => {
  console.log(`\n${title}, a month:`);
  for (const [name, value] of Object.entries(parts)) console.log(`  ${name.padEnd(48)} ${dollars(value)}`);
  console.log(`  ${'total'.padEnd(48)} ${dollars(total(parts))}`);
};
print(`LanceDB on S3, ${shards} shards`, lance);
console.log(
  `  per 1,000 notes a month: $${((total(lance) / notes) * 1000).toFixed(5)}; per 1,000 queries: $${(((lance['queries: Lambda'] + lance['queries: S3 GETs']) / (queriesPerDay * month)) * 1000).toFixed(5)}`,
);
print(
  `OpenSearch Serverless, one vector collection (${searchOcus} search OCUs: ${graphGb.toFixed(0)} GB of HNSW graphs in memory)`,
  openSearch,
);
print('S3 Vectors, an index per user (vectors only)', s3Vectors);
console.log(
  `  with these LanceDB shards for keywords (their cost above, vector tables included): ${dollars(keywordOnly + total(s3Vectors))} a month`,
);
