import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LanceSearchIndex } from '../../functions/adapters/search/lance-index';
import type { Note } from '../../functions/core/model';
import type { IndexWriter } from '../../functions/core/search/indexer';
import { searchNotes } from '../../functions/core/search/search';
import { createHandler, makeHandler } from '../../functions/search-indexer/handler';
import { context } from '../support/factories';
import { testMetrics } from '../support/observability';
import { searchableNote, temporaryIndex } from '../support/search-notes';

const user = randomUUID();
let index: LanceSearchIndex;
let folder: string;
let dispose: () => void;
/** The table as the indexer re-reads it: the notes that exist now. */
let table: Map<string, Note>;
let sequence = 0;

beforeEach(async () => {
  ({ index, folder, dispose } = await temporaryIndex());
  table = new Map();
});
afterEach(() => dispose());

function handlerOver(writer: IndexWriter) {
  return makeHandler({
    logger: new Logger({ serviceName: 'test', logLevel: 'SILENT' }),
    metrics: testMetrics(),
    // The links projection beside the index is tested in link-projection.test.ts.
    links: { syncNote: async () => 'unchanged', removeNote: async () => true, readNotes: async () => [] },
    removeLeftovers: async () => {},
    ports: async () => ({
      index: writer,
      embedder: null,
      readNotes: async (ids) => ids.flatMap((id) => table.get(id) ?? []),
    }),
  });
}

function noteItem(note: Note) {
  return marshall({ pk: `NOTE#${note.id}`, sk: 'NOTE', type: 'Note', ...note }, { removeUndefinedValues: true });
}

function saved(note: Note): DynamoDBRecord {
  return {
    eventName: note.version === 1 ? 'INSERT' : 'MODIFY',
    dynamodb: { SequenceNumber: String(++sequence), NewImage: noteItem(note) as never },
  };
}

function deleted(note: Note): DynamoDBRecord {
  return { eventName: 'REMOVE', dynamodb: { SequenceNumber: String(++sequence), OldImage: noteItem(note) as never } };
}

const event = (...records: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: records });

async function found(text: string, options: { userId?: string; limit?: number; cursor?: string } = {}) {
  return (await page(text, options)).results.map((hit) => hit.note_id);
}

async function page(text: string, { userId = user, ...options }: { userId?: string; limit?: number; cursor?: string }) {
  const result = await searchNotes({ index, embedder: null }, userId, text, options);
  if (!result.ok) throw new Error(result.problem.message);
  return result.answer;
}

function versions(title: string) {
  const v1 = searchableNote(user, { title: `${title} first draft` });
  const v2 = { ...v1, title: `${title} second draft`, version: 2 };
  const v3 = { ...v1, title: `${title} third draft`, version: 3 };
  return [v1, v2, v3] as const;
}

describe('the search indexer converges whatever order its records come in', () => {
  it('indexes saves and keeps the newest version through duplicates and records out of order', async () => {
    const handler = handlerOver(index);
    const [v1, v2, v3] = versions('Alpine');
    table.set(v1.id, v3);
    expect(await handler(event(saved(v1), saved(v2)), context())).toEqual({ batchItemFailures: [] });
    // The first batch found the note unknown, read the table and indexed its current version.
    expect(await found('third')).toEqual([v1.id]);
    await handler(event(saved(v3), saved(v2), saved(v1), saved(v3)), context());
    expect(await found('third')).toEqual([v1.id]);
    expect(await found('second')).toEqual([]);
  });

  it('never resurrects a deleted note: a delete before its save, and replays after it', async () => {
    const handler = handlerOver(index);
    const [v1, v2] = versions('Boreal');
    await handler(event(deleted(v2)), context());
    await handler(event(saved(v1), saved(v2)), context());
    expect(await found('boreal')).toEqual([]);

    const [w1] = versions('Cirrus');
    table.set(w1.id, w1);
    await handler(event(saved(w1)), context());
    expect(await found('cirrus')).toEqual([w1.id]);
    table.delete(w1.id);
    await handler(event(deleted(w1), saved(w1)), context());
    await handler(event(saved(w1)), context());
    expect(await found('cirrus')).toEqual([]);
  });

  it('reads the table for a note it does not know, so a replay after a rebuild keeps a deleted note away', async () => {
    const handler = handlerOver(index);
    const [v1] = versions('Dune');
    // The note was saved and deleted; the index was rebuilt since (it holds no tombstone); the save is replayed.
    await handler(event(saved(v1)), context());
    expect(await found('dune')).toEqual([]);
  });

  it('reports every record of a batch that crashed mid-way, and the replay completes it', async () => {
    const [a1] = versions('Estuary');
    const [b1, b2] = versions('Fjord');
    table.set(a1.id, a1);
    table.set(b1.id, b2);
    await handlerOver(index)(event(saved(b1)), context());
    // The tombstone commit succeeds, then the crash comes before the documents are written.
    const crashing: IndexWriter = {
      versions: (ids) => index.versions(ids),
      tombstone: (notes) => index.tombstone(notes),
      hide: (notes) => index.hide(notes),
      upsert: async () => {
        throw new Error('the process died');
      },
    };
    const batch = event(saved(a1), deleted(b2), saved(b2));
    const response = await handlerOver(crashing)(batch, context());
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(
      batch.Records.map((record) => record.dynamodb!.SequenceNumber),
    );
    table.delete(b1.id);
    expect(await handlerOver(index)(batch, context())).toEqual({ batchItemFailures: [] });
    expect(await found('estuary')).toEqual([a1.id]);
    expect(await found('fjord')).toEqual([]);
  });

  it('skips items that are not notes', async () => {
    const handler = handlerOver(index);
    const record: DynamoDBRecord = {
      eventName: 'INSERT',
      dynamodb: {
        SequenceNumber: '1',
        NewImage: marshall({ pk: 'BOOKMARK#x', sk: 'BOOKMARK', type: 'Bookmark' }) as never,
      },
    };
    expect(await handler(event(record), context())).toEqual({ batchItemFailures: [] });
  });
});

describe('a batch’s notes are findable once it is written, with no fold of the whole index', () => {
  const other = randomUUID();
  /**
   * The indexer's scheduled run (every 10 minutes), which folds the recent rows into the main table:
   * here from the first row (by default it waits for 100).
   */
  const scheduledRun = () =>
    createHandler({ SEARCH_INDEX_URI: folder, SEARCH_FOLD_ROWS: '1', TABLE_NAME: 'unused', LOG_LEVEL: 'SILENT' })(
      { source: 'aws.events', 'detail-type': 'Scheduled Event' } as ScheduledEvent,
      context('SearchIndexer'),
    );
  const sorted = (ids: string[]) => [...ids].sort();

  it('finds new notes repeating a word every indexed note holds, edits and deletes included, before and after the fold', async () => {
    const handler = handlerOver(index);
    // Every folded note holds "sourdough": LanceDB 0.31 searching rows its index does not cover yet
    // then drops each new row repeating the word, and every one after it (see lance-index.ts).
    const kept = searchableNote(user, { title: 'Sourdough starter care' });
    const edited = searchableNote(user, { title: 'Sourdough loaves first draft' });
    const removed = searchableNote(user, { title: 'Sourdough crumb' });
    const others = searchableNote(other, { title: 'Sourdough elsewhere sourdough' });
    for (const note of [kept, edited, removed, others]) table.set(note.id, note);
    await handler(event(...[kept, edited, removed, others].map(saved)), context());
    await scheduledRun();
    expect(await index.unfoldedRows()).toBe(0);

    const repeated = searchableNote(user, { title: 'Sourdough sourdough sourdough loaf' });
    const plain = searchableNote(user, { title: 'Baking sourdough' });
    const revised = { ...edited, title: 'Sourdough sourdough loaves revised', version: 2 };
    for (const note of [repeated, plain]) table.set(note.id, note);
    table.set(edited.id, revised);
    table.delete(removed.id);
    await handler(event(saved(repeated), saved(plain), saved(revised), deleted(removed)), context());
    // No fold ran: the batch's four rows wait for the scheduled one.
    expect(await index.unfoldedRows()).toBe(4);
    const expected = sorted([kept.id, edited.id, repeated.id, plain.id]);
    expect(sorted(await found('sourdough'))).toEqual(expected);
    expect(await found('revised')).toEqual([edited.id]);
    expect(await found('draft')).toEqual([]);
    expect(await found('crumb')).toEqual([]);
    expect(await found('sourdough', { userId: other })).toEqual([others.id]);

    await scheduledRun();
    expect(await index.unfoldedRows()).toBe(0);
    expect(sorted(await found('sourdough'))).toEqual(expected);
    expect(await found('draft')).toEqual([]);
    // Replays of older records after the fold move nothing back.
    await handler(event(saved(edited), saved(removed)), context());
    expect(await found('draft')).toEqual([]);
    expect(await found('crumb')).toEqual([]);
    expect(await found('revised')).toEqual([edited.id]);
  });

  it('pages through folded and recent notes together, each once', async () => {
    const handler = handlerOver(index);
    const folded = Array.from({ length: 3 }, (_, i) => searchableNote(user, { title: `Glacier moraine ${i}` }));
    const recent = Array.from({ length: 3 }, (_, i) => searchableNote(user, { title: `Glacier cirque ${i}` }));
    for (const note of [...folded, ...recent]) table.set(note.id, note);
    await handler(event(...folded.map(saved)), context());
    await scheduledRun();
    await handler(event(...recent.map(saved)), context());
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const answer = await page('glacier', { limit: 2, cursor });
      seen.push(...answer.results.map((hit) => hit.note_id));
      if (!answer.cursor) break;
      cursor = answer.cursor;
    }
    expect(sorted(seen)).toEqual(sorted([...folded, ...recent].map((note) => note.id)));
  });
});
