import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AttributeValue, ScanCommand } from '@aws-sdk/client-dynamodb';
import { createDynamoClients } from '../functions/adapters/dynamo/client';
import { LanceSearchIndex } from '../functions/adapters/search/lance-index';
import { MAX_ARTICLE_CHUNKS, searchDocument } from '../functions/core/search/document';
import { testEmbedder } from '../functions/core/search/embedder';
import { indexNotes } from '../functions/core/search/indexer';
import { searchNotes } from '../functions/core/search/search';
import { FUNCTION_MEMORY_MB } from '../lib/app-function';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { startLocalStack } from '../local/stack';
import { measureArticles } from './articles';
import { startDynamoRecorder } from './dynamo-recorder';
import { fixture, type OperationName, operations } from './operations';
import { syntheticNotes, uuidOf } from './search';

/**
 * `npm run cost`: dollars per million saves and per million feed reads, from what one run through
 * the local stack measures (DynamoDB capacity units, item sizes, handler durations, answer sizes)
 * and the published us-east-1 prices below. Lambda durations are this machine's, a stand-in for
 * Lambda's at the configured memory on arm64.
 */

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

/** Published us-east-1 list prices (on-demand, beyond free tiers), as of this date. Re-check before relying on them. */
const PRICES_AS_OF = '2024-11-01';
const PRICES = {
  lambdaArmGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  apiGatewayRestRequest: 3.5 / 1e6,
  sqsRequest: 0.4 / 1e6,
  cloudFrontHttpsRequest: 0.01 / 1e4,
  cloudFrontTransferGb: 0.085,
  lambdaX86GbSecond: 0.0000166667,
  titanV2PerThousandTokens: 0.00002,
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
  s3GbMonth: 0.023,
} as const;
const perMillion = (price: number) => `$${(price * 1e6).toFixed(3)} per million`;
const PRICE_UNITS: Record<keyof typeof PRICES, (price: number) => string> = {
  lambdaArmGbSecond: (price) => `$${price} per GB-second`,
  lambdaRequest: perMillion,
  dynamoWriteUnit: perMillion,
  dynamoReadUnit: perMillion,
  apiGatewayRestRequest: perMillion,
  sqsRequest: perMillion,
  cloudFrontHttpsRequest: perMillion,
  cloudFrontTransferGb: (price) => `$${price} per GB`,
  lambdaX86GbSecond: (price) => `$${price} per GB-second`,
  titanV2PerThousandTokens: (price) => `$${price} per 1,000 tokens`,
  s3Put: perMillion,
  s3Get: perMillion,
  s3GbMonth: (price) => `$${price} per GB-month`,
};
/** Share of feed reads CloudFront answers from its cache (they never reach API Gateway or Lambda). */
const CDN_HIT_RATIO = 0.9;
const SAMPLES = 30;

interface Measured {
  readUnits: number;
  writeUnits: number;
  durationMs: number;
  answerBytes: number;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** DynamoDB's item size: attribute names plus values (numbers ~1 byte per 2 digits, +1). */
function itemBytes(item: Record<string, AttributeValue>): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value), 0);
}
function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return Math.ceil(value.N.replace(/^-|\./g, '').length / 2) + 1;
  if (value.B !== undefined) return value.B.length;
  if (value.SS) return value.SS.reduce((sum, entry) => sum + Buffer.byteLength(entry), 0);
  if (value.L) return 3 + value.L.reduce((sum, entry) => sum + 1 + valueBytes(entry), 0);
  if (value.M) return 3 + itemBytes(value.M) + Object.keys(value.M).length;
  return 1;
}

const dynamo = await startDynamoDbLocal();
const recorder = await startDynamoRecorder(dynamo.endpoint);
const tableName = `cost-${randomUUID()}`;
const stack = await startLocalStack({
  dynamoEndpoint: recorder.endpoint,
  tableName,
  startWorkers: false,
  env: { LOG_LEVEL: 'SILENT', SAVE_RATE_LIMIT: '100000;w=60', FEED_RATE_LIMIT: '100000;w=60' },
});
const { client, doc } = createDynamoClients({ endpoint: dynamo.endpoint, region: 'local' });
const measured = new Map<OperationName, Measured>();
let itemSizes: [string, number][] = [];
try {
  const calls = operations(stack, await fixture(doc, tableName));
  // Enough saves first that the feeds answer a full 50 entries.
  for (let i = 0; i < 50; i++) await (await calls['save, new page'](i)).arrayBuffer();
  for (const [name, call] of Object.entries(calls) as [OperationName, (i: number) => Promise<Response>][]) {
    await (await call(-1)).arrayBuffer();
    recorder.reset();
    const durations: number[] = [];
    let answerBytes = 0;
    for (let i = 0; i < SAMPLES; i++) {
      const started = performance.now();
      const response = await call(i);
      answerBytes += (await response.arrayBuffer()).byteLength;
      durations.push(performance.now() - started);
      if (response.status >= 400) throw new Error(`${name}: HTTP ${response.status}`);
    }
    measured.set(name, {
      readUnits: recorder.units.read / SAMPLES,
      writeUnits: recorder.units.write / SAMPLES,
      durationMs: median(durations),
      answerBytes: answerBytes / SAMPLES,
    });
  }
  const { Items = [] } = await client.send(new ScanCommand({ TableName: tableName }));
  const byType = new Map<string, number[]>();
  for (const item of Items) {
    const type = item.type?.S ?? 'RateLimitWindow';
    byType.set(type, [...(byType.get(type) ?? []), itemBytes(item)]);
  }
  itemSizes = [...byType].map(([type, sizes]) => [type, sizes.reduce((a, b) => a + b, 0) / sizes.length]);
} finally {
  client.destroy();
  await stack.stop();
  await recorder.close();
  await dynamo.stop();
}

const lambda = (durationMs: number) =>
  PRICES.lambdaRequest + (Math.ceil(durationMs) / 1000) * (FUNCTION_MEMORY_MB / 1024) * PRICES.lambdaArmGbSecond;
const dynamoCost = ({ readUnits, writeUnits }: Measured) =>
  readUnits * PRICES.dynamoReadUnit + writeUnits * PRICES.dynamoWriteUnit;

/** Per request reaching the origin: API Gateway, Lambda, DynamoDB (and SQS for a new page's enrichment request). */
function originCost(name: OperationName): { perRequest: number; parts: string } {
  const m = measured.get(name)!;
  const sqs = name === 'save, new page' ? PRICES.sqsRequest : 0;
  const parts = { apiGateway: PRICES.apiGatewayRestRequest, lambda: lambda(m.durationMs), dynamo: dynamoCost(m), sqs };
  return {
    perRequest: Object.values(parts).reduce((a, b) => a + b, 0),
    parts: Object.entries(parts)
      .filter(([, v]) => v)
      .map(([k, v]) => `${k} $${(v * 1e6).toFixed(2)}`)
      .join(', '),
  };
}

/** A feed read: every read pays CloudFront; only the misses reach the origin. */
function feedCost(name: OperationName): { perRequest: number; parts: string } {
  const m = measured.get(name)!;
  const cdn = PRICES.cloudFrontHttpsRequest + (m.answerBytes / 1024 ** 3) * PRICES.cloudFrontTransferGb;
  const origin = originCost(name);
  return {
    perRequest: cdn + (1 - CDN_HIT_RATIO) * origin.perRequest,
    parts: `CloudFront $${(cdn * 1e6).toFixed(2)}, ${((1 - CDN_HIT_RATIO) * 100).toFixed(0)}% misses × (${origin.parts})`,
  };
}

console.log(`Measured through the local stack (median of ${SAMPLES}; Lambda ${FUNCTION_MEMORY_MB} MB arm64):`);
for (const [name, m] of measured) {
  console.log(
    `  ${name.padEnd(24)} ${m.readUnits.toFixed(1)} RRU  ${m.writeUnits.toFixed(1)} WRU  ${m.durationMs.toFixed(1)} ms  ${(m.answerBytes / 1024).toFixed(1)} KiB answer`,
  );
}
console.log('Average item sizes:');
for (const [type, bytes] of itemSizes) console.log(`  ${type.padEnd(24)} ${bytes.toFixed(0)} B`);
console.log(`\nPrices (us-east-1, published list prices as of ${PRICES_AS_OF}):`);
for (const [name, price] of Object.entries(PRICES))
  console.log(`  ${name.padEnd(24)} ${PRICE_UNITS[name as keyof typeof PRICES](price)}`);
console.log('\nDollars per million:');
for (const [label, cost] of [
  ['saves (new page)', originCost('save, new page')],
  ['saves (same page again)', originCost('save, same page again')],
  [`feed reads JSON (${CDN_HIT_RATIO * 100}% CDN hits)`, feedCost('feed JSON (50 entries)')],
  [`feed reads RSS (${CDN_HIT_RATIO * 100}% CDN hits)`, feedCost('feed RSS (50 entries)')],
] as const) {
  console.log(`  ${label.padEnd(34)} $${(cost.perRequest * 1e6).toFixed(2).padStart(7)}   ${cost.parts}`);
}

// ---- Search ---------------------------------------------------------------------------------------

/**
 * Search per 1,000 notes indexed and per 1,000 queries. The indexer's time per note and a query's
 * time are measured here (LanceDB in a local folder, with vectors); the S3 request counts per
 * commit and per query and the tokens per note are assumptions, written beside the figures.
 */
const SEARCH_NOTES = 500;
/** Objects a commit of one batch writes: data and deletion files, the manifest, the commit record, index deltas. */
const S3_PUTS_PER_BATCH = 12;
const NOTES_PER_BATCH = 100;
/** Reads a query makes on a warm function: the manifest check (read consistency), index pages mostly cached. */
const S3_GETS_PER_QUERY = 3;
/** Titan tokens for a note's text (title, description, highlights, comment) and for a query. */
const TOKENS_PER_NOTE = 400;
const TOKENS_PER_QUERY = 8;
const INDEXER_MEMORY_GB = 1;

const searchFolder = mkdtempSync(join(tmpdir(), 'gleaner-cost-search-'));
const searchIndex = await LanceSearchIndex.open({ uri: searchFolder });
try {
  const user = uuidOf('cost-user');
  const notes = syntheticNotes(user, SEARCH_NOTES, 3);
  const embedder = testEmbedder(64);
  const indexStarted = performance.now();
  for (let start = 0; start < notes.length; start += NOTES_PER_BATCH)
    await indexNotes({ index: searchIndex, embedder }, notes.slice(start, start + NOTES_PER_BATCH));
  const msPerNote = (performance.now() - indexStarted) / notes.length;
  await searchIndex.optimize();
  const queryTimes: number[] = [];
  for (const note of notes.slice(0, 50)) {
    const began = performance.now();
    await searchNotes({ index: searchIndex, embedder }, user, note.title.split(' ').slice(0, 2).join(' '), {
      mode: 'hybrid',
    });
    queryTimes.push(performance.now() - began);
  }
  const queryMs = median(queryTimes);
  const bytesPerNote = JSON.stringify(notes.map(searchDocument)).length / notes.length + 64 * 4;
  const perThousandNotes = {
    lambda:
      (1000 * msPerNote * INDEXER_MEMORY_GB * PRICES.lambdaX86GbSecond) / 1000 +
      (1000 / NOTES_PER_BATCH) * PRICES.lambdaRequest,
    embeddings: (1000 * TOKENS_PER_NOTE * PRICES.titanV2PerThousandTokens) / 1000,
    s3: (1000 / NOTES_PER_BATCH) * S3_PUTS_PER_BATCH * PRICES.s3Put,
    storageMonth: ((1000 * bytesPerNote) / 1024 ** 3) * PRICES.s3GbMonth,
  };
  const perThousandQueries = {
    lambda:
      1000 * ((queryMs * (FUNCTION_MEMORY_MB / 1024)) / 1000) * PRICES.lambdaArmGbSecond + 1000 * PRICES.lambdaRequest,
    embeddings: (1000 * TOKENS_PER_QUERY * PRICES.titanV2PerThousandTokens) / 1000,
    s3: 1000 * S3_GETS_PER_QUERY * PRICES.s3Get,
  };
  const dollars = (value: number) => `$${value.toFixed(4)}`;
  const sum = (parts: Record<string, number>) => Object.values(parts).reduce((total, part) => total + part, 0);
  console.log(
    `\nSearch (measured here: ${msPerNote.toFixed(1)} ms to index a note with its vector, ${queryMs.toFixed(1)} ms a hybrid query):`,
  );
  console.log(
    `  per 1,000 notes indexed            ${dollars(sum(perThousandNotes))}   Lambda ${dollars(perThousandNotes.lambda)}, Titan V2 ${dollars(perThousandNotes.embeddings)} (${TOKENS_PER_NOTE} tokens a note), S3 PUTs ${dollars(perThousandNotes.s3)}, then ${dollars(perThousandNotes.storageMonth)} a month stored`,
  );
  console.log(
    `  per 1,000 queries                  ${dollars(sum(perThousandQueries))}   Lambda ${dollars(perThousandQueries.lambda)}, Titan V2 ${dollars(perThousandQueries.embeddings)}, S3 GETs ${dollars(perThousandQueries.s3)} (${S3_GETS_PER_QUERY} a query, assumed)`,
  );
} finally {
  searchIndex.close();
  rmSync(searchFolder, { recursive: true, force: true });
}

// ---- Kept articles (issue 32) ---------------------------------------------------------------------

/**
 * Per 1,000 pages kept: the page worker's extra time (measured here over the article corpus), the
 * bucket's PUTs (the content and each kept image) and the bytes stored a month. Images are counted
 * at an assumed 120 KB each; a page keeps at most 20 of at most 2 MB.
 */
{
  const measured = await measureArticles();
  const msPerPage = measured.times.reduce((total, time) => total + time, 0) / measured.times.length;
  const perThousandPages = {
    lambda: 1000 * ((msPerPage * (FUNCTION_MEMORY_MB / 1024)) / 1000) * PRICES.lambdaArmGbSecond,
    s3: 1000 * (1 + measured.images) * PRICES.s3Put,
    storageMonth: ((1000 * (measured.contentBytes + measured.imageBytes)) / 1024 ** 3) * PRICES.s3GbMonth,
  };
  // The search index's share: the indexer reads each kept page once (one GET), embeds its chunks (at most
  // MAX_ARTICLE_CHUNKS of 200 words, about 260 Titan tokens each) and keeps its text and chunk vectors.
  const chunkTokens = MAX_ARTICLE_CHUNKS * 260;
  const perThousandIndexed = {
    s3: 1000 * PRICES.s3Get,
    embeddings: (1000 * chunkTokens * PRICES.titanV2PerThousandTokens) / 1000,
    storageMonth: ((1000 * (measured.contentBytes / 2 + MAX_ARTICLE_CHUNKS * 512 * 4)) / 1024 ** 3) * PRICES.s3GbMonth,
  };
  const dollars = (value: number) => `$${value.toFixed(4)}`;
  console.log(
    `\nKept articles (measured here over ${measured.pages} corpus pages: ${msPerPage.toFixed(1)} ms a page, ${(measured.contentBytes / 1024).toFixed(0)} KiB of content and ${measured.images.toFixed(1)} images a page):`,
  );
  console.log(
    `  per 1,000 pages kept               ${dollars(perThousandPages.lambda + perThousandPages.s3)}   page worker Lambda ${dollars(perThousandPages.lambda)}, S3 PUTs ${dollars(perThousandPages.s3)}, then ${dollars(perThousandPages.storageMonth)} a month stored`,
  );
  console.log(
    `  their search, per 1,000 pages      ${dollars(perThousandIndexed.s3 + perThousandIndexed.embeddings)}   indexer S3 GETs ${dollars(perThousandIndexed.s3)}, Titan V2 ${dollars(perThousandIndexed.embeddings)} (at most ${chunkTokens} tokens of chunks a page), then ${dollars(perThousandIndexed.storageMonth)} a month in the index (text and chunk vectors, assumed)`,
  );
}
