import type { ResourceAccess } from './routes';

/**
 * Background work, described once for the CDK stack and the local stack: the queues, the
 * SQS-triggered workers that drain them, and the scheduled tasks.
 */

export type QueueName = 'enrichment' | 'favicon' | 'indexing' | 'import';

export interface QueueDefinition {
  readonly name: QueueName;
  /** Environment variable that carries the queue's URL to functions allowed to send to it. */
  readonly urlEnv: string;
  /** Receives before a message is parked in the queue's dead-letter queue. */
  readonly maxReceiveCount: number;
  /** SQS FIFO: messages of one group in order, one batch of a group in flight at a time. */
  readonly fifo?: boolean;
}

export const queues: Readonly<Record<QueueName, QueueDefinition>> = {
  enrichment: { name: 'enrichment', urlEnv: 'ENRICHMENT_QUEUE_URL', maxReceiveCount: 5 },
  favicon: { name: 'favicon', urlEnv: 'FAVICON_QUEUE_URL', maxReceiveCount: 5 },
  /** The stream's note changes on their way to the search index, grouped by shard: one writer per shard. */
  indexing: { name: 'indexing', urlEnv: 'INDEXING_QUEUE_URL', maxReceiveCount: 5, fifo: true },
  /** One message per chunk of an import (functions/core/import/job.ts). */
  import: { name: 'import', urlEnv: 'IMPORT_QUEUE_URL', maxReceiveCount: 5 },
};

/** A Lambda function that no HTTP route invokes. */
interface BackgroundFunctionDefinition {
  readonly id: string;
  /** Handler module relative to the repository root; exports `handler` and `createHandler(env)`. */
  readonly entry: string;
  readonly access: readonly ResourceAccess[];
}

export interface WorkerDefinition extends BackgroundFunctionDefinition {
  readonly queue: QueueName;
}

export const workers: readonly WorkerDefinition[] = [
  {
    id: 'PageWorker',
    entry: 'functions/page-worker/handler.ts',
    queue: 'enrichment',
    access: ['table:read', 'table:write', 'queue:favicon', 'articles:write'],
  },
  {
    id: 'FaviconWorker',
    entry: 'functions/favicon-worker/handler.ts',
    queue: 'favicon',
    access: ['table:read', 'table:write'],
  },
  {
    // Saves an import's links a chunk at a time; their pages wait in the enrichment outbox.
    id: 'ImportWorker',
    entry: 'functions/import-worker/handler.ts',
    queue: 'import',
    access: ['table:read', 'table:write', 'queue:import', 'uploads:write', 'articles:write'],
  },
];

export interface ScheduledTaskDefinition extends BackgroundFunctionDefinition {
  readonly everyMinutes: number;
}

export const scheduledTasks: readonly ScheduledTaskDefinition[] = [
  /** Re-publishes enrichment requests whose SQS publish failed after the save committed (the outbox). */
  {
    id: 'EnrichmentSweeper',
    entry: 'functions/enrichment-sweeper/handler.ts',
    everyMinutes: 5,
    access: ['table:read', 'table:write', 'queue:enrichment'],
  },
];

/** A function fed by the table's stream (NEW_AND_OLD_IMAGES): Lambda's event source on AWS, a poller locally. */
export interface StreamConsumerDefinition extends BackgroundFunctionDefinition {
  /** Records per invocation. */
  readonly batchSize: number;
  /** Invocations of a failing batch before it is parked in the dead-letter queue. */
  readonly maxAttempts: number;
  /**
   * Set when the same function also runs a background step on a schedule (EventBridge on AWS, a timer
   * locally), invoked with a scheduled event instead of stream records.
   */
  readonly scheduledEveryMinutes?: number;
  /**
   * A FIFO queue the consumer passes its records on to (grouped by the search index's shard) and
   * consumes itself, `batchSize` messages an invocation: so one invocation at a time writes a shard.
   */
  readonly queue?: { readonly name: QueueName; readonly batchSize: number };
}

export const streamConsumers: readonly StreamConsumerDefinition[] = [
  /**
   * Keeps the search index and the links between notes projections of the notes
   * (functions/core/search/indexer.ts, functions/core/links/projection.ts); writes the link items;
   * deletes what a note deleted from the Trash left behind.
   */
  {
    id: 'SearchIndexer',
    entry: 'functions/search-indexer/handler.ts',
    batchSize: 100,
    maxAttempts: 5,
    // Re-embeds notes whose vectors of the configured model are missing (after a model change), even
    // while nobody saves: search stays keyword for a user until their notes are covered.
    scheduledEveryMinutes: 10,
    queue: { name: 'indexing', batchSize: 10 },
    // Reads kept articles to index them; deletes those of notes deleted from the Trash by their TTL.
    access: [
      'table:read',
      'table:write',
      'search:read',
      'search:write',
      'embeddings',
      'articles:read',
      'articles:write',
      'queue:indexing',
    ],
  },
];

/** Worker attempts (receives) at a page or icon before a transient failure becomes its final outcome. */
export const MAX_FETCH_ATTEMPTS = 3;
