import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webPaths } from '../../functions/core/web/paths';
import { contractFetch } from '../support/contract';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { type Owner, oauthAccessToken, signedInUser } from '../support/owner';

/**
 * Search and related notes through the local stack over real sockets: saves go through the save
 * route, the stream poller indexes them, and the search function answers from the index. Two users
 * share words and tags; neither ever sees the other's notes. Answers are checked against
 * openapi-v2.json by contractFetch.
 */
let t: TestStack;
let folder: string;
let alice: Owner;
let bob: Owner;
const ids: Record<string, string> = {};

async function save(owner: Owner, body: Record<string, unknown>): Promise<string> {
  const response = await t.save(owner.token, body);
  expect(response.status).toBe(200);
  return ((await response.json()) as { note_id: string }).note_id;
}

/** Polls `check` until it holds (the stream poller indexes within about a second), for at most 10 s. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const searchPath = (query: Record<string, string>) => `/api/v2/me/search?${new URLSearchParams(query)}`;
const hitIds = (body: { results: { note_id: string }[] }) => body.results.map((hit) => hit.note_id);

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'gleaner-search-api-'));
  // Keyword search (embeddings off), so every ranking here is BM25's; the built-in model's own tests are
  // test/integration/search-relevance.test.ts and test/http/search-cli.test.ts.
  t = await startTestStack({ GLEANER_EMBEDDINGS: 'off' }, { searchIndexUri: join(folder, 'index') });
  alice = await signedInUser(t);
  bob = await signedInUser(t);
  ids.aliceBread = await save(alice, {
    url: 'https://bread.example/sourdough-starter',
    title: 'Sourdough starter care',
    selection: 'Feed the starter twice a day while it is young.',
    comment: 'Keep at room temperature #baking #sourdough',
  });
  ids.aliceRye = await save(alice, {
    url: 'https://bread.example/rye',
    title: 'Rye sourdough loaves',
    comment: 'Dense but worth it #baking',
  });
  ids.aliceLevain = await save(alice, {
    url: 'https://notes.example/levain',
    title: 'Levain timing',
    selection: 'A sourdough starter peaks four to twelve hours after feeding.',
  });
  ids.aliceRust = await save(alice, { url: 'https://rust.example/borrow', title: 'Borrow checker rules #rust' });
  // Bob's notes share Alice's words and tags, and outrank hers for them.
  ids.bobBread = await save(bob, {
    url: 'https://bread.example/sourdough-starter',
    title: 'Sourdough starter sourdough starter sourdough',
    comment: 'sourdough starter feed twice #baking #sourdough',
  });
  ids.bobBaking = await save(bob, { url: 'https://bob.example/baking', title: 'Baking sourdough #baking' });
  // Found by filters and by words (every address holds `example`): the full-text indexes the keyword
  // searches read are brought up to date just after the rows the filters read are written.
  const everyNote = async (owner: Owner, q: string) => hitIds(await owner.api(searchPath({ q })).then(json));
  await eventually(async () => {
    for (const q of ['-#nothing', 'example'])
      if ((await everyNote(alice, q)).length !== 4 || (await everyNote(bob, q)).length !== 2) return false;
    return true;
  });
}, 90_000);

afterAll(async () => {
  await t?.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('GET /api/v2/me/search', () => {
  it("finds only the caller's notes, even where another user's rank higher for the same words", async () => {
    const response = await alice.api(searchPath({ q: 'sourdough starter' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toContain('no-store');
    const body = await json(response);
    expect(body.mode).toBe('keyword');
    expect(hitIds(body)).toEqual([ids.aliceBread, ids.aliceLevain]);
    expect(body.results[0].snippet).toMatch(/<mark>[Ss]ourdough<\/mark>/);
    for (const [user, own] of [
      [alice, [ids.aliceBread, ids.aliceRye, ids.aliceLevain, ids.aliceRust]],
      [bob, [ids.bobBread, ids.bobBaking]],
    ] as const) {
      for (const query of ['sourdough', '#baking', '#sourdough', 'starter', 'site:bread.example', '-#nothing']) {
        const found = hitIds(await user.api(searchPath({ q: query })).then(json));
        expect(found.length, query).toBeGreaterThan(0);
        expect(
          found.every((id) => own.includes(id)),
          `${query}: ${found}`,
        ).toBe(true);
      }
    }
  });

  it('says semantic is unavailable without an embedding model, and never calls keyword results semantic', async () => {
    const body = await json(await alice.api(searchPath({ q: 'sourdough', mode: 'semantic' })));
    expect(body.mode).toBe('keyword');
    expect(body.reason).toMatch(/semantic search unavailable: no embedding model/);
  });

  it('pages with the cursor', async () => {
    const first = await json(await alice.api(searchPath({ q: '#baking', limit: '1' })));
    expect(first.results).toHaveLength(1);
    expect(first.cursor).toEqual(expect.any(String));
    const second = await json(await alice.api(searchPath({ q: '#baking', limit: '1', cursor: first.cursor })));
    expect(second.results).toHaveLength(1);
    expect(second.results[0].note_id).not.toBe(first.results[0].note_id);
    expect(second.cursor).toBeNull();
  });

  it('answers 422 in the contract’s shape for a bad query, limit, mode or cursor', async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'q'],
      [{ q: '' }, 'q'],
      [{ q: '   ' }, 'q'],
      [{ q: 'x'.repeat(1001) }, 'q'],
      [{ q: 'bread after:2024-02-30' }, 'q'],
      [{ q: 'bread before:yesterday' }, 'q'],
      [{ q: 'bread', limit: '0' }, 'limit'],
      [{ q: 'bread', limit: '101' }, 'limit'],
      [{ q: 'bread', limit: 'ten' }, 'limit'],
      [{ q: 'bread', limit: '-1' }, 'limit'],
      [{ q: 'bread', mode: 'fuzzy' }, 'mode'],
      [{ q: 'bread', cursor: 'not-a-cursor' }, 'cursor'],
    ];
    for (const [query, field] of cases) {
      const response = await alice.api(searchPath(query));
      expect(response.status, JSON.stringify(query)).toBe(422);
      const { detail } = await json(response);
      expect(detail[0]).toEqual({ loc: ['query', field], msg: expect.any(String), type: expect.any(String) });
    }
    // A cursor of another search (another query) is refused too.
    const page = await json(await alice.api(searchPath({ q: '#baking', limit: '1' })));
    const other = await alice.api(searchPath({ q: 'sourdough', limit: '1', cursor: page.cursor }));
    expect(other.status).toBe(422);
  });

  it('filters by reading state (is:archived, is:starred, is:unread) as the indexer projects it, the caller’s notes only', async () => {
    const patch = (owner: Owner, noteId: string, body: unknown) =>
      owner.api(`/api/v2/me/notes/${noteId}`, { method: 'PATCH', body });
    expect((await patch(alice, ids.aliceRye!, { archived: true })).status).toBe(200);
    expect((await patch(alice, ids.aliceLevain!, { starred: true })).status).toBe(200);
    expect((await patch(bob, ids.bobBread!, { archived: true, starred: true })).status).toBe(200);
    const found = async (owner: Owner, q: string) => hitIds(await json(await owner.api(searchPath({ q })))).sort();
    // Each change reaches the index through the stream on its own: wait for each answer.
    const finds = (owner: Owner, q: string, expected: string[]) =>
      eventually(async () => JSON.stringify(await found(owner, q)) === JSON.stringify([...expected].sort()));
    await finds(alice, 'is:archived', [ids.aliceRye!]);
    await finds(alice, 'sourdough is:archived', [ids.aliceRye!]);
    await finds(alice, 'is:starred', [ids.aliceLevain!]);
    await finds(alice, 'sourdough is:unread', [ids.aliceBread!, ids.aliceLevain!]);
    await finds(alice, '#baking -is:archived', [ids.aliceBread!]);
    await finds(bob, 'is:archived is:starred', [ids.bobBread!]);
    await finds(bob, 'is:unread', [ids.bobBaking!]);
    // Back to the inbox: the next projection drops it from is:archived.
    await patch(alice, ids.aliceRye!, { archived: false });
    await finds(alice, 'is:archived', []);
    await finds(alice, 'rye is:unread', [ids.aliceRye!]);
    const refused = await alice.api(searchPath({ q: 'bread is:read' }));
    expect(refused.status).toBe(422);
    expect((await json(refused)).detail[0].msg).toContain('is:archived, is:starred or is:unread');
  });

  it('never answers 5xx to hostile queries', async () => {
    const hostile = [
      "' OR 1=1 --",
      '"unbalanced quote',
      '"',
      '-',
      '- - -',
      '#',
      '-#',
      '*',
      'a*',
      'site:',
      'site:.',
      'site:bread.example OR user_id',
      'after:',
      'has:',
      'has:everything',
      '\u0000\u0001',
      'sourdough\u0000',
      '🍞 🥖',
      '((((((',
      "'; DROP TABLE notes; --",
      "user_id = 'x' OR true",
      '!@#$%^&*()_+{}|:"<>?~`-=[]\\;\',./'.repeat(30).slice(0, 1000),
      '"'.repeat(1000),
      '-'.repeat(1000),
      '#'.repeat(1000),
      'https://',
      'https://bread.example/sourdough-starter?utm_source=x#top',
      'javascript:alert(1)',
      '<script>alert(1)</script>',
    ];
    for (const q of hostile) {
      const response = await alice.api(searchPath({ q }));
      expect([200, 422], JSON.stringify(q)).toContain(response.status);
      const body = await json(response);
      if (response.status === 200)
        expect(hitIds(body).every((id: string) => !Object.values([ids.bobBread, ids.bobBaking]).includes(id))).toBe(
          true,
        );
    }
  });

  it('finds a pasted URL’s bookmark first', async () => {
    const body = await json(
      await alice.api(searchPath({ q: 'https://BREAD.example/rye?utm_source=newsletter#comments' })),
    );
    expect(body.results[0].note_id).toBe(ids.aliceRye);
  });

  it('takes OAuth access tokens with notes:read, and refuses those without it', async () => {
    const url = `${t.stack.baseUrl}${searchPath({ q: 'sourdough' })}`;
    const reader = await oauthAccessToken(t, bob.user.id, ['notes:read']);
    const allowed = await contractFetch(url, {
      headers: { Authorization: `Bearer ${reader}`, Origin: 'https://client.example' },
    });
    expect(allowed.status).toBe(200);
    // A browser client on its own origin reads the answer, as the per-user API's preflight promised.
    expect(allowed.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(hitIds(await json(allowed)).sort()).toEqual([ids.bobBread, ids.bobBaking].sort());
    const feedsOnly = await oauthAccessToken(t, bob.user.id, ['feeds:read']);
    expect((await contractFetch(url, { headers: { Authorization: `Bearer ${feedsOnly}` } })).status).toBe(403);
    expect((await contractFetch(url)).status).toBe(401);
    // A personal access token only saves bookmarks.
    expect((await contractFetch(url, { headers: { Authorization: `Bearer ${bob.token}` } })).status).toBe(401);
  });
});

describe('GET /api/v2/me/notes/{note_id}/related', () => {
  it('gives related notes with reasons, never another user’s', async () => {
    const response = await alice.api(`/api/v2/me/notes/${ids.aliceBread}/related`);
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.mode).toBe('keyword');
    expect(body.note_id).toBe(ids.aliceBread);
    const byId = Object.fromEntries(
      body.related.map((note: { note_id: string; reason: string }) => [note.note_id, note]),
    );
    expect(Object.keys(byId)).not.toContain(ids.aliceBread);
    expect(Object.keys(byId)).not.toContain(ids.bobBread);
    expect(Object.keys(byId)).not.toContain(ids.bobBaking);
    expect(byId[ids.aliceRye!].reason).toContain('shares #baking');
    expect(byId[ids.aliceLevain!].reason).toBe('similar text');
    expect(body.related[0].note_id).toBe(ids.aliceRye);
    expect(body.related.length).toBeLessThanOrEqual(5);
  });

  it('answers 404 for another user’s note and 422 for a malformed id', async () => {
    const other = await alice.api(`/api/v2/me/notes/${ids.bobBread}/related`);
    expect(other.status).toBe(404);
    expect((await json(other)).detail).toEqual(expect.any(String));
    expect((await alice.api('/api/v2/me/notes/00000000-0000-4000-8000-000000000000/related')).status).toBe(404);
    expect((await alice.api('/api/v2/me/notes/not-a-uuid/related')).status).toBe(422);
  });
});

describe('the search pages (no script)', () => {
  const page = (owner: Owner | null, path: string) =>
    fetch(`${t.stack.baseUrl}${path}`, { headers: owner ? { Cookie: owner.cookie } : {}, redirect: 'manual' });

  it('renders results with marked snippets from the Library’s form, for the session’s user only', async () => {
    const library = await (await page(alice, webPaths.library)).text();
    expect(library).toContain(`action="${webPaths.search}"`);
    expect(library).toContain('name="q"');
    const response = await page(alice, `${webPaths.search}?q=${encodeURIComponent('sourdough starter')}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await response.text();
    expect(html).toContain(`/library/notes/${ids.aliceBread}`);
    expect(html).toMatch(/<mark>[Ss]ourdough<\/mark>/);
    expect(html).not.toContain(ids.bobBread);
    expect(html).not.toMatch(/<script>(?!<\/script>)/);
  });

  it('shows a refused query on the page, escaped', async () => {
    const response = await page(alice, `${webPaths.search}?q=${encodeURIComponent('<b>x</b> after:2024-99-99')}`);
    expect(response.status).toBe(422);
    const html = await response.text();
    expect(html).toContain('role="alert"');
    expect(html).not.toContain('<b>x</b>');
  });

  it('sends a visitor without a session to sign in, and refuses OAuth tokens', async () => {
    const response = await page(null, `${webPaths.search}?q=bread`);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toContain(webPaths.signIn);
    const token = await oauthAccessToken(t, alice.user.id, ['notes:read']);
    const refused = await fetch(`${t.stack.baseUrl}${webPaths.search}?q=bread`, {
      headers: { Authorization: `Bearer ${token}` },
      redirect: 'manual',
    });
    expect(refused.status).toBe(403);
  });

  it('shows related notes with reasons on their own page, and 404 for another user’s note', async () => {
    const note = await (await page(alice, `/library/notes/${ids.aliceBread}`)).text();
    expect(note).toContain(`/library/notes/${ids.aliceBread}/related`);
    const related = await page(alice, `/library/notes/${ids.aliceBread}/related`);
    expect(related.status).toBe(200);
    const html = await related.text();
    expect(html).toContain('shares #baking');
    expect(html).not.toContain(ids.bobBread);
    expect((await page(alice, `/library/notes/${ids.bobBread}/related`)).status).toBe(404);
  });
});
