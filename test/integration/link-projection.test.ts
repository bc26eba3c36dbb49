import { Logger } from '@aws-lambda-powertools/logger';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import type { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { keys } from '../../functions/adapters/dynamo/keys';
import { DynamoLinkStore } from '../../functions/adapters/dynamo/link-store';
import { noteChangeOf, readNotes } from '../../functions/adapters/search/note-changes';
import { StreamReader } from '../../functions/adapters/search/stream-reader';
import type { LinkProjectionPorts } from '../../functions/core/links/projection';
import type { Note } from '../../functions/core/model';
import type { IndexWriter } from '../../functions/core/search/indexer';
import { makeHandler } from '../../functions/search-indexer/handler';
import { createTestStores, type createTestTable } from '../support/dynamo';
import { context } from '../support/factories';
import { linkingUser, saveLinkingNote } from '../support/link-notes';
import { testMetrics } from '../support/observability';

/**
 * The stream consumer keeps the links between notes, fed the table's real stream records (DynamoDB
 * Local), in order, replayed, and out of order; two users link to the same titles and URLs.
 */

let table: Awaited<ReturnType<typeof createTestTable>>;
let accounts: DynamoAccountStore;
let bookmarks: DynamoBookmarkStore;
let links: DynamoLinkStore;
let stream: StreamReader;

beforeAll(async () => {
  ({ table, accounts, bookmarks } = await createTestStores({ stream: true }));
  links = new DynamoLinkStore(table.doc, table.tableName);
  stream = await StreamReader.open(table.client, table.endpoint, table.tableName);
});
afterAll(() => {
  stream.close();
  table.client.destroy();
});

const noIndex: IndexWriter = {
  versions: async () => new Map(),
  upsert: async () => {},
  tombstone: async () => {},
  hide: async () => {},
};

const linkPorts = (): LinkProjectionPorts => ({
  syncNote: (note) => links.syncNote(note),
  removeNote: (noteId) => links.removeNote(noteId),
  readNotes: (ids) => readNotes(table.doc, table.tableName, ids),
});

function consumer(overrides: { links?: LinkProjectionPorts; index?: IndexWriter } = {}) {
  return makeHandler({
    logger: new Logger({ serviceName: 'test', logLevel: 'SILENT' }),
    metrics: testMetrics(),
    links: overrides.links ?? linkPorts(),
    removeLeftovers: async () => {},
    ports: async () => ({ index: overrides.index ?? noIndex, embedder: null, readNotes: async () => [] }),
  });
}

/** Runs the consumer over `records` as one batch; the sequence numbers it reported failed. */
async function consume(records: readonly DynamoDBRecord[], handler = consumer()): Promise<string[]> {
  const response = await handler({ Records: [...records] }, context());
  return response.batchItemFailures.map((failure) => failure.itemIdentifier);
}

/** The stream's note records written since the last call: `count` of them (other items are left out). */
async function noteRecords(count: number): Promise<DynamoDBRecord[]> {
  const found: DynamoDBRecord[] = [];
  for (let reads = 0; found.length < count && reads < 50; reads++) {
    const records = await stream.read(1000);
    found.push(...records.filter((record) => noteChangeOf(record) !== null));
    if (records.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(found).toHaveLength(count);
  return found;
}

const comment = (noteId: string, text: string) =>
  bookmarks.editNote(
    noteId,
    (note) => ({ title: note.title, comment: text, tags: note.tags }),
    new Date().toISOString(),
  );

const backlinkIds = async (userId: string, note: Note) =>
  (await links.backlinks(userId, note)).map((link) => link.note.id).sort();

const outgoing = async (noteId: string) =>
  (await links.outgoing((await bookmarks.getNote(noteId))!)).map((link) => ({
    target: link.target,
    note: link.note?.id ?? null,
  }));

/** The link and name items stored in a note's partition. */
async function linkItemsOf(noteId: string) {
  const { Items = [] } = await table.doc.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.note(noteId).pk },
    }),
  );
  return Items.filter((item) => item.type === 'NoteLink' || item.type === 'NoteName');
}

describe('the stream consumer keeps the links between notes', () => {
  it("links each user's notes to their own notes only, by title and by saved URL", async () => {
    const a = await linkingUser(accounts);
    const b = await linkingUser(accounts);
    const aTarget = await saveLinkingNote(bookmarks, a, { url: 'https://example.com/queues', title: 'Queues' });
    const aByTitle = await saveLinkingNote(bookmarks, a, {
      url: 'https://example.com/a1',
      title: 'A1',
      comment: 'Compare [[queues]] today.',
    });
    const aByUrl = await saveLinkingNote(bookmarks, a, {
      url: 'https://example.com/a2',
      title: 'A2',
      comment: 'See https://EXAMPLE.com/queues?utm_source=feed first.',
    });
    const bTarget = await saveLinkingNote(bookmarks, b, { url: 'https://example.com/queues', title: 'Queues' });
    const bSource = await saveLinkingNote(bookmarks, b, {
      url: 'https://example.com/b1',
      title: 'B1',
      comment: 'Both [[Queues]] and https://example.com/queues.',
    });
    expect(await consume(await noteRecords(5))).toEqual([]);

    expect(await backlinkIds(a, aTarget)).toEqual([aByTitle.id, aByUrl.id].sort());
    expect(await backlinkIds(b, bTarget)).toEqual([bSource.id]);
    expect(await outgoing(aByTitle.id)).toEqual([{ target: 'queues', note: aTarget.id }]);
    expect(await outgoing(bSource.id)).toEqual([
      { target: 'Queues', note: bTarget.id },
      { target: 'https://example.com/queues', note: bTarget.id },
    ]);
  });

  it('ends at the newest edit whatever order, and however often, the records come in', async () => {
    const a = await linkingUser(accounts);
    const target = await saveLinkingNote(bookmarks, a, { url: 'https://example.com/t', title: 'Target' });
    const source = await saveLinkingNote(bookmarks, a, { url: 'https://example.com/s', title: 'Source' });
    await comment(source.id, 'About [[Target]].');
    await comment(source.id, 'Nothing to link.');
    await comment(source.id, 'Back to [[Target]].');
    const [targetSaved, created, edited, unlinked, linkedAgain] = await noteRecords(5);
    expect(await consume([targetSaved!])).toEqual([]);

    // Newest first, one record per batch: each older image finds the note moved on and projects the table.
    for (const record of [linkedAgain!, unlinked!, edited!, created!]) expect(await consume([record])).toEqual([]);
    expect(await backlinkIds(a, target)).toEqual([source.id]);
    expect((await links.backlinks(a, target))[0]!.context).toBe('Back to Target.');

    // A replay of the whole history, in order and reversed, in one batch.
    expect(await consume([created!, edited!, unlinked!, linkedAgain!, unlinked!, edited!])).toEqual([]);
    expect((await links.backlinks(a, target))[0]!.context).toBe('Back to Target.');
  });

  it("drops a deleted note's links for good, and leaves links to a deleted target waiting for a new one", async () => {
    const a = await linkingUser(accounts);
    const target = await saveLinkingNote(bookmarks, a, { url: 'https://example.com/old', title: 'Reading list' });
    const source = await saveLinkingNote(bookmarks, a, {
      url: 'https://example.com/src',
      title: 'Source',
      comment: 'Next: [[Reading list]].',
    });
    const gone = await saveLinkingNote(bookmarks, a, {
      url: 'https://example.com/gone',
      title: 'Gone soon',
      comment: 'Also [[Reading list]].',
    });
    const saves = await noteRecords(3);
    expect(await consume(saves)).toEqual([]);
    expect(await backlinkIds(a, target)).toEqual([source.id, gone.id].sort());

    await bookmarks.deleteNote(gone.id);
    await bookmarks.deleteNote(target.id);
    const deletes = await noteRecords(2);
    expect(await consume(deletes)).toEqual([]);
    expect(await linkItemsOf(gone.id)).toEqual([]);
    expect(await linkItemsOf(target.id)).toEqual([]);
    expect(await outgoing(source.id)).toEqual([{ target: 'Reading list', note: null }]);

    // The deleted notes' saves replayed late, alone and after their deletes: nothing comes back.
    expect(await consume(saves)).toEqual([]);
    expect(await consume([...deletes, ...saves])).toEqual([]);
    expect(await linkItemsOf(gone.id)).toEqual([]);
    expect(await linkItemsOf(target.id)).toEqual([]);

    // A new note of that title is saved: the waiting link resolves to it, and it has the backlink.
    const successor = await saveLinkingNote(bookmarks, a, { url: 'https://example.com/new', title: 'Reading List' });
    expect(await consume(await noteRecords(1))).toEqual([]);
    expect(await outgoing(source.id)).toEqual([{ target: 'Reading list', note: successor.id }]);
    expect(await backlinkIds(a, successor)).toEqual([source.id]);
  });

  it('reports the records from the first failed note on, and every record when the index fails', async () => {
    const a = await linkingUser(accounts);
    const first = await saveLinkingNote(bookmarks, a, { url: 'https://example.com/f1', title: 'First' });
    const failing = await saveLinkingNote(bookmarks, a, { url: 'https://example.com/f2', title: 'Failing' });
    await saveLinkingNote(bookmarks, a, { url: 'https://example.com/f3', title: 'Third' });
    const records = await noteRecords(3);
    const sequence = (record: DynamoDBRecord) => record.dynamodb!.SequenceNumber!;

    const flaky: LinkProjectionPorts = {
      ...linkPorts(),
      syncNote: async (note) => {
        if (note.id === failing.id) throw new Error('DynamoDB unavailable');
        return links.syncNote(note);
      },
    };
    expect(await consume(records, consumer({ links: flaky }))).toEqual(records.slice(1).map(sequence));
    expect(await linkItemsOf(first.id)).toHaveLength(1); // its name: done, not to be retried

    const brokenIndex: IndexWriter = {
      ...noIndex,
      versions: async () => {
        throw new Error('index storage unavailable');
      },
    };
    expect(await consume(records, consumer({ index: brokenIndex }))).toEqual(records.map(sequence));
    // The links were kept all the same: the retry finds nothing to write.
    expect(await linkItemsOf(failing.id)).toHaveLength(1);
    expect(await consume(records)).toEqual([]);
  });
});
