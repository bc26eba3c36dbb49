import middy from '@middy/core';
import { DynamoBookmarkStore } from '../adapters/dynamo/bookmark-store';
import { tableFromEnv } from '../adapters/dynamo/client';
import { createSqsClient, SqsJsonPublisher } from '../adapters/sqs/sqs';
import type { EnrichmentRequest } from '../core/enrich/enrichment';
import { queueArticleBackfill, sweepOutbox } from '../core/enrich/outbox';
import { deferred, type Environment } from '../platform/env';
import { metricNames } from '../platform/metric-names';
import { count, createLogger, createMetrics, measureSeconds } from '../platform/observability';
import { setting, settings } from '../platform/settings';
import { createTracing } from '../platform/tracing';

/**
 * Scheduled: publishes again the enrichment requests of saves whose publish did not get through, then
 * queues a bounded number of page fetches of notes saved before articles were kept.
 */
export function createHandler(env: Environment) {
  const tracing = createTracing();
  const { instrument } = tracing;
  const { doc, tableName } = tableFromEnv(env, instrument);
  const logger = createLogger(env);
  const metrics = createMetrics(logger);
  const ports = {
    bookmarks: new DynamoBookmarkStore(doc, tableName),
    enrichment: new SqsJsonPublisher<EnrichmentRequest>(
      createSqsClient({ endpoint: setting(env, settings.sqsEndpoint), instrument }),
      setting(env, settings.enrichmentQueueUrl),
    ),
    graceSeconds: setting(env, settings.outboxGraceSeconds),
    now: () => new Date(),
  };
  const backfillPerSweep = setting(env, settings.articleBackfillPerSweep);
  return middy(async () => {
    const result = await sweepOutbox(ports);
    const articleFetches = await queueArticleBackfill(ports, backfillPerSweep);
    logger.info('Swept the enrichment outbox', { ...result, articleFetches });
    count(metrics, metricNames.outboxRepublished, result.republished);
    count(metrics, metricNames.outboxAbandoned, result.abandoned);
    measureSeconds(metrics, metricNames.outboxOldestPending, result.oldestPendingSeconds);
    metrics.publishStoredMetrics();
    return { ...result, articleFetches };
  }).use(tracing.middleware());
}

export const handler = deferred(() => createHandler(process.env));
