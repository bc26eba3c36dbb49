import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { createArticleStore } from '../adapters/article-store';
import { DynamoBookmarkStore } from '../adapters/dynamo/bookmark-store';
import { tableFromEnv } from '../adapters/dynamo/client';
import { DynamoImportStore } from '../adapters/dynamo/import-store';
import { createSqsClient, delayRedelivery, SqsJsonPublisher } from '../adapters/sqs/sqs';
import { createUploadStore } from '../adapters/upload-store';
import { importSaves, runImportChunk } from '../core/import/chunks';
import type { ImportChunkMessage } from '../core/import/job';
import { deferred, type Environment } from '../platform/env';
import { createLogger, createMetrics } from '../platform/observability';
import { setting, settings } from '../platform/settings';
import { createTracing } from '../platform/tracing';
import { queues } from '../platform/workers';
import { sqsWorker } from '../queue-consumer/sqs-batch-handler';

/**
 * Import queue → one chunk of an import saved (functions/core/import/job.ts), the next chunk queued.
 * A chunk that fails comes back (the queue's redrive); its rerun writes nothing twice. The new
 * bookmarks wait in the import backlog, from which the sweeper hands a bounded batch at a time to
 * the page worker.
 */
export function createHandler(env: Environment) {
  const tracing = createTracing();
  const { instrument } = tracing;
  const { doc, tableName } = tableFromEnv(env, instrument);
  const sqs = createSqsClient({ endpoint: setting(env, settings.sqsEndpoint), instrument });
  const logger = createLogger(env);
  const bookmarks = new DynamoBookmarkStore(doc, tableName);
  const articles = createArticleStore(setting(env, settings.articleStore));
  const now = () => new Date();
  const ports = {
    imports: new DynamoImportStore(doc, tableName),
    uploads: createUploadStore(setting(env, settings.importUploads), setting(env, settings.publicBaseUrl) ?? ''),
    queue: new SqsJsonPublisher<ImportChunkMessage>(sqs, setting(env, settings.importQueueUrl)),
    newId: randomUUID,
    now,
    lastRead: { current: null },
    save: importSaves({
      store: (backlog) => new DynamoBookmarkStore(doc, tableName, backlog),
      articles: articles && { store: articles, bookmarks },
      newId: randomUUID,
      now,
      logger,
    }),
  };
  const sourceQueueUrl = setting(env, settings.sourceQueueUrl);
  return sqsWorker({
    logger,
    metrics: createMetrics(logger),
    tracing,
    parse: parseChunkMessage,
    process: (message) => runImportChunk(ports, message),
    delayRedelivery: (record: SQSRecord, seconds: number) =>
      delayRedelivery(sqs, sourceQueueUrl, record.receiptHandle, seconds),
    maxAttempts: queues.import.maxReceiveCount,
    retryBaseSeconds: setting(env, settings.retryBaseSeconds),
  });
}

function parseChunkMessage(body: string): ImportChunkMessage {
  const message = JSON.parse(body) as Partial<ImportChunkMessage>;
  if (typeof message.user_id !== 'string' || typeof message.import_id !== 'string' || !Number.isInteger(message.chunk))
    throw new Error(`not an import chunk message: ${body.slice(0, 200)}`);
  return message as ImportChunkMessage;
}

export const handler = deferred(() => createHandler(process.env));
