import { createServer } from 'node:net';
import { createDynamoClients } from '../functions/adapters/dynamo/client';
import { DynamoAccountStore } from '../functions/adapters/dynamo/account-store';
import { DynamoFeedStore } from '../functions/adapters/dynamo/feed-store';
import { rateLimitPolicy, routeUrl } from '../functions/platform/routes';
import { DEMO_FEED_TAG, ensureDemo, saveCommand } from './demo';
import { JavaMissingError, startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local';
import { startLocalStack, type LocalStack } from './stack';
import { dataDirectory, LOCAL_TABLE_NAME, removeLocalState, writeLocalState } from './state';

/** `npm start`: Gleaner on one machine. Configuration by environment variables (see the README). */

/** Settings passed on to the handlers when set; the same names the Lambda functions read. */
const HANDLER_SETTINGS = [
  'SAVE_RATE_LIMIT',
  'FEED_RATE_LIMIT',
  'FEED_MAX_ENTRIES',
  'FEED_CACHE_SECONDS',
  'CORS_ALLOWED_ORIGINS',
  'GLEANER_FETCH_ALLOW',
  'ICON_REFRESH_DAYS',
];

function handlerSettings(): Record<string, string> {
  return Object.fromEntries(HANDLER_SETTINGS.flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])));
}

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// No CloudWatch here: embedded-metric-format lines would only clutter the console.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

async function main(): Promise<void> {
  const port = Number(process.env.PORT || 3000);
  const dataDir = dataDirectory();
  // A malformed policy fails here, before DynamoDB Local starts.
  rateLimitPolicy('save', process.env);
  rateLimitPolicy('feed', process.env);
  await assertPortFree(port);

  const dynamo = await startDynamoDbLocal({ dataDir });
  let stack: LocalStack | undefined;
  const shutdown = async (code: number) => {
    removeLocalState(dataDir);
    await stack?.stop();
    await dynamo.stop();
    process.exit(code);
  };
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));
  // Without its database every request would be a 500: say why and stop, rather than serve errors.
  dynamo.onUnexpectedExit((reason) => {
    console.error(`gleaner: DynamoDB Local stopped unexpectedly (${reason}); stopping too. The data is kept in ${dataDir}: run npm start again.`);
    void shutdown(1);
  });

  try {
    stack = await startLocalStack({
      dynamoEndpoint: dynamo.endpoint,
      tableName: LOCAL_TABLE_NAME,
      port,
      env: { ...handlerSettings(), LOG_LEVEL: process.env.LOG_LEVEL || 'WARN' },
      // GLEANER_ENRICHMENT=off: no background fetching of saved pages (e.g. when working offline).
      startWorkers: process.env.GLEANER_ENRICHMENT !== 'off',
      log: (line) => console.log(line),
    });
    writeLocalState(dataDir, { pid: process.pid, baseUrl: stack.baseUrl, dynamoEndpoint: dynamo.endpoint, dynamoPid: dynamo.pid, tableName: LOCAL_TABLE_NAME });
    await printWelcome(stack, dynamo, dataDir);
  } catch (error) {
    console.error(`gleaner: could not start: ${error instanceof Error ? error.message : String(error)}`);
    await shutdown(1);
  }
}

async function printWelcome(stack: LocalStack, dynamo: DynamoDbLocal, dataDir: string): Promise<void> {
  const { doc, client } = createDynamoClients({ endpoint: dynamo.endpoint, region: 'local' });
  const { demo, created } = await ensureDemo(dataDir, { accounts: new DynamoAccountStore(doc, LOCAL_TABLE_NAME), feeds: new DynamoFeedStore(doc, LOCAL_TABLE_NAME) });
  const feedUrl = (routeId: string) => routeUrl(stack.baseUrl, routeId, { feed_id: demo.feedId });
  client.destroy();
  console.log(`
Gleaner is running at ${stack.baseUrl}
  data:          ${dataDir} (DynamoDB Local at ${dynamo.endpoint})
  demo user:     ${demo.userId}${created ? ' (created now)' : ''}
  demo token:    ${demo.token}  (id ${demo.tokenId})
  demo feed:     public, notes tagged #${DEMO_FEED_TAG} (id ${demo.feedId})
                 JSON ${feedUrl('GetPublishedFeed')}
                 RSS  ${feedUrl('GetPublishedFeedRss')}

Save a page:

${saveCommand(stack.baseUrl, demo.token)}

Then read it in the demo feed (JSON, or RSS for a feed reader):

curl -sS ${feedUrl('GetPublishedFeed')}

Manage users, tokens, feeds, notes and bookmarks with \`npx gleaner --help\`. Stop with Ctrl-C.
`);
}

function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new Error(`port ${port} is already in use; set PORT to a free port (e.g. PORT=3100 npm start)`) : error),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

main().catch((error: unknown) => {
  const message = error instanceof JavaMissingError || error instanceof Error ? error.message : String(error);
  console.error(`gleaner: could not start: ${message}`);
  process.exit(1);
});
