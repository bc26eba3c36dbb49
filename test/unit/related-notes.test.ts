import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../functions/core/search/embedder';
import { type RelatedIndex, relatedNotes } from '../../functions/core/search/related';
import type { IndexedNote } from '../../functions/core/search/search';

/** Related notes by vectors: a neighbour below the model's similarity floor is no "similar meaning". */

const note = (note_id: string, title: string, tags: string[]) =>
  ({ note_id, title, url: null, tags, created: '2026-11-01T00:00:00Z', updated: null }) as unknown as IndexedNote;

const glaciers = note('glaciers', 'How glaciers shape valleys', ['geology']);
const ice = note('ice', 'Ice ages and glacial cycles', ['climate']);
const bread = note('bread', 'Rye bread at home', ['baking']);
const moraines = note('moraines', 'Reading a moraine', ['geology']);

/** An index whose nearest neighbours of any vector are these, with these similarities. */
function indexWith(nearest: { note: IndexedNote; score: number }[]): RelatedIndex {
  return {
    note: async (_user: string, id: string) =>
      [glaciers, ...nearest.map((hit) => hit.note)].find((n) => n.note_id === id) ?? null,
    coverage: async () => ({ notes: nearest.length + 1, embedded: nearest.length + 1, waiting: 0 }),
    vectorOf: async () => [1, 0, 0],
    semantic: async () => [{ note: glaciers, score: 1 }, ...nearest],
  } as unknown as RelatedIndex;
}

const embedder: Embedder = {
  model: 'floored',
  floor: { alone: 0.3, besideMatches: 0.6 },
  embed: async (texts) => texts.map(() => [1, 0, 0]),
};

describe('related notes by vectors', () => {
  it('leaves out neighbours below the floor unless they share a tag', async () => {
    const index = indexWith([
      { note: ice, score: 0.55 },
      { note: moraines, score: 0.1 },
      { note: bread, score: 0.12 },
    ]);
    const answer = await relatedNotes({ index, embedder }, 'user', 'glaciers');
    expect(answer.mode).toBe('semantic');
    expect(answer.related.map(({ note_id, reason }) => [note_id, reason])).toEqual([
      ['ice', 'similar meaning'],
      ['moraines', 'shares #geology'],
    ]);
  });

  it('keeps every neighbour for a model without a floor', async () => {
    const index = indexWith([{ note: bread, score: 0.12 }]);
    const answer = await relatedNotes({ index, embedder: { ...embedder, floor: undefined } }, 'user', 'glaciers');
    expect(answer.related.map(({ note_id }) => note_id)).toEqual(['bread']);
  });
});
