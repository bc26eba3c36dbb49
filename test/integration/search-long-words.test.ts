import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LanceSearchIndex } from '../../functions/adapters/search/lance-index';
import { testEmbedder } from '../../functions/core/search/embedder';
import { QUERY_MAX_LENGTH } from '../../functions/core/search/query';
import { searchNotes } from '../../functions/core/search/search';
import { indexWithVectors, searchableNote, temporaryIndex } from '../support/search-notes';

/**
 * Words of any length up to the query's limit, in any script, are searched, never a server error:
 * the engine's typo-tolerant match refuses long words (a Levenshtein automaton over its size limit),
 * so those are searched exactly. The API, /library/search and MCP's search_notes all run searchNotes.
 */

const user = randomUUID();
const embedder = testEmbedder(32);
let index: LanceSearchIndex;
let dispose: () => void;

beforeAll(async () => {
  ({ index, dispose } = await temporaryIndex());
  await indexWithVectors(index, embedder, [
    searchableNote(user, { title: 'Kubernetes networking explained', url: 'https://k.example.org/' }),
    searchableNote(user, { title: `A pasted token ${'x'.repeat(300)}`, url: 'https://token.example.org/' }),
  ]);
}, 60_000);
afterAll(() => dispose?.());

const search = (text: string, mode: string) => searchNotes({ index, embedder }, user, text, { mode });

/** One word of one script, `length` letters (code points) long. */
const word = fc
  .tuple(fc.integer({ min: 1, max: QUERY_MAX_LENGTH }), fc.constantFrom('a', 'é', 'ж', '語', '😀', 'ab', 'kubernetes'))
  .map(([length, unit]) => [...unit.repeat(length)].slice(0, length).join(''));

describe('long query words', () => {
  it('searches every word up to the query limit, in every mode, with or without other words', async () => {
    await fc.assert(
      fc.asyncProperty(
        word,
        fc.constantFrom('keyword', 'hybrid'),
        fc.constantFrom('', ' kubernetes', ' -networking'),
        async (text, mode, rest) => {
          const query = `${text}${rest}`.slice(0, QUERY_MAX_LENGTH);
          const result = await search(query, mode);
          // Emoji alone are no word: the query is empty (a 422), as it is at any length.
          expect(result.ok ? 'ok' : result.problem.code).toBe(/^😀+$/u.test(query) ? 'empty' : 'ok');
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
