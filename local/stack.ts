import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { createDynamoClients } from '../functions/adapters/dynamo/client';
import { ensureTable } from '../functions/adapters/dynamo/create-table';
import { deleteExpiredTrash } from '../functions/adapters/dynamo/trash-expiry';
import { StreamReader } from '../functions/adapters/search/stream-reader';
import { fullQuota, rateLimitHeaders } from '../functions/core/contract/rate-limit';
import { retirementHeaders } from '../functions/core/contract/retirement';
import type { Environment } from '../functions/platform/env';
import {
  checkRouteTable,
  isRateLimited,
  type RouteDefinition,
  routeEnvironment,
  routes,
} from '../functions/platform/routes';
import { rateLimitSettings, setting, settings } from '../functions/platform/settings';
import { type QueueName, queues, scheduledTasks, streamConsumers, workers } from '../functions/platform/workers';
import { buildWebAssets } from '../web/build';
import { createApiServer, type LocalRoute, type ProxyHandler } from './api-server';
import { lambdaContext } from './lambda-runtime';
import { LocalQueue, type SqsConsumer } from './queue';
import { LocalSqsEndpoint } from './sqs-endpoint';
import { type StreamPoller, startStreamPoller } from './stream-poller';

/**
 * The whole service on one machine: every route of the shared route table served by its real handler
 * module, DynamoDB Local for storage and in-process queues with SQS semantics for background work.
 */

export interface LocalStackOptions {
  readonly dynamoEndpoint: string;
  readonly tableName: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Extra handler settings (SAVE_RATE_LIMIT, CORS_ALLOWED_ORIGINS, GLEANER_FETCH_ALLOW, LOG_LEVEL, …). */
  readonly env?: Environment;
  /** How often the scheduled tasks run (EventBridge's rate, shortened for a single machine). */
  readonly scheduleEverySeconds?: number;
  /** False leaves queued messages undelivered (for inspecting what the API enqueued). */
  readonly startWorkers?: boolean;
  readonly log?: (line: string) => void;
  /** The route table to serve; the real one unless a test marks a route (e.g. as retiring). */
  readonly routes?: readonly RouteDefinition[];
  /**
   * Where the local stack keeps what SES and Secrets Manager keep when deployed: mail as files
   * (`mail/`) and the authorization server's generated keys (`oauth-keys.json`). A fresh temporary
   * folder when unset.
   */
  readonly stateDir?: string;
  /** Folder of the search index; the stream consumers (the search indexer) run when it is given. */
  readonly searchIndexUri?: string;
}

export interface LocalStack {
  readonly baseUrl: string;
  /** The web app's address (the same server as `baseUrl`, by name). */
  readonly webBaseUrl: string;
  readonly env: Environment;
  readonly queues: Readonly<Record<QueueName, LocalQueue>>;
  /** The folder mail is written to (one JSON file per message). */
  readonly mailFolder: string;
  /** Runs a scheduled task now, as its schedule would (e.g. the enrichment outbox sweep). */
  runScheduledTask(id: string): Promise<unknown>;
  stop(): Promise<void>;
}

type ModuleWithHandler<H> = { createHandler(env: Environment): H };
type StreamConsumer = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;

/** A stream consumer's time for one invocation (the indexer's, in lib/search.ts). */
const STREAM_CONSUMER_TIMEOUT_MS = 120_000;

/** The local stand-in for DynamoDB's TTL on notes in the Trash, run as a scheduled task. */
export const TRASH_EXPIRY_TASK = 'TrashExpiry';

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const routeTable = options.routes ?? routes;
  checkRouteTable(routeTable);
  const { client, doc } = createDynamoClients({ endpoint: options.dynamoEndpoint, region: 'local' });
  // The stream is read only by the consumers that run with a search index.
  await ensureTable(client, options.tableName, { stream: options.searchIndexUri !== undefined });

  const localQueues = Object.fromEntries(
    Object.values(queues).map((queue) => [
      queue.name,
      // Short visibility timeout: a failed message comes back in seconds rather than minutes.
      new LocalQueue({
        name: `gleaner-${queue.name}${queue.fifo ? '.fifo' : ''}`,
        visibilityTimeoutSeconds: 5,
        maxReceiveCount: queue.maxReceiveCount,
        fifo: queue.fifo ?? false,
      }),
    ]),
  ) as Record<QueueName, LocalQueue>;
  const sqs = await LocalSqsEndpoint.start(Object.values(localQueues));

  const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), 'gleaner-local-'));
  const mailFolder = join(stateDir, 'mail');
  // Retries back off from 1 s instead of 30 s, and the outbox is swept after 30 s instead of 2 min.
  const handlerEnv: Environment = {
    LOG_LEVEL: 'WARN',
    RETRY_BASE_SECONDS: '1',
    OUTBOX_GRACE_SECONDS: '30',
    [settings.mailFolder.name]: mailFolder,
    [settings.oauthKeysFile.name]: join(stateDir, 'oauth-keys.json'),
    // Kept articles and their images, as the bucket holds them on AWS.
    [settings.articleStore.name]: join(stateDir, 'articles'),
    // Import uploads, which this server receives as the bucket's presigned PUT would.
    [settings.importUploads.name]: join(stateDir, 'uploads'),
    ...options.env,
  };
  let localRoutes: LocalRoute[] | null = null;
  const assets = buildWebAssets();
  const server = createApiServer({
    routes: () => localRoutes,
    corsOrigins: setting(handlerEnv, settings.corsAllowedOrigins),
    assets: () => assets,
    uploadFolder: setting(handlerEnv, settings.importUploads),
    log: options.log,
  });
  const port = await listen(server, options.port ?? 0);
  const ipv6Loopback = await alsoOnIpv6Loopback(server, port);
  const baseUrl = `http://127.0.0.1:${port}`;
  // The same server by name: browsers accept passkeys only for a host name, never an IP address.
  const webBaseUrl = `http://localhost:${port}`;

  const env: Environment = {
    ...handlerEnv,
    TABLE_NAME: options.tableName,
    DYNAMODB_ENDPOINT: options.dynamoEndpoint,
    SQS_ENDPOINT: sqs.endpoint,
    PUBLIC_BASE_URL: baseUrl,
    [settings.webBaseUrl.name]: webBaseUrl,
    ...(options.searchIndexUri ? { [settings.searchIndexUri.name]: options.searchIndexUri } : {}),
    ...Object.fromEntries(Object.values(queues).map((queue) => [queue.urlEnv, sqs.queueUrl(localQueues[queue.name])])),
  };
  const load = <H>(entry: string, moduleEnv = env) =>
    import(`${repositoryRoot}${entry}`).then((module: ModuleWithHandler<H>) => module.createHandler(moduleEnv));

  localRoutes = await Promise.all(
    routeTable.map(async (definition) => ({
      definition,
      handler: await load<ProxyHandler>(definition.entry, { ...env, ...routeEnvironment(definition) }),
      gatewayHeaders: () => gatewayHeaders(definition, env),
    })),
  );
  if (options.startWorkers !== false) {
    for (const worker of workers) {
      const consumer = await load<SqsConsumer>(worker.entry, {
        ...env,
        [settings.sourceQueueUrl.name]: sqs.queueUrl(localQueues[worker.queue]),
      });
      localQueues[worker.queue].attachConsumer(consumer, { batchSize: 5 });
    }
  }
  // The table's stream feeds its consumers as Lambda's event source mapping would, one poller each.
  const pollers: StreamPoller[] = [];
  const readers: StreamReader[] = [];
  const tasks = new Map(
    await Promise.all(
      scheduledTasks.map(async (task) => {
        const handle = await load<(event: unknown, context: Context) => Promise<unknown>>(task.entry);
        // As EventBridge invokes it: a scheduled event, within the function's timeout (a worker's 30 s).
        const run = () =>
          handle({ source: 'aws.events', 'detail-type': 'Scheduled Event' }, lambdaContext(task.id, 30_000));
        return [task.id, run] as const;
      }),
    ),
  );
  if (options.searchIndexUri) {
    for (const consumer of streamConsumers) {
      const reader = await StreamReader.open(client, options.dynamoEndpoint, options.tableName);
      readers.push(reader);
      const handle = await load<StreamConsumer>(consumer.entry);
      pollers.push(
        startStreamPoller({
          read: () => reader.read(consumer.batchSize),
          handle,
          functionName: consumer.id,
          maxAttempts: consumer.maxAttempts,
          log: options.log,
        }),
      );
      // Its FIFO queue, as Lambda's SQS event source would drain it: a batch per group at a time, groups side by side.
      if (consumer.queue)
        localQueues[consumer.queue.name].attachConsumer(handle as unknown as SqsConsumer, {
          batchSize: consumer.queue.batchSize,
          maxConcurrency: 4,
        });
      // Its scheduled step, as EventBridge would invoke it: a scheduled event instead of records.
      if (consumer.scheduledEveryMinutes)
        tasks.set(consumer.id, () =>
          handle(
            { source: 'aws.events', 'detail-type': 'Scheduled Event' } as unknown as DynamoDBStreamEvent,
            lambdaContext(consumer.id, STREAM_CONSUMER_TIMEOUT_MS),
          ),
        );
    }
  }
  // DynamoDB's TTL for notes in the Trash (DynamoDB Local expires nothing): as on AWS, the deletion
  // reaches the stream's consumer, which deletes what the note left.
  tasks.set(TRASH_EXPIRY_TASK, () => deleteExpiredTrash(doc, options.tableName, new Date()));
  const timers = [...tasks.values()].map((run) => {
    const timer = setInterval(
      () => void run().catch((error: unknown) => options.log?.(`scheduled task failed: ${String(error)}`)),
      (options.scheduleEverySeconds ?? 60) * 1000,
    );
    timer.unref();
    return timer;
  });

  return {
    baseUrl,
    webBaseUrl,
    env,
    queues: localQueues,
    mailFolder,
    runScheduledTask: (id) => {
      const run = tasks.get(id);
      if (!run) throw new Error(`No scheduled task ${id}`);
      return run();
    },
    stop: async () => {
      for (const timer of timers) clearInterval(timer);
      await Promise.all(Object.values(localQueues).map((queue) => queue.stop()));
      await Promise.all(pollers.map((poller) => poller.stop()));
      for (const reader of readers) reader.close();
      client.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await new Promise((resolve) => (ipv6Loopback ? ipv6Loopback.close(resolve) : resolve(undefined)));
      await sqs.stop();
      // A state folder the stack made for itself (tests) goes with it; `npm start`'s data stays.
      if (options.stateDir === undefined) rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/**
 * What the answers the server makes itself for a route carry (413): the route's retirement, and its
 * rate-limit policy with the full quota, as the limiter never saw the request (see the README).
 */
function gatewayHeaders(route: RouteDefinition, env: Environment): Record<string, string> {
  return {
    ...(isRateLimited(route.throttle)
      ? rateLimitHeaders(fullQuota(setting(env, rateLimitSettings[route.throttle]), Date.now()))
      : {}),
    ...(route.retirement ? retirementHeaders(route.retirement) : {}),
  };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * The web pages' address names `localhost`, which resolves to ::1 before 127.0.0.1 on many machines:
 * the same port on the IPv6 loopback hands its connections to the same server. A machine without
 * IPv6 keeps 127.0.0.1 alone.
 */
function alsoOnIpv6Loopback(server: Server, port: number): Promise<TcpServer | null> {
  const forwarder = createTcpServer((socket) => server.emit('connection', socket));
  return new Promise((resolve, reject) => {
    forwarder.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRNOTAVAIL' || error.code === 'EAFNOSUPPORT' ? resolve(null) : reject(error),
    );
    forwarder.listen(port, '::1', () => resolve(forwarder));
  });
}
