import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createDynamoClients } from '../functions/adapters/dynamo/client';
import { ensureTable } from '../functions/adapters/dynamo/create-table';
import { corsOrigins } from '../functions/http/middleware';
import type { Environment } from '../functions/platform/env';
import { routes } from '../functions/platform/routes';
import { createApiServer, type LocalRoute, type ProxyHandler } from './api-server';
import { LocalQueue } from './queue';
import { LocalSqsEndpoint } from './sqs-endpoint';

/**
 * The whole service on one machine: every route of the shared route table served by its real handler
 * module, DynamoDB Local for storage and in-process queues with SQS semantics for background work.
 */

export interface LocalStackOptions {
  readonly dynamoEndpoint: string;
  readonly tableName: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Extra handler settings (SAVE_RATE_LIMIT, CORS_ALLOWED_ORIGINS, LOG_LEVEL, …). */
  readonly env?: Environment;
  readonly log?: (line: string) => void;
}

export interface LocalStack {
  readonly baseUrl: string;
  readonly env: Environment;
  readonly queues: { readonly enrichment: LocalQueue };
  stop(): Promise<void>;
}

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const { client } = createDynamoClients({ endpoint: options.dynamoEndpoint, region: 'local' });
  await ensureTable(client, options.tableName);
  client.destroy();

  const enrichment = new LocalQueue({ name: 'gleaner-enrichment', visibilityTimeoutSeconds: 5, maxReceiveCount: 5 });
  const sqs = await LocalSqsEndpoint.start([enrichment]);

  const handlerEnv: Environment = { LOG_LEVEL: 'WARN', ...options.env };
  let localRoutes: LocalRoute[] = [];
  const server = createApiServer({ routes: () => localRoutes, corsOrigins: corsOrigins(handlerEnv.CORS_ALLOWED_ORIGINS), log: options.log });
  const port = await listen(server, options.port ?? 0);
  const baseUrl = `http://127.0.0.1:${port}`;

  const env: Environment = {
    ...handlerEnv,
    TABLE_NAME: options.tableName,
    DYNAMODB_ENDPOINT: options.dynamoEndpoint,
    ENRICHMENT_QUEUE_URL: sqs.queueUrl(enrichment),
    SQS_ENDPOINT: sqs.endpoint,
    PUBLIC_BASE_URL: baseUrl,
  };
  localRoutes = await Promise.all(
    routes.map(async (definition) => {
      const module = (await import(`${repositoryRoot}${definition.entry}`)) as { createHandler(env: Environment): ProxyHandler };
      return { definition, handler: module.createHandler(env) };
    }),
  );

  return {
    baseUrl,
    env,
    queues: { enrichment },
    stop: async () => {
      enrichment.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await sqs.stop();
    },
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
