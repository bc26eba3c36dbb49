/**
 * The vector tables' approximate index (IVF-PQ, made at the fold once a table passes its row count):
 * its nearest neighbours against exact search on the same table, per user.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@lancedb/lancedb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LanceSearchIndex } from '../../functions/adapters/search/lance-index';
import { testEmbedder } from '../../functions/core/search/embedder';
import { userFilter } from '../../functions/core/search/filter';
import { parseQuery } from '../../functions/core/search/query';
import { indexWithVectors, searchableNote } from '../support/search-notes';

const embedder = testEmbedder(64);
const [alice, bob] = [randomUUID(), randomUUID()];
const folder = mkdtempSync(join(tmpdir(), 'gleaner-vector-index-'));
let index: LanceSearchIndex;
let seed = 11;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const words = (count: number) => Array.from({ length: count }, () => `w${Math.floor(random() * 400)}`).join(' ');

beforeAll(async () => {
  index = await LanceSearchIndex.open({ uri: folder, vectorIndexAtRows: 3000 });
  const notes = Array.from({ length: 4000 }, (_, i) => searchableNote(i % 4 === 3 ? bob : alice, { title: words(8) }));
  await indexWithVectors(index, embedder, notes);
  await index.optimize();
}, 300_000);
afterAll(() => {
  index?.close();
  rmSync(folder, { recursive: true, force: true });
});

it('finds at least 95% of the exact top 10 through the index, never another user’s notes', async () => {
  const db = await connect(folder);
  const name = (await db.tableNames()).find((table) => table.startsWith('vectors_'))!;
  const table = await db.openTable(name);
  expect((await table.listIndices()).map((found) => found.indexType)).toContain('IvfPq');
  const query = parseQuery('anything');
  if (!query.ok) throw new Error('query');
  let recall = 0;
  const queries = 40;
  for (let i = 0; i < queries; i++) {
    const [vector] = await embedder.embed([words(3)], 'query');
    const exact = await table
      .query()
      .nearestTo(vector!)
      .distanceType('cosine')
      .where(userFilter(alice))
      .bypassVectorIndex()
      .select(['note_id'])
      .limit(10)
      .toArray();
    const approximate = await index.semantic(alice, query.query, vector!, embedder.model, 10);
    const found = new Set(approximate.map((hit) => hit.note.note_id));
    recall += exact.filter((row) => found.has(String(row.note_id))).length / exact.length;
    const bobs = await table.query().where(userFilter(bob)).select(['note_id']).toArray();
    const bobIds = new Set(bobs.map((row) => String(row.note_id)));
    expect(approximate.some((hit) => bobIds.has(hit.note.note_id))).toBe(false);
  }
  db.close();
  expect(recall / queries).toBeGreaterThanOrEqual(0.95);
}, 300_000);
