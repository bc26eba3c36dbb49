import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, SQSEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ShardedSearchIndex } from '../../functions/adapters/search/sharded-index';
import { createSqsClient, sendToFifo } from '../../functions/adapters/sqs/sqs';
import type { Note } from '../../functions/core/model';
import { indexMessages } from '../../functions/core/search/index-queue';
import type { IndexWriter } from '../../functions/core/search/indexer';
import { searchNotes } from '../../functions/core/search/search';
import { liveSet } from '../../functions/core/search/shards';
import { makeHandler } from '../../functions/search-indexer/handler';
import { LocalQueue } from '../../local/queue';
import { LocalSqsEndpoint } from '../../local/sqs-endpoint';
import { context } from '../support/factories';
import { testMetrics } from '../support/observability';
import { searchableNote } from '../support/search-notes';

/**
 * One writer per shard: the indexer passes the stream's note changes to a FIFO queue grouped by shard
 * (the local queue through its SQS endpoint, with the real SQS client), and applies that queue's
 * batches, several shards at once; the index is the real sharded LanceDB index in a folder.
 */
let folder: string;
let index: ShardedSearchIndex;
let queue: LocalQueue;
let endpoint: LocalSqsEndpoint;
const table = new Map<string, Note>();

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'gleaner-index-queue-'));
  index = await ShardedSearchIndex.open({ uri: folder, shards: 4 });
  queue = new LocalQueue({ name: 'indexing.fifo', fifo: true, visibilityTimeoutSeconds: 0.2 });
  endpoint = await LocalSqsEndpoint.start([queue]);
});
afterEach(async () => {
  queue.stop();
  await endpoint.stop();
  index.close();
  rmSync(folder, { recursive: true, force: true });
});

function record(note: Note, sequence: number): DynamoDBRecord {
  const image = marshall({ pk: `NOTE#${note.id}`, sk: 'NOTE', type: 'Note', ...note }, { removeUndefinedValues: true });
  return { eventName: 'MODIFY', dynamodb: { SequenceNumber: String(sequence), NewImage: image as never } };
}

describe('the indexer through a FIFO queue grouped by shard', () => {
  it('keeps one writer per shard while shards are written side by side, and per-note order through a redelivered batch', async () => {
    const sqs = createSqsClient({ endpoint: endpoint.endpoint });
    const { layout } = await index.layout();
    // Counts the writers in each shard at once, around every write the handler makes.
    const writing = new Map<string, number>();
    let most = 0;
    let together = 0;
    let failOnce = true;
    const counted = async <T>(userIds: string[], write: () => Promise<T>) => {
      const shards = [...new Set(userIds.map((userId) => liveSet(layout, userId)))];
      for (const shard of shards) {
        writing.set(shard, (writing.get(shard) ?? 0) + 1);
        most = Math.max(most, writing.get(shard)!);
      }
      together = Math.max(together, [...writing.values()].filter((n) => n > 0).length);
      try {
        await new Promise((resolve) => setTimeout(resolve, 10));
        return await write();
      } finally {
        for (const shard of shards) writing.set(shard, writing.get(shard)! - 1);
      }
    };
    const writer: IndexWriter = {
      versions: (notes) => index.versions(notes),
      upsert: (documents, vectors) => {
        if (failOnce) {
          failOnce = false;
          return Promise.reject(new Error('storage hiccup'));
        }
        return counted(
          documents.map((document) => document.user_id),
          () => index.upsert(documents, vectors),
        );
      },
      tombstone: (notes) =>
        counted(
          notes.map((note) => note.userId),
          () => index.tombstone(notes),
        ),
      hide: (notes) => index.hide(notes),
    };
    const handler = makeHandler({
      removeLeftovers: async () => {},
      logger: new Logger({ serviceName: 'test', logLevel: 'SILENT' }),
      metrics: testMetrics(),
      links: { syncNote: async () => 'unchanged', removeNote: async () => true, readNotes: async () => [] },
      ports: async () => ({
        index: writer,
        embedder: null,
        readNotes: async (ids) => ids.flatMap((id) => table.get(id) ?? []),
        enqueue: (changes) => sendToFifo(sqs, endpoint.queueUrl(queue), indexMessages(changes, layout.shards)),
      }),
    });
    queue.attachConsumer((event) => handler(event as SQSEvent, context()), {
      batchSize: 3,
      pollIntervalMs: 5,
      maxConcurrency: 4,
    });

    // Twelve users' notes, each edited to version 4, the stream's records arriving in batches.
    const users = Array.from({ length: 12 }, () => randomUUID());
    const notes = users.map((userId) => searchableNote(userId, { title: 'Moraine first' }));
    let sequence = 0;
    for (const version of [1, 2, 3, 4]) {
      const records = notes.map((note) => {
        const edited = { ...note, title: `Moraine ${['first', 'second', 'third', 'fourth'][version - 1]}`, version };
        table.set(note.id, edited);
        return record(edited, ++sequence);
      });
      expect(await handler({ Records: records }, context())).toEqual({ batchItemFailures: [] });
      // A stream batch retried: its messages are deduplicated by the queue.
      if (version === 2) await handler({ Records: records }, context());
    }
    await queue.whenEmpty();
    expect(failOnce).toBe(false);
    expect(most).toBe(1);
    expect(together).toBeGreaterThan(1);
    expect(queue.deadLetters).toEqual([]);
    for (const note of notes) {
      const answer = await searchNotes({ index, embedder: null }, note.userId, 'moraine');
      expect(answer.ok && answer.answer.results.map((hit) => [hit.note_id, hit.title])).toEqual([
        [note.id, 'Moraine fourth'],
      ]);
    }
  }, 120_000);
});
