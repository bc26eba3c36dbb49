import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type {
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  ScheduledEvent,
  SQSBatchResponse,
  SQSEvent,
} from 'aws-lambda';
import { createArticleStore } from '../adapters/article-store';
import { DynamoBookmarkStore } from '../adapters/dynamo/bookmark-store';
import { tableFromEnv } from '../adapters/dynamo/client';
import { DynamoLinkStore } from '../adapters/dynamo/link-store';
import { noteChangeOf, readNotes } from '../adapters/search/note-changes';
import { embedderFromEnv, openIndexFromEnv, scheduledIndexStep } from '../adapters/search/search-services';
import { createSqsClient, sendToFifo } from '../adapters/sqs/sqs';
import { storedArticleText } from '../core/article/resource';
import { applyLinkChanges, type LinkProjectionPorts } from '../core/links/projection';
import type { Note } from '../core/model';
import { changesOf, indexMessages } from '../core/search/index-queue';
import { applyNoteChanges, type IndexerPorts, type NoteChange } from '../core/search/indexer';
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
  (event: SQSEvent, context: Context): Promise<SQSBatchResponse>;
};

/** What a scheduled run did: notes re-embedded, shards folded, shards left with rows waiting. */
interface ScheduledOutcome {
  readonly reembedded: number;
  readonly folded: number;
  readonly left: number;
}

export interface IndexerDeps {
  /** Built once, on the first batch (opening the index reads its manifest). */
  readonly ports: () => Promise<
    IndexerPorts & {
      /**
       * The scheduled background step: re-embedding what the configured model lacks, then folding the
       * shards whose writes are due; says how many notes it embedded, shards it folded and shards it left
       * with rows waiting (for the next run).
       */
      scheduledStep?: (deadline: number) => Promise<ScheduledOutcome>;
      /**
       * Passes a stream batch's note changes to the FIFO queue grouped by shard, whose batches this
       * function then applies (one writer per shard); absent, the stream batch is applied here.
       */
      enqueue?: (changes: readonly NoteChange[]) => Promise<void>;
    }
  >;
  /** The links between notes (functions/core/links/projection.ts), kept from the same records. */
  readonly links: LinkProjectionPorts;
  /**
   * Deletes what a note deleted from the Trash left behind (its bookmark, saved-URL marker,
   * highlights and kept page): DynamoDB's TTL deletes the note item alone.
   */
  readonly removeLeftovers: (note: { id: string; userId: string; bookmarkId: string | null }) => Promise<void>;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/**
 * The table's stream → the two projections of the notes: the search index and the links between
 * notes. One consumer keeps both rather than one each: they read the same note records under the
 * same per-note version rule, while a second consumer would be a second reader of every shard (of
 * the two DynamoDB Streams advises) and a second function, role, event source and alarms for no gain.
 * Both are idempotent, so a batch retried for either one's failure is harmless to the other; they
 * run side by side, so neither waits on the other's fault. (The link items written here come back
 * as stream records of their own, which are no note changes and are skipped.)
 *
 * Failures are reported per record (Powertools batch) so the event source retries from the first
 * failed one, then parks the batch in the dead-letter queue: an index failure fails every record (the
 * index writes a batch in one commit per kind of write), a link failure the records from the first
 * one of a note whose links failed.
 */
export function makeHandler(deps: IndexerDeps) {
  const processor = new BatchProcessor(EventType.DynamoDBStreams);
  let ports: ReturnType<IndexerDeps['ports']> | undefined;

  const index = async (changes: readonly NoteChange[], from: 'stream' | 'queue'): Promise<unknown> => {
    try {
      ports ??= deps.ports();
      const ready = await ports;
      if (from === 'stream' && ready.enqueue) {
        await ready.enqueue(changes);
        return null;
      }
      const outcome = await applyNoteChanges(ready, changes);
      count(deps.metrics, metricNames.notesIndexed, outcome.indexed);
      count(deps.metrics, metricNames.notesUnindexed, outcome.deleted);
      deps.logger.info('Indexed stream batch', { ...outcome });
      return null;
    } catch (error) {
      // Opened anew for the retry: the index may have moved on (a rebuild, a removed folder) under this handle.
      ports = undefined;
      count(deps.metrics, metricNames.indexBatchFailed);
      deps.logger.error('Indexing the batch failed; it will be retried', { error: error as Error });
      return error;
    }
  };

  /** The records to retry for the links: from the first one of a note whose links failed. */
  const link = async (records: readonly (NoteChange | null)[], changes: readonly NoteChange[]) => {
    const outcome = await applyLinkChanges(deps.links, changes);
    deps.logger.info('Linked stream batch', { synced: outcome.synced, removed: outcome.removed });
    const first = records.findIndex((change) => change !== null && outcome.failed.has(noteIdOf(change)));
    if (first === -1) return { from: records.length, error: null };
    count(deps.metrics, metricNames.linkBatchFailed);
    deps.logger.error('Linking notes failed; the batch will be retried from the first failed note', {
      notes: outcome.failed.size,
      error: outcome.error as Error,
    });
    return { from: first, error: outcome.error };
  };

  /** What notes deleted from the Trash left behind, deleted; the error when that failed (the batch is retried). */
  const purge = async (changes: readonly NoteChange[]): Promise<unknown> => {
    try {
      for (const change of changes)
        if (change.kind === 'deleted' && change.fromTrash)
          await deps.removeLeftovers({
            id: change.noteId,
            userId: change.userId,
            bookmarkId: change.fromTrash.bookmarkId,
          });
      return null;
    } catch (error) {
      deps.logger.error('Deleting what a note deleted from the Trash left failed; the batch will be retried', {
        error: error as Error,
      });
      return error;
    }
  };

  async function scheduled(context: Context): Promise<ScheduledOutcome> {
    ports ??= deps.ports();
    const ready = await ports;
    // Leaves a margin of the function's time for the step under way to finish.
    const deadline = Date.now() + Math.max(0, context.getRemainingTimeInMillis() - SCHEDULED_MARGIN_MS);
    const outcome = (await ready.scheduledStep?.(deadline)) ?? { reembedded: 0, folded: 0, left: 0 };
    deps.logger.info('Scheduled re-embedding and fold', { ...outcome });
    return outcome;
  }

  /**
   * A batch of the FIFO queue, a shard's changes in order: applied at once, or failed whole (Lambda
   * then returns the batch, and the group waits for it, so no later change overtakes it).
   */
  async function fromQueue(event: SQSEvent): Promise<SQSBatchResponse> {
    let failure: unknown = null;
    try {
      ports ??= deps.ports();
      const changes = await changesOf(
        event.Records.map((record) => record.body),
        (await ports).readNotes,
      );
      failure = await index(changes, 'queue');
    } catch (error) {
      failure = error;
      deps.logger.error('Reading the queued changes failed; the batch will be retried', { error: error as Error });
    }
    deps.metrics.publishStoredMetrics();
    return {
      batchItemFailures: failure ? event.Records.map((record) => ({ itemIdentifier: record.messageId })) : [],
    };
  }

  const handle = async (event: DynamoDBStreamEvent | ScheduledEvent | SQSEvent, context: Context) => {
    if (!('Records' in event)) return scheduled(context);
    if (isQueueEvent(event)) return fromQueue(event);
    const records = event.Records.map(noteChangeOf);
    const changes = records.filter((change): change is NoteChange => change !== null);
    const [indexFailure, linkFailure, purgeFailure] = await Promise.all([
      index(changes, 'stream'),
      link(records, changes),
      purge(changes),
    ]);
    deps.metrics.publishStoredMetrics();
    const failed = new Map<DynamoDBRecord, unknown>(
      event.Records.flatMap((record, at) => {
        if (indexFailure || purgeFailure) return [[record, indexFailure ?? purgeFailure]];
        return at >= linkFailure.from ? [[record, linkFailure.error]] : [];
      }),
    );
    return processPartialResponse(
      event,
      async (record: DynamoDBRecord) => {
        if (failed.has(record)) throw failed.get(record);
      },
      processor,
      { context, processInParallel: false, throwOnFullBatchFailure: false },
    );
  };
  return handle as IndexerHandler;
}

const isQueueEvent = (event: DynamoDBStreamEvent | SQSEvent): event is SQSEvent =>
  event.Records[0] !== undefined && 'eventSource' in event.Records[0] && event.Records[0].eventSource === 'aws:sqs';

const noteIdOf = (change: NoteChange) => (change.kind === 'saved' ? change.note.id : change.noteId);

export function createHandler(env: Environment) {
  const logger = createLogger(env);
  const embedder = embedderFromEnv(env);
  const { doc, tableName } = tableFromEnv(env);
  const links = new DynamoLinkStore(doc, tableName);
  const notes = new DynamoBookmarkStore(doc, tableName);
  // Kept articles are indexed where the function has their store (always, on AWS and in npm start).
  const articles = env[settings.articleStore.name] ? createArticleStore(setting(env, settings.articleStore)) : null;
  const queueUrl = setting(env, settings.indexingQueueUrl);
  let client: ReturnType<typeof createSqsClient> | undefined;
  const sqs = () => (client ??= createSqsClient({ endpoint: setting(env, settings.sqsEndpoint) }));
  return makeHandler({
    logger,
    metrics: createMetrics(logger),
    removeLeftovers: async (note) => {
      await notes.removeLeftovers(note);
      if (note.bookmarkId && articles) await articles.deleteArticle(note.bookmarkId);
    },
    links: {
      syncNote: (note) => links.syncNote(note),
      removeNote: (noteId) => links.removeNote(noteId),
      readNotes: (ids) => readNotes(doc, tableName, ids),
    },
    ports: async () => {
      const index = await openIndexFromEnv(env);
      return {
        index,
        embedder,
        readNotes: (ids) => readNotes(doc, tableName, ids),
        ...(articles ? { articleText: (note: Note) => storedArticleText(articles, note) } : {}),
        // The shard's re-embedding watermark moves back before these notes, so the schedule embeds them.
        onEmbeddingFailure: async (error, notes) => {
          logger.warn('Embedding failed; notes indexed for keywords', { error: String(error) });
          if (embedder) await index.reembedLater(embedder.model, notes);
        },
        // A batch's notes are searchable by their words once written (the index keeps them in its small
        // recent table, lance-index.ts), then embedded in one go (indexNotes); folding them into the main
        // table's indexes, and re-embedding after a model change, wait for the schedule: no batch scans
        // every note.
        scheduledStep: (deadline) => scheduledIndexStep(index, embedder, deadline),
        ...(queueUrl
          ? {
              enqueue: async (changes: readonly NoteChange[]) =>
                sendToFifo(sqs(), queueUrl, indexMessages(changes, (await index.layout()).layout.shards)),
            }
          : {}),
      };
    },
  });
}

export const handler = deferred(() => createHandler(process.env));
