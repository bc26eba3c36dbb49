import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureNotes, judgedQueries, relevance } from '../../bench/search-fixture';
import type { LanceSearchIndex } from '../../functions/adapters/search/lance-index';
import { testEmbedder } from '../../functions/core/search/embedder';
import { indexNotes } from '../../functions/core/search/indexer';
import { searchNotes } from '../../functions/core/search/search';
import { temporaryIndex } from '../support/search-notes';

/** Floors under the judged fixture's figures (bench/search-fixture.ts); `npm run bench` prints them. */
const FLOORS = {
  keyword: { recallAt10: 0.95, mrr: 0.9 },
  hybrid: { recallAt10: 0.95, mrr: 0.85 },
};

const user = randomUUID();
const other = randomUUID();
const embedder = testEmbedder(64);
const idOf = (key: string) => {
  const hex = createHash('sha256').update(key).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};
const notes = fixtureNotes(user, idOf);
const keyOf = new Map(notes.map(({ key, note }) => [note.id, key]));
let index: LanceSearchIndex;
let dispose: () => void;

beforeAll(async () => {
  ({ index, dispose } = await temporaryIndex());
  // Another user holds the same notes: none of them may ever be found.
  const copies = fixtureNotes(other, (key) => idOf(`other:${key}`));
  await indexNotes(
    { index, embedder },
    [...notes, ...copies].map(({ note }) => note),
  );
  await index.optimize();
}, 120_000);
afterAll(() => dispose?.());

function searcher(mode: 'keyword' | 'hybrid') {
  return async (query: string) => {
    const result = await searchNotes({ index, embedder: mode === 'hybrid' ? embedder : null }, user, query, {
      mode,
      limit: 10,
    });
    if (!result.ok) throw new Error(`${query}: ${result.problem.message}`);
    expect(result.answer.mode, query).toBe(mode === 'hybrid' && /[a-z]/i.test(query) ? 'hybrid' : 'keyword');
    return result.answer.results.map((hit) => {
      const key = keyOf.get(hit.note_id);
      if (!key) throw new Error(`${query} found another user's note ${hit.note_id}`);
      return key;
    });
  };
}

describe('relevance on the judged fixture', () => {
  it('has at least 100 notes and 30 judged queries', () => {
    expect(notes.length).toBeGreaterThanOrEqual(100);
    expect(judgedQueries.length).toBeGreaterThanOrEqual(30);
  });

  it.each(['keyword', 'hybrid'] as const)(
    '%s search stays above its recall@10 and MRR floors',
    async (mode) => {
      const figures = await relevance(searcher(mode));
      expect(figures.recallAt10, `missed: ${figures.misses.join(' | ')}`).toBeGreaterThanOrEqual(
        FLOORS[mode].recallAt10,
      );
      expect(figures.mrr).toBeGreaterThanOrEqual(FLOORS[mode].mrr);
    },
    120_000,
  );
});
