import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import { createDynamoClients } from '../adapters/dynamo/client';
import { noteChangeOf, readNotes } from '../adapters/search/note-changes';
import { embedderFromEnv, openIndexFromEnv, reembedStep } from '../adapters/search/search-services';
import { applyNoteChanges, type IndexerPorts, type IndexOutcome, type NoteChange } from '../core/search/indexer';
import { deferred, type Environment } from '../platform/env';
import { metricNames } from '../platform/metric-names';
import { count, createLogger, createMetrics } from '../platform/observability';
import { setting, settings } from '../platform/settings';

/** A scheduled run stops starting re-embedding steps this long before the function's time is up. */
const SCHEDULED_MARGIN_MS = 30_000;

/** Stream batches answer with their failed records; a scheduled run with how many notes it re-embedded. */
type IndexerHandler = {
  (event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse>;
  (event: ScheduledEvent, context: Context): Promise<{ reembedded: number }>;
};

export interface IndexerDeps {
  /** Built once, on the first batch (opening the index reads its manifest). */
  readonly ports: () => Promise<
    IndexerPorts & {
      afterBatch?: (outcome: IndexOutcome) => Promise<unknown>;
      /** The scheduled background step: re-embedding what the configured model has no vectors of. */
      scheduledStep?: (deadline: number) => Promise<number>;
    }
  >;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/**
 * The table's stream → the search index. A batch's note changes are applied together (one engine
 * commit per kind of write); a failure fails every record, reported per record (Powertools batch) so
 * the event source retries the batch, then parks it in the dead-letter queue. Replays are harmless:
 * the index moves forward by note version only.
 */
export function makeHandler(deps: IndexerDeps) {
  const processor = new BatchProcessor(EventType.DynamoDBStreams);
  let ports: ReturnType<IndexerDeps['ports']> | undefined;
  async function scheduled(context: Context): Promise<{ reembedded: number }> {
    ports ??= deps.ports();
    const ready = await ports;
    // Leaves a margin of the function's time for the step under way to finish.
    const deadline = Date.now() + Math.max(0, context.getRemainingTimeInMillis() - SCHEDULED_MARGIN_MS);
    const reembedded = (await ready.scheduledStep?.(deadline)) ?? 0;
    deps.logger.info('Scheduled re-embedding step', { reembedded });
    return { reembedded };
  }
  const handle = async (event: DynamoDBStreamEvent | ScheduledEvent, context: Context) => {
    if (!('Records' in event)) return scheduled(context);
    const changes = event.Records.map(noteChangeOf).filter((change): change is NoteChange => change !== null);
    let failure: unknown = null;
    try {
      ports ??= deps.ports();
      const ready = await ports;
      const outcome = await applyNoteChanges(ready, changes);
      count(deps.metrics, metricNames.notesIndexed, outcome.indexed);
      count(deps.metrics, metricNames.notesUnindexed, outcome.deleted);
      deps.logger.info('Indexed stream batch', { records: event.Records.length, ...outcome });
      await ready
        .afterBatch?.(outcome)
        .catch((error: unknown) => deps.logger.warn('After-batch step failed', { error: String(error) }));
    } catch (error) {
      // Opened anew for the retry: the index may have moved on (a rebuild, a removed folder) under this handle.
      ports = undefined;
      failure = error;
      count(deps.metrics, metricNames.indexBatchFailed);
      deps.logger.error('Indexing the batch failed; it will be retried', { error: error as Error });
    } finally {
      deps.metrics.publishStoredMetrics();
    }
    return processPartialResponse(
      event,
      async () => {
        if (failure) throw failure;
      },
      processor,
      { context, processInParallel: false, throwOnFullBatchFailure: false },
    );
  };
  return handle as IndexerHandler;
}

export function createHandler(env: Environment) {
  const logger = createLogger(env);
  const embedder = embedderFromEnv(env);
  const tableName = setting(env, settings.tableName);
  const { doc } = createDynamoClients({ endpoint: setting(env, settings.dynamoEndpoint) });
  return makeHandler({
    logger,
    metrics: createMetrics(logger),
    ports: async () => {
      const index = await openIndexFromEnv(env);
      return {
        index,
        embedder,
        readNotes: (ids) => readNotes(doc, tableName, ids),
        onEmbeddingFailure: (error) =>
          logger.warn('Embedding failed; notes indexed for keywords', { error: String(error) }),
        afterBatch: async (outcome) => {
          // LanceDB 0.31's full-text search misses unindexed rows holding words common among them (a
          // note's new version included), so what a batch wrote is folded into the indexes at once.
          if (outcome.indexed + outcome.deleted > 0) await index.optimize();
          if (embedder) await reembedStep(index, embedder);
        },
        scheduledStep: async (deadline) => {
          if (!embedder) return 0;
          let reembedded = 0;
          while (Date.now() < deadline) {
            const step = await reembedStep(index, embedder);
            if (step === 0) break;
            reembedded += step;
          }
          if (reembedded > 0) await index.optimize();
          return reembedded;
        },
      };
    },
  });
}

export const handler = deferred(() => createHandler(process.env));
