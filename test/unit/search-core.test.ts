import { describe, expect, it } from 'vitest';
import type { Note } from '../../functions/core/model';
import { buildNoteBody } from '../../functions/core/save/note-body';
import { decodeSearchCursor, encodeSearchCursor } from '../../functions/core/search/cursor';
import { searchDocument, siteKeys, stateKey, tagKey, urlKey } from '../../functions/core/search/document';
import { testEmbedder } from '../../functions/core/search/embedder';
import {
  noteVersionsFilter,
  queryFilter,
  UnsafeFilterValueError,
  userFilter,
  userRowsFilter,
} from '../../functions/core/search/filter';
import { parseQuery, QUERY_MAX_LENGTH, type SearchQuery } from '../../functions/core/search/query';
import { fuse } from '../../functions/core/search/search';
import { bestSnippet, snippetHtml, snippetText } from '../../functions/core/search/snippet';
import { editDistance, swappedLetters } from '../../functions/core/search/tokens';

const USER = '0b6f3c1e-2d4a-4c8e-9f10-1a2b3c4d5e6f';

function parsed(text: string): SearchQuery {
  const result = parseQuery(text);
  if (!result.ok) throw new Error(result.problem.message);
  return result.query;
}

describe('the query language', () => {
  it('reads words, phrases, prefixes, tags, exclusions and operators into a typed query', () => {
    const query = parsed(
      'kubernetes "service mesh" observ* #devops -#draft -legacy -"old api" site:Example.ORG after:2024-01-31 before:2024-03-01 has:highlight',
    );
    expect(query.required).toEqual([
      { kind: 'word', word: 'kubernetes', typos: 2 },
      { kind: 'phrase', words: ['service', 'mesh'] },
      { kind: 'prefix', prefix: 'observ' },
    ]);
    expect(query.excluded).toEqual([
      { kind: 'word', word: 'legacy', typos: 1 },
      { kind: 'phrase', words: ['old', 'api'] },
    ]);
    expect(query.tags).toEqual(['devops']);
    expect(query.excludedTags).toEqual(['draft']);
    expect(query.sites).toEqual(['example.org']);
    expect(query.after).toBe(Date.UTC(2024, 0, 31));
    expect(query.before).toBe(Date.UTC(2024, 2, 1));
    expect(query.hasHighlight).toBe(true);
  });

  it('tolerates typos only in words of five letters or more', () => {
    expect(parsed('cat').required).toEqual([{ kind: 'word', word: 'cat', typos: 0 }]);
    expect(parsed('bread').required).toEqual([{ kind: 'word', word: 'bread', typos: 1 }]);
  });

  it('keeps common words optional unless they are all there is', () => {
    const query = parsed('how to bake bread');
    expect(query.required.map((term) => term.kind === 'word' && term.word)).toEqual(['bake', 'bread']);
    expect(parsed('the who').required).toHaveLength(2);
  });

  it('normalises a pasted URL as saves do: fragment and tracking parameters dropped, host folded', () => {
    const query = parsed('https://Example.ORG/Guide?utm_source=x&id=7#part');
    expect(query.url).toBe('https://example.org/Guide?id=7');
    // Its scheme, host and query string are shared by unrelated notes: only the path's words rank the rest.
    expect(query.optional).toEqual([{ kind: 'word', word: 'guide', typos: 1 }]);
    expect(parsed('https://example.org/p/12345/a').optional).toEqual([]);
  });

  it("treats ' OR 1=1 -- as words, never as filter text", () => {
    const query = parsed("' OR 1=1 --");
    expect(query.optional).toEqual([{ kind: 'word', word: 'or', typos: 0 }]);
    expect(query.required).toEqual([{ kind: 'phrase', words: ['1', '1'] }]);
    expect(queryFilter(USER, query)).toBe(`user_id = '${USER}' AND deleted = false`);
  });

  it('puts no user text in the filter: tags and URLs are digests, hosts are checked', () => {
    const query = parsed(`#it's' site:a.example after:2024-01-01`);
    const filter = queryFilter(USER, query);
    expect(filter).not.toContain("it's");
    expect(filter).toBe(
      `user_id = '${USER}' AND deleted = false AND array_has(tag_keys, '${tagKey("it's'")}') AND (array_has(sites, 'a.example')) AND created >= ${Date.UTC(2024, 0, 1)}`,
    );
    expect(() => userFilter("x' OR '1'='1")).toThrow(UnsafeFilterValueError);
  });

  it('reads is:archived, is:starred and is:unread (and their negations) as reading-state filters on hashed keys', () => {
    expect(parsed('is:archived')).toMatchObject({ archived: true, starred: null, required: [] });
    expect(parsed('bread IS:Unread is:starred')).toMatchObject({ archived: false, starred: true });
    expect(parsed('-is:unread -is:starred')).toMatchObject({ archived: true, starred: false });
    expect(parsed('bread')).toMatchObject({ archived: null, starred: null });
    const held = (state: 'archived' | 'starred') => `array_has(tag_keys, '${stateKey(state)}')`;
    expect(queryFilter(USER, parsed('is:archived -is:starred'))).toBe(
      `user_id = '${USER}' AND deleted = false AND ${held('archived')} AND NOT ${held('starred')}`,
    );
    expect(queryFilter(USER, parsed('is:unread'))).toBe(
      `user_id = '${USER}' AND deleted = false AND NOT ${held('archived')}`,
    );
    // A state key is never a tag's key, whatever the tag.
    expect([tagKey('archived'), tagKey('state:archived')]).not.toContain(stateKey('archived'));
  });

  it('names rows by note and exact version (folded rows leaving the recent table), and refuses other shapes', () => {
    const note = '7b8bcc31-e2f1-408c-b322-d47dee2827da';
    expect(noteVersionsFilter([{ noteId: note, version: 3 }])).toBe(`(note_id = '${note}' AND version = 3)`);
    expect(noteVersionsFilter([])).toBe('false');
    expect(() => noteVersionsFilter([{ noteId: "x' OR '1'='1", version: 1 }])).toThrow(UnsafeFilterValueError);
    expect(() => noteVersionsFilter([{ noteId: note, version: 1.5 }])).toThrow(UnsafeFilterValueError);
    expect(userRowsFilter(USER)).toBe(`user_id = '${USER}'`);
  });

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['x'.repeat(QUERY_MAX_LENGTH + 1), 'too_long'],
    ['after:2024-02-30', 'bad_date'],
    ['before:yesterday', 'bad_date'],
    ['site:exa_mple..org', 'bad_site'],
    ['bread is:read', 'bad_state'],
    ['is:archived is:unread', 'bad_state'],
    ['!!! ??? ...', 'empty'],
  ])('refuses %j with %s', (text, code) => {
    const result = parseQuery(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem.code).toBe(code);
  });

  it.each(['"unbalanced quote', '-', '--', '"', '* * *', '#', '-#', 'site:', 'has:', '"""', '-"" x', ':'.repeat(1000)])(
    'never throws on hostile input %j',
    (text) => {
      expect(() => parseQuery(text)).not.toThrow();
    },
  );
});

const note: Note = {
  id: '7a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a5b',
  userId: USER,
  bookmarkId: '8a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a5b',
  url: 'https://www.Example.org/guide?utm_source=feed',
  title: 'Guide to sourdough',
  body: `${buildNoteBody({
    description: 'A long description of bread.',
    title: 'Guide to sourdough',
    url: 'https://www.example.org/guide',
    selection: 'Starter needs feeding daily.',
    comment: 'Try this #baking',
  })}\n\n> Second quote about hydration.`,
  tags: ['baking'],
  lastHighlight: null,
  created: '2024-02-01T10:00:00.000Z',
  updated: '2024-02-02T10:00:00.000Z',
  version: 3,
};

describe('the search document', () => {
  it('splits a note into weighted fields and hashed filter keys', () => {
    const document = searchDocument(note);
    expect(document).toMatchObject({
      note_id: note.id,
      user_id: USER,
      version: 3,
      title: 'Guide to sourdough',
      description: 'A long description of bread.',
      highlights: 'Starter needs feeding daily.\n\nSecond quote about hydration.',
      comment: 'Try this #baking',
      tags_text: 'baking',
      tag_keys: [tagKey('baking')],
      sites: ['www.example.org', 'example.org'],
      url_key: urlKey('https://www.example.org/guide'),
      highlight_count: 2,
      created: Date.parse(note.created),
    });
    expect(document.prefixes.split(' ')).toEqual(expect.arrayContaining(['so', 'sou', 'sourdough', 'hydrat']));
    const read = searchDocument({ ...note, archivedAt: note.created, starredAt: note.created });
    expect(read.tag_keys).toEqual([tagKey('baking'), stateKey('archived'), stateKey('starred')]);
  });

  it('never names a lone top-level domain as a site', () => {
    expect(siteKeys('a.b.example.org')).toEqual(['a.b.example.org', 'b.example.org', 'example.org']);
  });
});

describe('snippets', () => {
  it('pick the passage with the most query terms and mark each match', () => {
    const document = searchDocument(note);
    const snippet = bestSnippet(document, parsed('hydratoin quote'));
    expect(snippetText(snippet)).toBe('Starter needs feeding daily. Second **quote** about **hydration**.');
    expect(snippetHtml(bestSnippet({ ...document, highlights: '<b> & quote' }, parsed('quote')))).toBe(
      '&#60;b&#62; &#38; <mark>quote</mark>',
    );
  });

  it('mark prefixes and phrases', () => {
    const snippet = bestSnippet(searchDocument(note), parsed('"feeding daily" star*'));
    expect(snippetText(snippet)).toContain('**Starter** needs **feeding** **daily**');
  });
});

describe('cursors', () => {
  it('round-trip and refuse a cursor of another search or a forged one', () => {
    const cursor = encodeSearchCursor(20, 'keyword\nbread');
    expect(decodeSearchCursor(cursor, 'keyword\nbread')).toBe(20);
    expect(decodeSearchCursor(cursor, 'keyword\ncake')).toBeNull();
    expect(decodeSearchCursor('not a cursor', 'keyword\nbread')).toBeNull();
    expect(decodeSearchCursor(Buffer.from('{"o":-5}').toString('base64url'), 'x')).toBeNull();
  });
});

describe('fusion and embeddings', () => {
  it('reciprocal rank fusion favours notes both lists rank', () => {
    const hit = (id: string) => ({ note: { note_id: id } });
    const fused = fuse([hit('a'), hit('b'), hit('c')], [hit('b'), hit('d'), hit('c')]);
    expect(fused.map((entry) => entry.note.note_id)).toEqual(['b', 'c', 'a', 'd']);
  });

  it('the test embedder is deterministic and puts texts sharing words close', async () => {
    const embedder = testEmbedder(64);
    const [a, b, c] = await embedder.embed(
      ['sourdough starter', 'sourdough starter feeding', 'tax returns'],
      'document',
    );
    const dot = (x: number[], y: number[]) => x.reduce((sum, value, i) => sum + value * y[i]!, 0);
    expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!));
    expect(await embedder.embed(['sourdough starter'], 'query')).toEqual([a]);
  });

  it('edit distance counts two swapped letters as one edit and stops at its bound', () => {
    expect(editDistance('hydration', 'hydratoin', 2)).toBe(1);
    expect(editDistance('insomnia', 'insomina', 1)).toBe(1);
    expect(editDistance('kitten', 'sitting', 1)).toBe(2);
    expect(editDistance('kitten', 'sitting', 3)).toBe(3);
  });

  it('lists the swaps of neighbouring letters of a word', () => {
    expect(swappedLetters('insomina')).toContain('insomnia');
    expect(swappedLetters('abc')).toEqual(['bac', 'acb']);
    expect(swappedLetters('book')).toEqual(['obok', 'boko']);
  });
});
