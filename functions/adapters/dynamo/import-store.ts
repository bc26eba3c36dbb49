import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { ChunkCounts, ImportJob, ImportListed, ImportStore } from '../../core/import/job';
import { conditionalWrite, writtenUnlessConditionFails } from './conditional-write';
import { keys } from './keys';
import { queryAll } from './query-all';

/** Skipped rows (and notes without a bookmark) kept per item: a page of them stays far below DynamoDB's 400 KB. */
const SKIPPED_PER_ITEM = 500;

/**
 * Imports in the single table, all in the user's partition (deleting the account deletes them): the
 * import with its counts, its skipped rows in pages, and the account's one import under way (a lock
 * with a time after which another import may start instead). A page of skipped rows also holds a
 * page of the notes without a bookmark the report lists.
 */
export class DynamoImportStore implements ImportStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createImport(job: ImportJob, lockSeconds: number) {
    const TableName = this.tableName;
    const now = Math.floor(Date.parse(job.created) / 1000);
    const outcome = await conditionalWrite(() =>
      this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName,
                Item: { ...keys.importLock(job.userId), importId: job.id, until: now + lockSeconds },
                ConditionExpression: 'attribute_not_exists(pk) OR #until < :now',
                ExpressionAttributeNames: { '#until': 'until' },
                ExpressionAttributeValues: { ':now': now },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            { Put: { TableName, Item: { ...keys.importJob(job.userId, job.id), type: 'Import', ...job } } },
          ],
        }),
      ),
    );
    if (outcome.written) return { created: true as const };
    const lock = await this.doc.send(
      new GetCommand({ TableName, Key: keys.importLock(job.userId), ConsistentRead: true }),
    );
    return { created: false as const, active: String(lock.Item?.importId ?? '') };
  }

  async getImport(userId: string, importId: string): Promise<ImportJob | null> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.importJob(userId, importId), ConsistentRead: true }),
    );
    return Item ? toJob(Item) : null;
  }

  async listImports(userId: string, limit: number): Promise<ImportJob[]> {
    const items = await queryAll(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.importJob(userId, '').pk, ':prefix': keys.importJob(userId, '').sk },
    });
    return items
      .map(toJob)
      .sort((a, b) => b.created.localeCompare(a.created) || b.id.localeCompare(a.id))
      .slice(0, limit);
  }

  async queueImport(job: ImportJob, lockSeconds: number, updated: string): Promise<boolean> {
    const TableName = this.tableName;
    const outcome = await conditionalWrite(() =>
      this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName,
                Key: keys.importJob(job.userId, job.id),
                UpdateExpression: 'SET #status = :queued, updated = :updated',
                ConditionExpression: '#status = :uploading',
                ExpressionAttributeNames: { '#status': 'status' },
                ExpressionAttributeValues: { ':queued': 'queued', ':uploading': 'uploading', ':updated': updated },
              },
            },
            {
              // Still this import's: an upload that took too long may have let another import start.
              Update: {
                TableName,
                Key: keys.importLock(job.userId),
                UpdateExpression: 'SET #until = :until',
                ConditionExpression: 'importId = :id',
                ExpressionAttributeNames: { '#until': 'until' },
                ExpressionAttributeValues: {
                  ':id': job.id,
                  ':until': Math.floor(Date.parse(updated) / 1000) + lockSeconds,
                },
              },
            },
          ],
        }),
      ),
    );
    return outcome.written;
  }

  async beginImport(
    job: ImportJob,
    found: Pick<ImportJob, 'format' | 'rows' | 'links' | 'notices'>,
    { skipped, notes }: ImportListed,
    updated: string,
  ): Promise<void> {
    // The pages first: written again by a rerun, they are the same.
    const page = (list: readonly unknown[], at: number) =>
      list.slice(at * SKIPPED_PER_ITEM, (at + 1) * SKIPPED_PER_ITEM);
    for (let at = 0; at * SKIPPED_PER_ITEM < Math.max(skipped.length, notes.length); at++)
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.importSkipped(job.userId, job.id, at), rows: page(skipped, at), notes: page(notes, at) },
        }),
      );
    await writtenUnlessConditionFails(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.importJob(job.userId, job.id),
          UpdateExpression:
            'SET #status = :running, #format = :format, #rows = :rows, links = :links, notices = :notices, skippedCount = :skipped, updated = :updated',
          ConditionExpression: '#status = :queued',
          ExpressionAttributeNames: { '#status': 'status', '#format': 'format', '#rows': 'rows' },
          ExpressionAttributeValues: {
            ':running': 'running',
            ':queued': 'queued',
            ':format': found.format,
            ':rows': found.rows,
            ':links': found.links,
            ':notices': found.notices,
            ':skipped': skipped.length,
            ':updated': updated,
          },
        }),
      ),
    );
  }

  async recordChunk(job: ImportJob, chunk: number, counts: ChunkCounts, updated: string): Promise<boolean> {
    return writtenUnlessConditionFails(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.importJob(job.userId, job.id),
          UpdateExpression: `SET chunksDone = :next, updated = :updated${counts.noteCap === null ? '' : ', noteCap = :cap'} ADD done :done, imported :imported, merged :merged, notes :notes, highlights :highlights, articles :articles, over_cap :over, enrichmentWaiting :imported`,
          ConditionExpression: 'chunksDone = :chunk',
          ExpressionAttributeValues: {
            ':chunk': chunk,
            ':next': chunk + 1,
            ':updated': updated,
            ...(counts.noteCap === null ? {} : { ':cap': counts.noteCap }),
            ':done': counts.done,
            ':imported': counts.imported,
            ':merged': counts.merged,
            ':notes': counts.notes,
            ':highlights': counts.highlights,
            ':articles': counts.articles,
            ':over': counts.over_cap,
          },
        }),
      ),
    );
  }

  async finishImport(job: ImportJob, outcome: { status: 'done' | 'failed'; error: string | null }, at: string) {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.importJob(job.userId, job.id),
        UpdateExpression:
          'SET #status = :status, #error = :error, finished = if_not_exists(finished, :at), updated = :at',
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: { ':status': outcome.status, ':error': outcome.error, ':at': at },
      }),
    );
    // The account is free for its next import (unless that one holds it already).
    await writtenUnlessConditionFails(() =>
      this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keys.importLock(job.userId),
          ConditionExpression: 'importId = :id',
          ExpressionAttributeValues: { ':id': job.id },
        }),
      ),
    );
  }

  /** Pages of the import handed to the page worker: fewer wait. */
  async enrichmentReleased(userId: string, importId: string, count: number): Promise<void> {
    await writtenUnlessConditionFails(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.importJob(userId, importId),
          UpdateExpression: 'ADD enrichmentWaiting :released',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':released': -count },
        }),
      ),
    );
  }

  async listed(job: ImportJob): Promise<ImportListed> {
    const prefix = keys.importSkipped(job.userId, job.id, 0);
    const pages = await queryAll(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.sk.replace(/\d+$/, '') },
    });
    return {
      skipped: pages.flatMap((page) => page.rows as ImportListed['skipped']),
      // Pages written before notes without a bookmark were imported hold none.
      notes: pages.flatMap((page) => (page.notes ?? []) as ImportListed['notes']),
    };
  }
}

function toJob(item: Record<string, unknown>): ImportJob {
  const { pk: _pk, sk: _sk, type: _type, ...job } = item;
  return job as unknown as ImportJob;
}
