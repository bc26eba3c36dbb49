import { randomUUID } from 'node:crypto';
import { build } from 'esbuild';
import { DynamoAccountStore } from '../functions/adapters/dynamo/account-store';
import { createDynamoClients } from '../functions/adapters/dynamo/client';
import { DynamoFeedStore } from '../functions/adapters/dynamo/feed-store';
import { newAccessToken, newUser } from '../functions/core/accounts';
import { newFeedRecord } from '../functions/core/feed-settings';
import { routes, routeUrl } from '../functions/platform/routes';
import { scheduledTasks, workers } from '../functions/platform/workers';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { startLocalStack } from '../local/stack';

/**
 * `npm run bench`: latency of the HTTP routes through the local stack (DynamoDB Local on this
 * machine, so absolute numbers are the laptop's, not Lambda's) and the size of each Lambda bundle.
 * Prints a table and exits 1 when a target is missed.
 */

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

interface Result {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly target: number;
}

const results: Result[] = [];

async function timed(name: string, count: number, target: number, request: (i: number) => Promise<Response>): Promise<void> {
  const durations: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await request(i);
    await response.arrayBuffer();
    if (response.status >= 400) throw new Error(`${name}: HTTP ${response.status}`);
    durations.push(performance.now() - started);
  }
  durations.sort((a, b) => a - b);
  results.push({ name: `${name} p50`, value: durations[Math.floor(count * 0.5)]!, unit: 'ms', target: target / 2 });
  results.push({ name: `${name} p95`, value: durations[Math.floor(count * 0.95)]!, unit: 'ms', target });
}

async function latency(): Promise<void> {
  const dynamo = await startDynamoDbLocal();
  const tableName = `bench-${randomUUID()}`;
  const stack = await startLocalStack({ dynamoEndpoint: dynamo.endpoint, tableName, startWorkers: false, env: { LOG_LEVEL: 'SILENT', SAVE_RATE_LIMIT: '100000;w=60', FEED_RATE_LIMIT: '100000;w=60' } });
  try {
    const { doc } = createDynamoClients({ endpoint: dynamo.endpoint, region: 'local' });
    const accounts = new DynamoAccountStore(doc, tableName);
    const user = newUser({ id: randomUUID(), name: 'Bench', plan: 'pro', now: new Date() });
    await accounts.createUser(user);
    const token = newAccessToken({ id: randomUUID(), userId: user.id, now: new Date() });
    await accounts.createToken(token.record, token.hash);
    const feed = newFeedRecord({ id: randomUUID(), userId: user.id, settings: { title: 'Bench', tags: ['bench'], sharing: 'public' }, now: new Date() });
    await new DynamoFeedStore(doc, tableName).createFeed(feed);

    const save = (body: object) =>
      fetch(`${stack.baseUrl}/api/v1/bookmarks/save`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token.secret}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    await timed('save, new page', 200, 150, (i) => save({ url: `https://bench.test/page/${i}`, selection: `highlight ${i}`, comment: '#bench', description: 'd' }));
    await timed('save, same page again', 100, 150, (i) => save({ url: 'https://bench.test/page/0', selection: `again ${i}` }));
    await timed('feed JSON (50 entries)', 100, 150, () => fetch(routeUrl(stack.baseUrl, 'GetPublishedFeed', { feed_id: feed.id })));
    await timed('feed RSS (50 entries)', 100, 150, () => fetch(routeUrl(stack.baseUrl, 'GetPublishedFeedRss', { feed_id: feed.id })));
  } finally {
    await stack.stop();
    await dynamo.stop();
  }
}

/** Bundled as the CDK stack bundles them (ESM, minified; the AWS SDK comes with the runtime). */
async function bundleSizes(): Promise<void> {
  for (const { id, entry } of [...routes, ...workers, ...scheduledTasks]) {
    const output = await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      mainFields: ['module', 'main'],
      external: ['@aws-sdk/*'],
      write: false,
      logLevel: 'silent',
    });
    results.push({ name: `bundle ${id}`, value: output.outputFiles[0]!.contents.length / 1024, unit: 'KiB', target: 1024 });
  }
}

await bundleSizes();
await latency();
let missed = 0;
for (const { name, value, unit, target } of results) {
  const over = value > target;
  if (over) missed++;
  console.log(`${name.padEnd(34)} ${value.toFixed(1).padStart(9)} ${unit.padEnd(4)} target ≤ ${target} ${over ? '  MISSED' : ''}`);
}
process.exit(missed ? 1 : 0);
