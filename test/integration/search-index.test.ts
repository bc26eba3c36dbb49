import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, Index, MatchQuery } from '@lancedb/lancedb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LanceSearchIndex } from '../../functions/adapters/search/lance-index';
import { embeddingText, searchDocument, searchDocumentWithArticle } from '../../functions/core/search/document';
import { testEmbedder } from '../../functions/core/search/embedder';
import { indexNotes } from '../../functions/core/search/indexer';
import { relatedNotes } from '../../functions/core/search/related';
import { type SearchOptions, searchNotes } from '../../functions/core/search/search';
import { snippetText } from '../../functions/core/search/snippet';
import { indexWithVectors, searchableNote, temporaryIndex } from '../support/search-notes';

const alice = randomUUID();
const bob = randomUUID();
const embedder = testEmbedder(32);
let index: LanceSearchIndex;
let dispose: () => void;

const aliceNotes = [
  searchableNote(alice, {
    title: 'Kubernetes networking explained',
    description: 'How pods talk to services.',
    selection: 'Every pod gets its own IP address.',
    comment: 'Great overview #devops',
    tags: ['devops'],
    url: 'https://kubernetes.example.org/docs/networking',
    created: '2024-02-10T09:00:00.000Z',
  }),
  searchableNote(alice, {
    title: 'Sourdough starter maintenance',
    description: 'Feeding schedules for a healthy starter.',
    tags: ['baking'],
    url: 'https://bread.example.com/starter',
    created: '2024-03-05T09:00:00.000Z',
  }),
  searchableNote(alice, {
    title: 'Legacy kubernetes install notes',
    comment: 'old cluster, do not use #draft',
    tags: ['draft', 'devops'],
    url: 'https://wiki.example.net/k8s-legacy',
    created: '2024-01-02T09:00:00.000Z',
  }),
];
// Bob's notes outrank Alice's for the shared words: a filter applied after the top hits would leave Alice none.
const bobNotes = Array.from({ length: 60 }, (_, i) =>
  searchableNote(bob, {
    title: `Kubernetes kubernetes networking networking ${'part '.repeat(i)}`,
    description: 'kubernetes networking pods services sourdough',
    url: `https://bob.example.org/${i}`,
  }),
);

async function search(userId: string, text: string, options: SearchOptions = {}, withEmbedder = false) {
  const result = await searchNotes({ index, embedder: withEmbedder ? embedder : null }, userId, text, options);
  if (!result.ok) throw new Error(result.problem.message);
  return result.answer;
}

const ids = async (userId: string, text: string, options: SearchOptions = {}) =>
  (await search(userId, text, options)).results.map((result) => result.note_id);

beforeAll(async () => {
  ({ index, dispose } = await temporaryIndex());
  await indexWithVectors(index, embedder, [...aliceNotes, ...bobNotes]);
}, 60_000);
afterAll(() => dispose?.());

describe('the user filter is inside the engine query', () => {
  it('finds only the searching user’s notes though another user’s rank higher', async () => {
    const found = await ids(alice, 'kubernetes', { limit: 2 });
    expect(found.sort()).toEqual([aliceNotes[0]!.id, aliceNotes[2]!.id].sort());
    const bobs = await ids(bob, 'kubernetes', { limit: 100 });
    expect(bobs).toHaveLength(60);
    expect(bobs.some((id) => aliceNotes.some((note) => note.id === id))).toBe(false);
  });

  it('keeps semantic and hybrid results to the user too', async () => {
    for (const mode of ['semantic', 'hybrid']) {
      const answer = await search(alice, 'kubernetes networking pods', { mode, limit: 10 }, true);
      expect(answer.mode).toBe(mode);
      expect(answer.results.map((result) => result.note_id)).not.toContain(bobNotes[0]!.id);
      expect(answer.results.every((result) => aliceNotes.some((note) => note.id === result.note_id))).toBe(true);
    }
  });

  it("treats ' OR 1=1 -- as words: it finds nothing rather than everything", async () => {
    expect(await ids(alice, "' OR 1=1 --")).toEqual([]);
    expect(await ids(alice, "kubernetes' OR '1'='1")).toEqual([]);
  });
});

describe('the query language against the engine', () => {
  it.each([
    ['kubernetes', [0, 2]],
    ['"pods talk"', [0]],
    ['"talk pods"', []],
    ['sourd*', [1]],
    ['kubernets', [0, 2]],
    ['kubernetes #devops -#draft', [0]],
    ['kubernetes -legacy', [0]],
    ['site:example.com', [1]],
    ['kubernetes after:2024-02-01', [0]],
    ['before:2024-02-01', [2]],
    ['has:highlight', [0]],
    ['#baking', [1]],
  ])('%s', async (text, expected) => {
    const found = await ids(alice, text as string);
    expect(found.sort()).toEqual((expected as number[]).map((i) => aliceNotes[i]!.id).sort());
  });

  it('ranks a title match above a description match', async () => {
    const found = await ids(alice, 'starter');
    expect(found[0]).toBe(aliceNotes[1]!.id);
  });

  it('puts a pasted URL’s bookmark first, normalised as saves are', async () => {
    const found = await ids(alice, 'https://WIKI.example.net/k8s-legacy?utm_source=x#top');
    expect(found[0]).toBe(aliceNotes[2]!.id);
  });

  it('marks the matches in the snippet', async () => {
    const [hit] = (await search(alice, 'pod address')).results;
    expect(snippetText(hit!.snippet)).toBe('Every **pod** gets its own IP **address**.');
  });

  it('pages with a cursor bound to the query', async () => {
    const first = await search(bob, 'networking', { limit: 25 });
    const second = await search(bob, 'networking', { limit: 25, cursor: first.cursor! });
    const third = await search(bob, 'networking', { limit: 25, cursor: second.cursor! });
    const all = [...first.results, ...second.results, ...third.results].map((result) => result.note_id);
    expect(new Set(all).size).toBe(60);
    expect(third.cursor).toBeNull();
    const wrong = await searchNotes({ index, embedder: null }, bob, 'pods', { cursor: first.cursor! });
    expect(wrong).toMatchObject({ ok: false, problem: { code: 'bad_cursor' } });
  });
});

describe('modes say what really ran', () => {
  it('runs keyword without an embedder and says why', async () => {
    const answer = await search(alice, 'kubernetes', { mode: 'semantic' });
    expect(answer.mode).toBe('keyword');
    expect(answer.reason).toMatch(/no embedding model is configured/);
  });

  it('stays keyword until vectors cover the user’s notes', async () => {
    const carol = randomUUID();
    await index.upsert([searchDocument(searchableNote(carol, { title: 'Unembedded kubernetes note' }))]);
    const answer = await search(carol, 'kubernetes', {}, true);
    expect(answer.mode).toBe('keyword');
    expect(answer.reason).toMatch(/cover 0 of 1 notes/);
  });
});

describe('a note being embedded', () => {
  // The indexer writes a batch's text first and its vectors moments later: meanwhile the user's other
  // notes are still searched by meaning, and only the waiting notes are found by their words alone.
  it("leaves the user's other notes to semantic search while a new, edited or restored note waits for its vectors", async () => {
    const own = await temporaryIndex();
    try {
      const erin = randomUUID();
      const settled = [
        searchableNote(erin, { title: 'Glacier moraine field guide' }),
        searchableNote(erin, { title: 'Glacier crevasse rescue' }),
        searchableNote(erin, { title: 'Glacier ice core dating' }),
      ];
      await indexWithVectors(own.index, embedder, settled);
      await own.index.optimize();
      const semantic = async (text: string) => {
        const result = await searchNotes({ index: own.index, embedder }, erin, text, { mode: 'semantic' });
        if (!result.ok) throw new Error(result.problem.message);
        return result.answer;
      };
      expect((await semantic('glacier crevasse')).mode).toBe('semantic');

      // A new note and an edit, their text written and their vectors not yet; a note restored from the Trash.
      await own.index.hide([{ noteId: settled[2]!.id, userId: erin, version: 2 }]);
      await own.index.optimize();
      const fresh = searchableNote(erin, { title: 'Glacier fresh unembedded note' });
      await own.index.upsert([
        searchDocument(fresh),
        searchDocument({ ...settled[0]!, title: 'Glacier moraine field guide, edited', version: 2 }),
        searchDocument({ ...settled[2]!, version: 3 }),
      ]);
      const meanwhile = await semantic('glacier crevasse');
      expect(meanwhile).toMatchObject({ mode: 'semantic', model: embedder.model });
      expect(meanwhile.results.map((hit) => hit.note_id)).toContain(settled[1]!.id);
      expect(meanwhile.results.map((hit) => hit.note_id)).not.toContain(fresh.id);

      // Once folded, a note still without vectors is no longer one being embedded: keyword, saying why.
      await own.index.optimize();
      expect(await semantic('glacier crevasse')).toMatchObject({
        mode: 'keyword',
        reason: expect.stringMatching(/cover 2 of 4 notes/),
      });
    } finally {
      own.dispose();
    }
  });
});

describe('writes move forward only', () => {
  it('never replaces a newer version, and a tombstone keeps a note deleted', async () => {
    const dave = randomUUID();
    const v2 = searchableNote(dave, { title: 'Second version words', version: 2 });
    const v1 = { ...v2, title: 'First version words', version: 1 };
    await index.upsert([searchDocument(v2)]);
    await index.upsert([searchDocument(v1)]);
    expect(await ids(dave, 'second')).toEqual([v2.id]);
    expect(await ids(dave, 'first')).toEqual([]);

    await index.tombstone([{ noteId: v2.id, userId: dave }]);
    await index.upsert([searchDocument({ ...v2, version: 3 })]);
    expect(await ids(dave, 'second')).toEqual([]);
    expect((await index.versions([{ noteId: v2.id }])).get(v2.id)).toMatchObject({ deleted: true });
  });
});

describe('the fold', () => {
  it('keeps a recent row whose main-table write has not landed (a batch between its two writes)', async () => {
    const own = await temporaryIndex();
    try {
      const erin = randomUUID();
      const written = searchableNote(erin, { title: 'Written whole' });
      const halfway = searchableNote(erin, { title: 'Halfway written' });
      await own.index.upsert([searchDocument(written)]);
      // The recent table's write landed, the main table's not yet.
      const db = await connect(own.folder);
      await (await db.openTable('recent_notes')).add([{ ...searchDocument(halfway), deleted: false }]);
      db.close();
      await own.index.optimize();
      expect(await own.index.unfoldedRows()).toBe(1);
      const found = await searchNotes({ index: own.index, embedder: null }, erin, 'written');
      expect(found.ok && found.answer.results.map((hit) => hit.note_id).sort()).toEqual(
        [written.id, halfway.id].sort(),
      );
    } finally {
      own.dispose();
    }
  });
});

describe('two writers on one index', () => {
  it('retry the commits the other pre-empted (LanceDB: "Retryable commit conflict") and lose no note', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'gleaner-search-writers-'));
    const writers = [await LanceSearchIndex.open({ uri: folder }), await LanceSearchIndex.open({ uri: folder })];
    try {
      const [henry, iris] = [randomUUID(), randomUUID()];
      // Settled, not raced: a writer's failure surfaces after the other has stopped writing the folder.
      const settled = await Promise.allSettled(
        writers.map(async (writer, w) => {
          const notes = Array.from({ length: 12 }, (_, i) =>
            searchableNote(w ? iris : henry, { title: `Contended note ${w} ${i}` }),
          );
          // One batch a note (each a few commits), then a fold, while the other writer does the same.
          for (const note of notes) await writer.upsert([searchDocument(note)]);
          await writer.optimize();
          return notes;
        }),
      );
      const written = settled.map((outcome) => {
        if (outcome.status === 'rejected') throw outcome.reason;
        return outcome.value;
      });
      for (const [w, userId] of [henry, iris].entries()) {
        const found = await searchNotes({ index: writers[0]!, embedder: null }, userId, 'contended', { limit: 50 });
        expect(found.ok && found.answer.results.map((hit) => hit.note_id).sort()).toEqual(
          written[w]!.map((note) => note.id).sort(),
        );
      }
    } finally {
      for (const writer of writers) writer.close();
      rmSync(folder, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('old versions and indexes', () => {
  it('lets go of versions older than it keeps after a fold, and indexes the vectors by user', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'gleaner-search-versions-'));
    const own = await LanceSearchIndex.open({ uri: folder, keepVersionsSeconds: 0 });
    try {
      const [frank, grace] = [randomUUID(), randomUUID()];
      const notes = Array.from({ length: 12 }, (_, i) =>
        searchableNote(i % 2 ? grace : frank, { title: `Versioned note ${i}` }),
      );
      // One batch a note, each with its vectors: a few versions of each table every time.
      for (const note of notes) {
        const document = searchDocument(note);
        const [vector] = await embedder.embed([embeddingText(document)], 'document');
        await own.upsert([document], { model: embedder.model, rows: [{ noteId: note.id, vector: vector! }] });
      }
      const db = await connect(folder);
      const versions = async () =>
        Object.fromEntries(
          await Promise.all(
            (await db.tableNames()).map(async (name) => [
              name,
              (await (await db.openTable(name)).listVersions()).length,
            ]),
          ),
        ) as Record<string, number>;
      const before = await versions();
      expect(Math.min(...Object.values(before))).toBeGreaterThan(10);
      await own.optimize();
      const after = await versions();
      for (const [name, count] of Object.entries(after)) expect(count, name).toBeLessThanOrEqual(2);
      const vectors = (await db.tableNames()).find((name) => name.startsWith('vectors_'))!;
      const indexed = (await (await db.openTable(vectors)).listIndices()).flatMap((index) => index.columns);
      expect(indexed).toEqual(expect.arrayContaining(['user_id', 'note_id']));
      db.close();
      // Everything is still found, by its owner only.
      const found = await searchNotes({ index: own, embedder }, frank, 'versioned', { limit: 20 });
      expect(found.ok && found.answer.results.map((hit) => hit.note_id).sort()).toEqual(
        notes
          .filter((note) => note.userId === frank)
          .map((note) => note.id)
          .sort(),
      );
      const semantic = await searchNotes({ index: own, embedder }, grace, 'versioned note', { mode: 'semantic' });
      expect(
        semantic.ok &&
          semantic.answer.results.every((hit) => notes.find((n) => n.id === hit.note_id)?.userId === grace),
      ).toBe(true);
    } finally {
      own.close();
      rmSync(folder, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('kept articles in the index', () => {
  it('upgrades an index written before the article field: old notes found, new ones by their article', async () => {
    const own = await temporaryIndex();
    let reopened: LanceSearchIndex | null = null;
    try {
      const frank = randomUUID();
      const old = searchableNote(frank, { title: 'Moorland walk' });
      await own.index.upsert([searchDocument(old)]);
      await own.index.optimize();
      own.index.close();
      // An index from before: neither table has the article's column (nor its full-text index).
      const db = await connect(own.folder);
      for (const name of ['notes', 'recent_notes']) await (await db.openTable(name)).dropColumns(['article']);
      db.close();

      reopened = await LanceSearchIndex.open({ uri: own.folder });
      const found = async (text: string) => {
        const answer = await searchNotes({ index: reopened!, embedder: null }, frank, text);
        return answer.ok ? answer.answer.results.map((hit) => hit.note_id) : answer.problem.message;
      };
      expect(await found('moorland')).toEqual([old.id]);
      const kept = searchableNote(frank, { title: 'Saturday' });
      await reopened.upsert([searchDocumentWithArticle(kept, 'The rare quillwort grows in the pond.')]);
      expect(await found('quillwort')).toEqual([kept.id]);
      await reopened.optimize();
      expect(await found('quillwort')).toEqual([kept.id]);
      expect(await found('moorland')).toEqual([old.id]);
    } finally {
      reopened?.close();
      rmSync(own.folder, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('kept articles in semantic search', () => {
  it("embeds a kept article in chunks: a passage deep in it finds its note, the owner's only; a delete takes them", async () => {
    const own = await temporaryIndex();
    try {
      const chunky = testEmbedder(256);
      const gail = randomUUID();
      const hank = randomUUID();
      const filler = Array.from({ length: 40 }, (_, i) => `walkers rested by the reservoir as skylarks sang ${i}`);
      const article = `${filler.join('. ')}. Glacier moraine and cirque, with erratic boulders. ${filler.join('. ')}`;
      const hash = 'ab'.repeat(32);
      const kept = { ...searchableNote(gail, { title: 'Saturday' }), articleHash: hash };
      const plain = searchableNote(gail, { title: 'Sunday market' });
      const ice = searchableNote(gail, { title: 'Glacier moraine cirque erratic boulders' });
      const hanks = { ...searchableNote(hank, { title: 'Saturday' }), articleHash: hash };
      await indexNotes(
        { index: own.index, embedder: chunky, articleText: async (note) => (note.articleHash ? article : null) },
        [kept, plain, ice, hanks],
      );
      const nearest = async (userId: string) => {
        const found = await searchNotes({ index: own.index, embedder: chunky }, userId, 'glacier moraine cirque', {
          mode: 'semantic',
        });
        if (!found.ok) throw new Error(found.problem.message);
        return found.answer.results.map((hit) => hit.note_id);
      };
      // The passage is in the article's middle chunk; the note's own text shares no word with the query.
      expect((await nearest(gail)).slice(0, 2).sort()).toEqual([kept.id, ice.id].sort());
      expect(await nearest(gail)).not.toContain(hanks.id);
      expect(await nearest(hank)).toEqual([hanks.id]);
      // Related notes: the kept page says what its note is about, the glacier note's page its neighbour.
      const related = await relatedNotes({ index: own.index, embedder: chunky }, gail, kept.id);
      expect(related.mode).toBe('semantic');
      expect(related.related[0]).toMatchObject({ note_id: ice.id, reason: 'similar meaning' });

      const db = await connect(own.folder, { readConsistencyInterval: 0 });
      const [chunkTable] = (await db.tableNames()).filter((name) => name.startsWith('chunks_'));
      const chunks = await db.openTable(chunkTable!);
      expect(await chunks.countRows(`note_id = '${kept.id}'`)).toBe(5);
      await own.index.tombstone([{ noteId: kept.id, userId: gail }]);
      expect(await chunks.countRows(`note_id = '${kept.id}'`)).toBe(0);
      expect(await chunks.countRows(`note_id = '${hanks.id}'`)).toBe(5);
      expect(await nearest(gail)).not.toContain(kept.id);
      db.close();
    } finally {
      own.dispose();
    }
  }, 120_000);
});

describe('the LanceDB 0.31.0 behaviour the index works around (lance-index.ts)', () => {
  it('drops rows its full-text index does not cover yet once one repeats a word most indexed rows hold', async () => {
    const { folder, dispose: remove } = await temporaryIndex();
    try {
      const db = await connect(folder);
      const table = await db.createTable('engine', [{ title: 'sourdough starter' }]);
      await table.createIndex('title', { config: Index.fts() });
      await table.add([{ title: 'sourdough sourdough loaf' }, { title: 'baking sourdough' }]);
      const titles = async (fastSearch: boolean) => {
        const query = table.query().fullTextSearch(new MatchQuery('sourdough', 'title'));
        return (await (fastSearch ? query.fastSearch() : query).select(['title', '_score']).toArray())
          .map((row) => String(row.title))
          .sort();
      };
      // The rows not indexed yet are scored with a document frequency counted per occurrence: an IDF ≤ 0.
      expect(await titles(false)).toEqual(['sourdough starter']);
      await table.optimize();
      expect(await titles(true)).toEqual(['baking sourdough', 'sourdough sourdough loaf', 'sourdough starter']);
      db.close();
    } finally {
      remove();
    }
  });
});
