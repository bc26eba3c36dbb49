import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoFeedStore } from '../../functions/adapters/dynamo/feed-store';
import { keys } from '../../functions/adapters/dynamo/keys';
import { newFeedRecord } from '../../functions/core/feed/settings';
import { isoTimestamp } from '../../functions/core/text/text';
import { createTestTable } from '../support/dynamo';

/**
 * The cost of a feed read must not grow with the owner's workspace: an owner with 5,000 notes and a
 * feed matching 10 of them reads a bounded number of items (no Scan, no non-matching notes).
 */

const WORKSPACE_SIZE = 5000;
const MATCHING = 10;
let table: Awaited<ReturnType<typeof createTestTable>>;
let store: DynamoFeedStore;
const userId = randomUUID();
const matchingIds: string[] = [];
const bothTagsIds: string[] = [];

beforeAll(async () => {
  table = await createTestTable();
  store = new DynamoFeedStore(table.doc, table.tableName);
  const items: Record<string, unknown>[] = [];
  const start = Date.parse('2026-01-01T00:00:00Z');
  for (let i = 0; i < WORKSPACE_SIZE; i++) {
    const id = randomUUID();
    const updated = isoTimestamp(new Date(start + i * 60_000));
    // Every 500th note is tagged #rare (10 in all); every other note is tagged #common, some also #rare-ish.
    const tags = i % 500 === 0 ? ['rare', 'common'] : i % 7 === 0 ? ['common', 'misc'] : ['common'];
    if (tags.includes('rare')) matchingIds.push(id);
    if (tags.includes('misc')) bothTagsIds.push(id);
    items.push({
      ...keys.note(id),
      type: 'Note',
      id,
      userId,
      title: `Note ${i}`,
      body: `Body ${i}`,
      tags,
      created: updated,
      updated,
      version: 1,
    });
    for (const tag of tags) {
      items.push({
        ...keys.noteTag(id, tag),
        ...keys.tagIndex(userId, tag, updated, id),
        type: 'NoteTag',
        noteId: id,
        tag,
        tags,
        updated,
      });
    }
  }
  for (let i = 0; i < items.length; i += 25) {
    await table.doc.send(
      new BatchWriteCommand({
        RequestItems: { [table.tableName]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
  }
}, 240_000);
afterAll(() => table.client.destroy());

const feed = (tags: string[], match: 'any' | 'all' = 'any') =>
  newFeedRecord({
    id: randomUUID(),
    userId,
    settings: { title: 'Feed', tags, match, sharing: 'public' },
    now: new Date(),
  });

/** The notes a feed read shows: its index entries, then those notes. */
async function matchingNotes(record: ReturnType<typeof feed>, max: number) {
  return store.notesOf(await store.matchingEntries(record, max));
}

describe('reading a feed from a large workspace', () => {
  it('reads only the matching notes and their index entries', async () => {
    table.requests.reset();
    const notes = await matchingNotes(feed(['rare']), 50);
    expect(notes.map((note) => note.id).sort()).toEqual([...matchingIds].sort());
    expect(table.requests.operations).not.toContain('ScanCommand');
    expect(table.requests.itemsRead).toBe(MATCHING * 2);
  });

  it('stops at the entry limit, newest first, however many notes match', async () => {
    table.requests.reset();
    const notes = await matchingNotes(feed(['common']), 50);
    expect(notes).toHaveLength(50);
    expect(table.requests.itemsRead).toBe(100);
    const updated = notes.map((note) => note.updated!);
    expect(updated.every((time) => time > '2026-01-04')).toBe(true);
  });

  it('merges several tags for `any` without duplicates', async () => {
    const notes = await matchingNotes(feed(['rare', 'misc']), 1000);
    const ids = notes.map((note) => note.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual([...new Set([...matchingIds, ...bothTagsIds])].sort());
  });

  it('reads an `all` feed from its rarest tag, whichever tag comes first, at a cost bounded by that tag', async () => {
    for (const tags of [
      ['common', 'rare'],
      ['rare', 'common'],
    ]) {
      table.requests.reset();
      const notes = await matchingNotes(feed(tags, 'all'), 50);
      expect(notes.map((note) => note.id).sort(), tags.join()).toEqual([...matchingIds].sort());
      // One page of #common's index (100 entries) beside all of #rare's (10), then the 10 notes: not the 5,000 notes with #common.
      expect(table.requests.itemsRead, tags.join()).toBeLessThanOrEqual(100 + MATCHING * 2);
    }
  });

  it('matches nothing for a feed without tags (made before feeds needed one), without reading anything', async () => {
    table.requests.reset();
    expect(await matchingNotes({ ...feed(['any']), tags: [] }, 50)).toEqual([]);
    expect(table.requests.count).toBe(0);
  });
});
