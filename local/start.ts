import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { DynamoAccountStore } from '../functions/adapters/dynamo/account-store';
import { createDynamoClients } from '../functions/adapters/dynamo/client';
import { ensureTable } from '../functions/adapters/dynamo/create-table';
import { DynamoFeedStore } from '../functions/adapters/dynamo/feed-store';
import { routeUrl } from '../functions/platform/routes';
import { rateLimitSettings, type Setting, setting, settings } from '../functions/platform/settings';
import { keepServingOnStrayErrors } from './api-server';
import { DataFolderInUseError, dynamoDbLocalsServing, lockDataFolder } from './data-lock';
import { DEMO_FEED_TAG, ensureDemo, saveCommand } from './demo';
import { type DynamoDbLocal, startDynamoDbLocal, stopProcess } from './dynamodb-local';
import { type LocalStack, startLocalStack } from './stack';
import { dataDirectory, LOCAL_TABLE_NAME, removeLocalState, searchIndexFolder, writeLocalState } from './state';

/** `npm start`: Gleaner on one machine. Configuration by environment variables (see the README). */

/** Settings an operator may give `npm start`, passed on to the handlers when set (the names the Lambda functions read). */
const HANDLER_SETTINGS = [
  rateLimitSettings.save,
  rateLimitSettings.feed,
  settings.feedMaxEntries,
  settings.feedCacheSeconds,
  settings.corsAllowedOrigins,
  settings.fetchAllow,
  settings.iconRefreshDays,
  settings.embeddings,
  settings.embeddingsUrl,
  settings.embeddingsModel,
  settings.embeddingsApiKey,
  settings.mcpAllowedOrigins,
  settings.mcpClientRateLimit,
].map((definition) => definition.name);

function handlerSettings(): Record<string, string> {
  return Object.fromEntries(
    HANDLER_SETTINGS.flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])),
  );
}

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// No CloudWatch here: embedded-metric-format lines would only clutter the console.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

async function main(): Promise<void> {
  const port = listenPort(process.env.PORT);
  const dataDir = dataDirectory();
  // A malformed setting fails here, before DynamoDB Local starts.
  const checked: Setting<unknown>[] = [
    ...Object.values(rateLimitSettings),
    settings.feedMaxEntries,
    settings.feedCacheSeconds,
    settings.iconRefreshDays,
  ];
  for (const definition of checked) setting(process.env, definition);
  const lock = lockDataFolder(dataDir);
  // Aborted by shutdown: a DynamoDB Local still starting is stopped too, not left running.
  const startup = new AbortController();
  let dynamoStarting: Promise<DynamoDbLocal> | undefined;
  let stack: LocalStack | undefined;
  let stopping: Promise<void> | undefined;
  const shutdown = (code: number) =>
    (stopping ??= (async () => {
      startup.abort();
      removeLocalState(dataDir);
      await stack?.stop();
      await dynamoStarting?.then(
        (dynamo) => dynamo.stop(),
        () => undefined,
      );
      runningDynamo = undefined;
      lock.release();
      process.exit(code);
    })());
  // An error nothing caught is its request's 500 and a line on stderr, never the end of the server.
  keepServingOnStrayErrors((line) => console.error(`gleaner: ${line}`));
  // However the process ends (process.exit anywhere, a fatal error), its DynamoDB Local ends with it.
  let runningDynamo: DynamoDbLocal | undefined;
  process.once('exit', () => {
    if (!runningDynamo) return;
    try {
      process.kill(runningDynamo.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  });
  // Ctrl-C, a process manager's SIGTERM and a closed terminal all stop the whole tree.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => void shutdown(0));
  // npm or tsx killed outright (SIGKILL) cannot pass a signal on: notice being orphaned instead.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && void shutdown(0), 500).unref();

  try {
    for (const pid of dynamoDbLocalsServing(dataDir)) {
      console.error(
        `gleaner: stopping DynamoDB Local (pid ${pid}) left running on ${dataDir} by an npm start that was killed`,
      );
      await stopProcess(pid);
    }
    await assertPortFree(port);
    dynamoStarting = startDynamoDbLocal({ dataDir, signal: startup.signal });
    const dynamo = await dynamoStarting;
    runningDynamo = dynamo;
    // Without its database every request would be a 500: say why and stop, rather than serve errors.
    dynamo.onUnexpectedExit((reason) => {
      console.error(
        `gleaner: DynamoDB Local stopped unexpectedly (${reason}); stopping too. The data is kept in ${dataDir}: run npm start again.`,
      );
      void shutdown(1);
    });
    const demo = await prepareDemo(dynamo, dataDir);
    stack = await startLocalStack({
      dynamoEndpoint: dynamo.endpoint,
      tableName: LOCAL_TABLE_NAME,
      port,
      env: {
        ...handlerSettings(),
        LOG_LEVEL: process.env.LOG_LEVEL || 'WARN',
      },
      // GLEANER_ENRICHMENT=off: no background fetching of saved pages (e.g. when working offline).
      startWorkers: process.env.GLEANER_ENRICHMENT !== 'off',
      stateDir: dataDir,
      searchIndexUri: searchIndexFolder(dataDir),
      log: (line) => console.log(line),
    });
    writeLocalState(dataDir, {
      pid: process.pid,
      baseUrl: stack.baseUrl,
      webBaseUrl: stack.webBaseUrl,
      dynamoEndpoint: dynamo.endpoint,
      dynamoPid: dynamo.pid,
      tableName: LOCAL_TABLE_NAME,
    });
    printWelcome(stack, dynamo, dataDir, demo);
  } catch (error) {
    // Told to stop while starting: shutdown is already under way, and this is no failure to report.
    if (startup.signal.aborted) return;
    console.error(`gleaner: could not start: ${error instanceof Error ? error.message : String(error)}`);
    await shutdown(1);
  }
}

/** PORT as a TCP port, or a sentence saying what it must be. */
function listenPort(value: string | undefined): number {
  if (value === undefined || value === '') return 3000;
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port < 1 || port > 65535) {
    throw new Error(
      `PORT must be a whole number from 1 to 65535 (got ${JSON.stringify(value)}), e.g. PORT=3100 npm start`,
    );
  }
  return port;
}

/** The CLI by its absolute path: it runs from any folder, and nothing is looked up on a registry. */
const CLI_SCRIPT = fileURLToPath(new URL('../cli/gleaner.mjs', import.meta.url));

/** The demo account, made on first start: before the stack starts, so the landing page can link its feed. */
async function prepareDemo(dynamo: DynamoDbLocal, dataDir: string): Promise<Awaited<ReturnType<typeof ensureDemo>>> {
  const { doc, client } = createDynamoClients({ endpoint: dynamo.endpoint, region: 'local' });
  try {
    await ensureTable(client, LOCAL_TABLE_NAME);
    return await ensureDemo(dataDir, {
      accounts: new DynamoAccountStore(doc, LOCAL_TABLE_NAME),
      feeds: new DynamoFeedStore(doc, LOCAL_TABLE_NAME),
    });
  } finally {
    client.destroy();
  }
}

function printWelcome(
  stack: LocalStack,
  dynamo: DynamoDbLocal,
  dataDir: string,
  { demo, created }: Awaited<ReturnType<typeof ensureDemo>>,
): void {
  const feedUrl = (routeId: string) => routeUrl(stack.baseUrl, routeId, { feed_id: demo.feedId });
  console.log(`
Open ${stack.webBaseUrl} to sign up (mail, with its links, is printed here and kept in ${stack.mailFolder})

Gleaner is running at ${stack.baseUrl}
  data:          ${dataDir} (DynamoDB Local at ${dynamo.endpoint})
  for the CLI:   paste into another shell; then \`gleaner\` works from any folder and finds this stack:
                 export GLEANER_DATA_DIR=${shellQuoted(dataDir)}
                 alias gleaner=${shellQuoted(`node ${CLI_SCRIPT}`)}
  demo user:     ${demo.userId}${created ? ' (created now)' : ''}
  demo token:    ${demo.token}  (id ${demo.tokenId})
  demo feed:     public, notes tagged #${DEMO_FEED_TAG} (id ${demo.feedId})
                 JSON ${feedUrl('GetPublishedFeed')}
                 RSS  ${feedUrl('GetPublishedFeedRss')}

Save a page:

${saveCommand(stack.baseUrl, demo.token)}

Then read it in the demo feed (JSON, or RSS for a feed reader):

curl -sS ${feedUrl('GetPublishedFeed')}

Manage users, tokens, feeds, notes and bookmarks with \`gleaner --help\` (\`npx gleaner\` only
in the project folder: elsewhere npx would look for a package of that name on the registry).
Stop with Ctrl-C.
`);
}

const shellQuoted = (text: string) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);

function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`port ${port} is already in use; set PORT to a free port (e.g. PORT=3100 npm start)`)
          : error,
      ),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(
    error instanceof DataFolderInUseError ? `gleaner: not started: ${message}` : `gleaner: could not start: ${message}`,
  );
  process.exit(1);
});
