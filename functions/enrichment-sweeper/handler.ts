import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { DynamoBookmarkStore } from '../adapters/dynamo/bookmark-store';
import { tableFromEnv } from '../adapters/dynamo/client';
import { DynamoFeedStore } from '../adapters/dynamo/feed-store';
import { DynamoImportStore } from '../adapters/dynamo/import-store';
import { createSqsClient, SqsJsonPublisher } from '../adapters/sqs/sqs';
import { Deadline } from '../core/deadline';
import type { EnrichmentRequest } from '../core/enrich/enrichment';
import { queueArticleBackfill, sweepOutbox } from '../core/enrich/outbox';
import { resumeRetagJobs } from '../core/owner/library';
import { deferred, type Environment } from '../platform/env';
import { metricNames } from '../platform/metric-names';
import { count, createLogger, createMetrics, measureSeconds } from '../platform/observability';
import { ANSWER_MARGIN_MS } from '../platform/request-deadline';
import { setting, settings } from '../platform/settings';
import { createTracing } from '../platform/tracing';

/**
 * Scheduled: publishes again the enrichment requests of saves whose publish did not get through,
 * queues a bounded number of page fetches of notes saved before articles were kept, then carries on
 * the tag renames and merges left unfinished (stopped at their time budget, or cut short) in the time left.
 */
export function createHandler(env: Environment) {
  const tracing = createTracing();
  const { instrument } = tracing;
  const { doc, tableName } = tableFromEnv(env, instrument);
  const logger = createLogger(env);
  const metrics = createMetrics(logger);
  const bookmarks = new DynamoBookmarkStore(doc, tableName);
  const ports = {
    bookmarks,
    imports: new DynamoImportStore(doc, tableName),
    enrichment: new SqsJsonPublisher<EnrichmentRequest>(
      createSqsClient({ endpoint: setting(env, settings.sqsEndpoint), instrument }),
      setting(env, settings.enrichmentQueueUrl),
    ),
    graceSeconds: setting(env, settings.outboxGraceSeconds),
    now: () => new Date(),
  };
  const backfillPerSweep = setting(env, settings.articleBackfillPerSweep);
  const retagPorts = { notes: bookmarks, feeds: new DynamoFeedStore(doc, tableName), now: ports.now };
  return middy(async (_event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) => {
    const result = await sweepOutbox(ports);
    const articleFetches = await queueArticleBackfill(ports, backfillPerSweep);
    const retags = await resumeRetagJobs(
      retagPorts,
      Deadline.after(context.getRemainingTimeInMillis() - ANSWER_MARGIN_MS),
    );
    logger.info('Swept the enrichment outbox', { ...result, articleFetches, retags });
    count(metrics, metricNames.outboxRepublished, result.republished);
    count(metrics, metricNames.outboxAbandoned, result.abandoned);
    measureSeconds(metrics, metricNames.outboxOldestPending, result.oldestPendingSeconds);
    metrics.publishStoredMetrics();
    return { ...result, articleFetches, retags };
  }).use(tracing.middleware());
}

export const handler = deferred(() => createHandler(process.env));
