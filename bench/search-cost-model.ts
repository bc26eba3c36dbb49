/**
 * The search index's cost and capacity at 10⁹ notes (100,000 users of 10,000 notes), on paper:
 * `npx tsx bench/search-cost-model.ts`. Its inputs are the constants below: the per-shard figures are
 * the bench's (`npm run bench`, bench/search-shards.ts and bench/search.ts: put a new run's figures
 * here and run it again), the traffic is an assumption, the prices are bench/prices.ts's. It prints
 * the model docs/search.md explains.
 */
import { PRICES, PRICES_AS_OF } from './prices';

const INPUTS = {
  users: 100_000,
  notesPerUser: 10_000,
  shards: 64,
  /**
   * Measured: bytes on disk a note after the fold in a shard of 12,500 notes (bench/search-shards.ts,
   * `BENCH_SHARDS_USERS=125 BENCH_SHARDS_LAYOUTS=1`, the size of a shard in the 200,000-note run), with
   * 64-d vectors; the per-table overhead shrinks as a shard grows (3,857 at 20,000 notes in one table).
   */
  bytesPerNote: 4_495,
  /** The bench's vectors are 64-d; the built-in model's (and Titan's as configured) 512-d: 4 bytes a dimension more a note. */
  benchVectorDimensions: 64,
  vectorDimensions: 512,
  /** Measured: the fold of 19,900 notes took 1.6 s; assumed to grow linearly with a shard's rows. */
  foldMsPerThousandRows: 80,
  /** Measured: a keyword query's p50 at 10,000 notes of a user among 19,900 (ms), warm function. */
  queryMs: 12,
  /** Measured: indexing with vectors, notes a second on one busy core (the built-in model embeds 14 a second). */
  indexNotesPerSecond: 189,
  builtInEmbedNotesPerSecond: 14,
  /** Assumed traffic. */
  savesPerUserPerDay: 10,
  queriesPerUserPerDay: 20,
  foldEveryMinutes: 10,
  /** A FIFO batch of one shard (10 messages) writes one commit: data, deletions, manifest, index deltas. */
  s3PutsPerCommit: 12,
  messagesPerCommit: 10,
  /** Reads a warm query makes: the layout, the manifest checks; index pages mostly cached. */
  s3GetsPerQuery: 4,
  indexerMemoryGb: 1,
  searchMemoryGb: 1,
};

const i = INPUTS;
const notes = i.users * i.notesPerUser;
const perShard = notes / i.shards;
const day = 86_400;
const month = 30;
const savesPerDay = i.users * i.savesPerUserPerDay;
const queriesPerDay = i.users * i.queriesPerUserPerDay;
const foldSeconds = (perShard / 1000) * (i.foldMsPerThousandRows / 1000);
const foldsPerDay = (24 * 60) / i.foldEveryMinutes;

const bytesPerNote = i.bytesPerNote + (i.vectorDimensions - i.benchVectorDimensions) * 4;
const storageGb = (notes * bytesPerNote) / 1024 ** 3;
const monthly = {
  's3 storage': storageGb * PRICES.s3GbMonth,
  'index writes: Lambda':
    ((savesPerDay / i.indexNotesPerSecond) * i.indexerMemoryGb * PRICES.lambdaX86GbSecond +
      (savesPerDay / i.messagesPerCommit) * PRICES.lambdaRequest) *
    month,
  'index writes: SQS FIFO (send, receive, delete)':
    ((savesPerDay * 3) / i.messagesPerCommit) * PRICES.sqsRequest * month,
  'index writes: S3 PUTs': (savesPerDay / i.messagesPerCommit) * i.s3PutsPerCommit * PRICES.s3Put * month,
  'index writes: commit table (DynamoDB)': (savesPerDay / i.messagesPerCommit) * PRICES.dynamoWriteUnit * month,
  'folds: Lambda': i.shards * foldsPerDay * foldSeconds * i.indexerMemoryGb * PRICES.lambdaX86GbSecond * month,
  'queries: Lambda':
    queriesPerDay * (i.queryMs / 1000) * i.searchMemoryGb * PRICES.lambdaX86GbSecond * month +
    queriesPerDay * PRICES.lambdaRequest * month,
  'queries: S3 GETs': queriesPerDay * i.s3GetsPerQuery * PRICES.s3Get * month,
};
const total = Object.values(monthly).reduce((sum, part) => sum + part, 0);
const dollars = (value: number) => `$${value.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;

console.log(`Inputs: ${JSON.stringify(INPUTS)}`);
console.log(`Prices: bench/prices.ts, list prices as of ${PRICES_AS_OF}\n`);
console.log(
  `${notes.toExponential(0)} notes in ${i.shards} shards: ${Math.round(perShard).toLocaleString('en-US')} notes a shard`,
);
console.log(
  `on S3: ${storageGb.toFixed(0)} GB (${bytesPerNote.toLocaleString('en-US')} bytes a note with ${i.vectorDimensions}-d vectors)`,
);
console.log(
  `fold: ${foldSeconds.toFixed(0)} s a shard (indexer timeout 120 s: ${foldSeconds < 120 ? 'fits' : 'does NOT fit'}), ${foldsPerDay} a day per shard`,
);
console.log(
  `writes: ${savesPerDay.toLocaleString('en-US')} saves a day, ${(savesPerDay / day).toFixed(1)}/s overall, ${(savesPerDay / day / i.shards).toFixed(2)}/s a shard (one writer a shard: ${i.indexNotesPerSecond} notes/s)`,
);
console.log(`queries: ${queriesPerDay.toLocaleString('en-US')} a day, ${(queriesPerDay / day).toFixed(1)}/s`);
const shardsForFold = Math.ceil(notes / ((60 * 1000) / i.foldMsPerThousandRows) / 1000);
console.log(
  `shards for a fold within 60 s (half the indexer's timeout) at this fold rate: ${shardsForFold.toLocaleString('en-US')}`,
);
const reembedDays = notes / i.builtInEmbedNotesPerSecond / day;
console.log(
  `a full re-embedding with the built-in model: ${reembedDays.toFixed(0)} days of one core; ${(reembedDays / i.shards).toFixed(0)} days with one writer a shard`,
);
console.log('\nA month:');
for (const [name, value] of Object.entries(monthly)) console.log(`  ${name.padEnd(48)} ${dollars(value)}`);
console.log(`  ${'total'.padEnd(48)} ${dollars(total)}`);
console.log(
  `\nper 1,000 notes a month: $${((total / notes) * 1000).toFixed(5)}; per 1,000 queries: $${(((monthly['queries: Lambda'] + monthly['queries: S3 GETs']) / (queriesPerDay * month)) * 1000).toFixed(5)}`,
);
