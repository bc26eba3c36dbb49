import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureNotes, judgedQueries, type QueryClass, relevance } from '../../bench/search-fixture';
import { BUILT_IN_MODEL, builtInEmbedder } from '../../functions/adapters/search/embedders';
import type { LanceSearchIndex } from '../../functions/adapters/search/lance-index';
import { type Embedder, testEmbedder } from '../../functions/core/search/embedder';
import { indexNotes } from '../../functions/core/search/indexer';
import { hasWords, parseQuery } from '../../functions/core/search/query';
import { searchNotes } from '../../functions/core/search/search';
import { temporaryIndex } from '../support/search-notes';

/**
 * Floors under the judged fixture's figures per query class (bench/search-fixture.ts); `npm run bench`
 * prints them. Keyword search finds no paraphrase (they share no word with their note): none is asserted.
 */
const FLOORS: Record<'keyword' | 'hybrid', Partial<Record<QueryClass, { recallAt10: number; mrr: number }>>> = {
  keyword: { keyword: { recallAt10: 0.95, mrr: 0.9 }, filters: { recallAt10: 0.95, mrr: 0.9 } },
  hybrid: { keyword: { recallAt10: 0.95, mrr: 0.85 }, filters: { recallAt10: 0.95, mrr: 0.85 } },
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

function searcher(mode: 'keyword' | 'hybrid' | 'semantic', using: Embedder | null = embedder, within = () => index) {
  return async (query: string) => {
    const result = await searchNotes({ index: within(), embedder: mode === 'keyword' ? null : using }, user, query, {
      mode,
      limit: 10,
    });
    if (!result.ok) throw new Error(`${query}: ${result.problem.message}`);
    // Without words to compare (filters only) a search is keyword, whatever was asked.
    const parsed = parseQuery(query);
    expect(result.answer.mode, query).toBe(
      mode !== 'keyword' && parsed.ok && hasWords(parsed.query) ? mode : 'keyword',
    );
    return result.answer.results.map((hit) => {
      const key = keyOf.get(hit.note_id);
      if (!key) throw new Error(`${query} found another user's note ${hit.note_id}`);
      return key;
    });
  };
}

describe('relevance on the judged fixture', () => {
  it('has about 150 notes and 40 judged queries, 15 of them paraphrases', () => {
    expect(notes.length).toBeGreaterThanOrEqual(145);
    expect(judgedQueries.length).toBeGreaterThanOrEqual(40);
    expect(judgedQueries.filter((query) => query.feature === 'paraphrase').length).toBeGreaterThanOrEqual(15);
  });

  it.each(['keyword', 'hybrid'] as const)(
    '%s search stays above its recall@10 and MRR floors per query class',
    async (mode) => {
      const figures = await relevance(searcher(mode));
      for (const [name, floor] of Object.entries(FLOORS[mode])) {
        const found = figures.byClass[name as QueryClass];
        expect(found.recallAt10, `${name}; missed: ${figures.misses.join(' | ')}`).toBeGreaterThanOrEqual(
          floor.recallAt10,
        );
        expect(found.mrr, name).toBeGreaterThanOrEqual(floor.mrr);
      }
    },
    120_000,
  );
});

/**
 * The built-in model (Universal Sentence Encoder lite, in the npm package) on the same judged set,
 * with another user's 2,000 notes in the index: copies of the fixture's notes, so every one of them
 * is as near to a query as the searcher's own and only the user filter keeps them out. The figures
 * are docs/search.md's; each floor sits a little under its figure.
 */
describe('semantic search out of the box', () => {
  const BUILT_IN_FLOORS: Record<'hybrid' | 'semantic', Record<QueryClass, { recallAt10: number; mrr: number }>> = {
    hybrid: {
      keyword: { recallAt10: 0.95, mrr: 0.95 },
      filters: { recallAt10: 0.95, mrr: 0.95 },
      paraphrase: { recallAt10: 0.9, mrr: 0.65 },
    },
    semantic: {
      keyword: { recallAt10: 0.9, mrr: 0.75 },
      filters: { recallAt10: 0.95, mrr: 0.75 },
      paraphrase: { recallAt10: 0.9, mrr: 0.65 },
    },
  };
  const model = builtInEmbedder();
  // The other user's copies embed the same texts: computed once each.
  const memo = new Map<string, Promise<number[]>>();
  const memoised: Embedder = {
    ...model,
    embed: async (texts, purpose) => {
      const missing = [...new Set(texts.filter((text) => !memo.has(text)))];
      const vectors = model.embed(missing, purpose);
      for (const [i, text] of missing.entries())
        memo.set(
          text,
          vectors.then((all) => all[i]!),
        );
      return Promise.all(texts.map((text) => memo.get(text)!));
    },
  };
  let own: Awaited<ReturnType<typeof temporaryIndex>>;

  beforeAll(async () => {
    own = await temporaryIndex();
    const others = Array.from({ length: 2000 }, (_, i) => {
      const { note } = notes[i % notes.length]!;
      return { ...note, id: idOf(`stranger:${i}`), userId: other, bookmarkId: idOf(`stranger-bookmark:${i}`) };
    });
    await indexNotes({ index: own.index, embedder: memoised }, [...notes.map(({ note }) => note), ...others]);
    await own.index.optimize();
  }, 600_000);
  afterAll(() => own?.dispose());

  it('is the default embedder, named in the answer', async () => {
    expect(model.model).toBe(BUILT_IN_MODEL);
    const result = await searchNotes({ index: own.index, embedder: memoised }, user, 'keeping honey insects');
    expect(result).toMatchObject({ ok: true, answer: { mode: 'hybrid', model: BUILT_IN_MODEL } });
  });

  it('ranks the keyword matches first, then only near neighbours (not every note some distance away)', async () => {
    const found = await searcher('hybrid', memoised, () => own.index)('sourdough starter');
    expect(found[0]).toBe('sourdough-starter');
    const baking = ['sourdough-hydration', 'bread-machine', 'cheese-making', 'fermentation', 'croissant', 'bagels'];
    expect(found.slice(1).filter((key) => !baking.includes(key) && key !== 'bread-science')).toEqual([]);
    expect((await searcher('hybrid', memoised, () => own.index)('rust -cast -roses')).slice(0, 2).sort()).toEqual([
      'rust-async',
      'rust-ownership',
    ]);
  });

  it.each(['hybrid', 'semantic'] as const)(
    '%s search with it stays above its floors per query class',
    async (mode) => {
      const figures = await relevance(searcher(mode, memoised, () => own.index));
      for (const [name, floor] of Object.entries(BUILT_IN_FLOORS[mode])) {
        const found = figures.byClass[name as QueryClass];
        expect(found.recallAt10, `${mode} ${name}; missed: ${figures.misses.join(' | ')}`).toBeGreaterThanOrEqual(
          floor.recallAt10,
        );
        expect(found.mrr, `${mode} ${name}`).toBeGreaterThanOrEqual(floor.mrr);
      }
    },
    300_000,
  );
});
