import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAT_REFUSED_DETAIL } from '../../functions/http/owner-auth';
import { type RouteDefinition, routes } from '../../functions/platform/routes';
import { contractFetch } from '../support/contract';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { itemsOf, type Owner, oauthAccessToken, savedPage, signedInUser, tableItems } from '../support/owner';

/**
 * The per-user API over real sockets, with the real authentication (sessions and OAuth tokens as
 * stored by sign-in and the authorization server). Every answer is checked against openapi-v2.json
 * (contractFetch). Two users throughout; the attack cases are generated from the route table.
 */

let t: TestStack;
let alice: Owner;
let bob: Owner;
const ownerRoutes = routes.filter((route) => route.owner && route.path.startsWith('/api/v2/'));

beforeAll(async () => {
  t = await startTestStack({ OWNER_RATE_LIMIT: '5000;w=60', SAVE_RATE_LIMIT: '5000;w=60' });
  [alice, bob] = await Promise.all([signedInUser(t), signedInUser(t)]);
});
afterAll(() => t.stop());

const savePage = (owner: Owner, url: string, extra: Record<string, unknown> = {}) => savedPage(t, owner, url, extra);

describe('notes', () => {
  it('lists newest first a page at a time, filters by tag, and shows a note whole', async () => {
    const first = await savePage(alice, 'https://example.com/one', {
      description: 'What one is about',
      selection: 'A quoted line',
      comment: 'why it matters #reading',
    });
    const second = await savePage(alice, 'https://example.com/two', { comment: '#later' });
    await savePage(alice, 'https://example.com/one', { selection: 'Another line' });

    const page1 = await json(await alice.api('/api/v2/me/notes?limit=1'));
    expect(page1.notes.map((note: { id: string }) => note.id)).toEqual([first]);
    const page2 = await json(await alice.api(`/api/v2/me/notes?limit=1&cursor=${page1.next_cursor}`));
    expect(page2.notes.map((note: { id: string }) => note.id)).toEqual([second]);

    const tagged = await json(await alice.api('/api/v2/me/notes?tag=%23Reading'));
    expect(tagged.notes.map((note: { id: string }) => note.id)).toEqual([first]);

    const note = await json(await alice.api(`/api/v2/me/notes/${first}`));
    expect(note).toMatchObject({
      id: first,
      url: 'https://example.com/one',
      description: 'What one is about',
      tags: ['reading'],
      comment: null,
      icon: null,
    });
    expect(note.highlights.map((highlight: { quote: string }) => highlight.quote)).toEqual([
      'A quoted line',
      'Another line',
    ]);
    expect(note.highlights[0].comment).toBe('why it matters #reading');
    expect(Date.parse(note.highlights[0].saved)).toBeLessThanOrEqual(Date.parse(note.highlights[1].saved));
  });

  it("edits title, comment and tags, moving the note between tag filters and feeding the save path's next append", async () => {
    const noteId = await savePage(alice, 'https://example.com/edit', { comment: '#draft' });
    const edited = await alice.api(`/api/v2/me/notes/${noteId}`, {
      method: 'PATCH',
      body: { title: 'Better title', comment: 'My own words', tags: ['#Final', 'keep'] },
    });
    expect(edited.status).toBe(200);
    expect(await json(edited)).toMatchObject({
      title: 'Better title',
      comment: 'My own words',
      tags: ['final', 'keep'],
    });
    const drafts = await json(await alice.api('/api/v2/me/notes?tag=draft'));
    expect(drafts.notes.map((note: { id: string }) => note.id)).not.toContain(noteId);
    const finals = await json(await alice.api('/api/v2/me/notes?tag=final'));
    expect(finals.notes.map((note: { id: string }) => note.id)).toContain(noteId);
    // A later save keeps the edit and adds its hashtag.
    await savePage(alice, 'https://example.com/edit', { selection: 'More', comment: '#extra' });
    expect(await json(await alice.api(`/api/v2/me/notes/${noteId}`))).toMatchObject({
      title: 'Better title',
      comment: 'My own words',
      tags: ['final', 'keep', 'extra'],
    });
  });

  it('refuses invalid edits with the contract’s 422 and deletes a note to the Trash', async () => {
    const noteId = await savePage(alice, 'https://example.com/gone');
    const invalid = await alice.api(`/api/v2/me/notes/${noteId}`, {
      method: 'PATCH',
      body: { title: '', tags: ['a b'] },
    });
    expect(invalid.status).toBe(422);
    const issues = (await json(invalid)).detail;
    expect(issues.map((issue: { loc: unknown[] }) => issue.loc)).toContainEqual(['body', 'title']);
    expect((await alice.api('/api/v2/me/notes/not-a-uuid')).status).toBe(422);

    expect((await alice.api(`/api/v2/me/notes/${noteId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await alice.api(`/api/v2/me/notes/${noteId}`)).status).toBe(404);
    expect((await json(await alice.api('/api/v2/me/trash'))).notes.map((note: { id: string }) => note.id)).toEqual([
      noteId,
    ]);
    // Deleted for good, the URL is new again: saving it creates a bookmark (test/http/trash.test.ts has the rest).
    expect((await alice.api(`/api/v2/me/trash/${noteId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await json(await t.save(alice.token, { url: 'https://example.com/gone' }))).is_new_bookmark).toBe(true);
  });
});

describe('tags', () => {
  it('counts, renames (refusing a name in use) and merges, feed filters included', async () => {
    const owner = await signedInUser(t);
    await savePage(owner, 'https://example.com/t1', { comment: '#aws #queues' });
    await savePage(owner, 'https://example.com/t2', { comment: '#aws' });
    await savePage(owner, 'https://example.com/t3', { comment: '#cloud' });
    const feed = await json(
      await owner.api('/api/v2/me/feeds', { method: 'POST', body: { title: 'AWS', tags: ['aws'] } }),
    );
    expect(await json(await owner.api('/api/v2/me/tags'))).toEqual({
      tags: [
        { name: 'aws', count: 2 },
        { name: 'cloud', count: 1 },
        { name: 'queues', count: 1 },
      ],
    });
    const clash = await owner.api('/api/v2/me/tags/aws', { method: 'PATCH', body: { name: 'cloud' } });
    expect(clash.status).toBe(409);
    const renamed = await owner.api('/api/v2/me/tags/aws', { method: 'PATCH', body: { name: 'amazon' } });
    expect(await json(renamed)).toEqual({ tag: 'amazon', notes_changed: 2 });
    expect((await json(await owner.api(`/api/v2/me/feeds/${feed.id}`))).tags).toEqual(['amazon']);
    const merged = await owner.api('/api/v2/me/tags/amazon/merge', { method: 'POST', body: { into: 'cloud' } });
    expect(await json(merged)).toEqual({ tag: 'cloud', notes_changed: 2 });
    expect(await json(await owner.api('/api/v2/me/tags'))).toEqual({
      tags: [
        { name: 'cloud', count: 3 },
        { name: 'queues', count: 1 },
      ],
    });
    expect((await owner.api('/api/v2/me/tags/nothing', { method: 'PATCH', body: { name: 'x' } })).status).toBe(404);
  });
});

describe('feeds', () => {
  it('creates, lists, changes visibility and deletes, each with page, RSS, Atom and JSON Feed addresses', async () => {
    await savePage(alice, 'https://example.com/feed-me', { comment: '#published' });
    const created = await alice.api('/api/v2/me/feeds', {
      method: 'POST',
      body: { title: 'Published', tags: ['published'] },
    });
    expect(created.status).toBe(201);
    const feed = await json(created);
    expect(feed).toMatchObject({ sharing: 'private', match: 'any', items: 'notes' });
    for (const field of ['page_url', 'json_url', 'rss_url', 'atom_url', 'json_feed_url'])
      expect(feed[field]).toMatch(new RegExp(`^${t.stack.baseUrl}/.*${feed.id}`));
    expect((await fetch(feed.rss_url)).status).toBe(404);

    const shared = await alice.api(`/api/v2/me/feeds/${feed.id}`, { method: 'PATCH', body: { sharing: 'link' } });
    expect((await json(shared)).sharing).toBe('link');
    for (const field of ['page_url', 'json_url', 'rss_url', 'atom_url', 'json_feed_url'])
      expect((await fetch(feed[field])).status, field).toBe(200);
    expect((await json(await alice.api('/api/v2/me/feeds'))).feeds.map((f: { id: string }) => f.id)).toContain(feed.id);

    const invalid = await alice.api('/api/v2/me/feeds', { method: 'POST', body: { title: 'No tags', tags: [] } });
    expect(invalid.status).toBe(422);
    expect((await alice.api(`/api/v2/me/feeds/${feed.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(feed.json_url)).status).toBe(404);
  });
});

describe('API tokens', () => {
  it('creates a token whose secret is shown once and saves, lists it without the secret, and revokes it', async () => {
    const created = await alice.api('/api/v2/me/tokens', {
      method: 'POST',
      body: { label: 'Phone', expires_in_days: 30 },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('Cache-Control')).toContain('no-store');
    const token = await json(created);
    expect(token.token).toMatch(/^gln_/);
    expect(Date.parse(token.expires) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    expect((await t.save(token.token, { url: 'https://example.com/with-new-token' })).status).toBe(200);

    const listed = await json(await alice.api('/api/v2/me/tokens'));
    const entry = listed.tokens.find((candidate: { id: string }) => candidate.id === token.id);
    expect(entry).toMatchObject({ label: 'Phone', revoked: false });
    expect(JSON.stringify(listed)).not.toContain(token.token);

    const revoked = await alice.api(`/api/v2/me/tokens/${token.id}`, { method: 'DELETE' });
    expect((await json(revoked)).revoked).toBe(true);
    expect((await t.save(token.token, { url: 'https://example.com/after-revoke' })).status).toBe(401);
  });
});

describe('account', () => {
  it('reads the account and exports everything it holds', async () => {
    expect(await json(await alice.api('/api/v2/me'))).toMatchObject({ id: alice.user.id, plan: 'free' });
    const exported = await alice.api('/api/v2/me/export');
    expect(exported.headers.get('Content-Disposition')).toContain('attachment');
    const document = await json(exported);
    expect(document.account.id).toBe(alice.user.id);
    expect(document.bookmarks.map((bookmark: { url: string }) => bookmark.url)).toContain('https://example.com/one');
    expect(document.tokens.length).toBeGreaterThan(0);
  });

  it('deletes the account with every row it owns, and nothing of another account', async () => {
    const leaving = await signedInUser(t);
    const noteId = await savePage(leaving, 'https://example.com/leaving', {
      selection: 'quote',
      comment: '#bye',
    });
    await t.save(leaving.token, { url: 'https://example.com/keyed' }, { 'Idempotency-Key': 'k-1' });
    await leaving.api('/api/v2/me/feeds', { method: 'POST', body: { title: 'Bye', tags: ['bye'] } });
    await leaving.api('/api/v2/me/tokens', { method: 'POST', body: { label: 'Extra' } });
    await oauthAccessToken(t, leaving.user.id, ['notes:read']);
    const before = await tableItems(t);
    const tokens = before.filter((item) => item.type === 'AccessToken' && item.userId === leaving.user.id);
    const owned = (items: Record<string, unknown>[]) => [
      ...itemsOf(items, leaving.user.id),
      ...itemsOf(items, noteId),
      ...tokens.flatMap((token) => itemsOf(items, token.id as string)),
    ];
    expect(owned(before).length).toBeGreaterThan(10);
    const othersBefore = before.length - new Set(owned(before)).size;

    const refused = await leaving.api('/api/v2/me', { method: 'DELETE', body: { confirm: 'yes' } });
    expect(refused.status).toBe(422);
    const deleted = await leaving.api('/api/v2/me', { method: 'DELETE', body: { confirm: 'delete my account' } });
    expect(deleted.status).toBe(204);

    const after = await tableItems(t);
    expect(owned(after)).toEqual([]);
    expect(after.length).toBe(othersBefore);
    expect((await leaving.api('/api/v2/me')).status).toBe(401);
    expect((await t.save(leaving.token, { url: 'https://example.com/after' })).status).toBe(401);
  });
});

/** A request to `route` with every path parameter filled from `ids`. */
function pathOf(route: RouteDefinition, ids: Record<string, string>): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(ids[name]!));
}

/** A body the route accepts, so a refusal is about who asks, not what they sent. */
const validBodies: Record<string, unknown> = {
  EditMyNote: { title: 'Taken over' },
  RenameMyTag: { name: 'stolen' },
  MergeMyTag: { into: 'stolen' },
  EditMyFeed: { sharing: 'public' },
  CreateMyFeed: { title: 'x', tags: ['x'] },
  CreateMyToken: { label: 'x' },
  DeleteMyAccount: { confirm: 'delete my account' },
  RateMyHighlight: { rating: 'discard' },
  CreateMyHighlight: { quote: 'A private line' },
  EditMyHighlight: { comment: 'stolen' },
  EditMyReviewSettings: { size: 15 },
};

describe('browser clients on other origins (CORS)', () => {
  const origin = 'https://reader.example';

  it('answers the preflight of every /api/v2/me path for any origin, with Authorization, and never with credentials', async () => {
    const paths = [...new Set(ownerRoutes.map((route) => route.path))];
    expect(paths.length).toBeGreaterThan(5);
    for (const path of paths) {
      const methods = ownerRoutes.filter((route) => route.path === path).map((route) => route.method);
      const preflight = await fetch(`${t.stack.baseUrl}${path.replace(/\{[^}]+\}/g, 'x')}`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': methods.at(-1)!,
          'Access-Control-Request-Headers': 'authorization, content-type',
        },
      });
      expect(preflight.status, path).toBe(204);
      expect(preflight.headers.get('Access-Control-Allow-Origin'), path).toBe('*');
      expect(preflight.headers.get('Access-Control-Allow-Headers')?.split(','), path).toEqual(
        expect.arrayContaining(['Authorization', 'Content-Type']),
      );
      expect(preflight.headers.get('Access-Control-Allow-Methods')?.split(','), path).toEqual(
        expect.arrayContaining(methods),
      );
      expect(preflight.headers.get('Access-Control-Allow-Credentials'), path).toBeNull();
    }
  });

  it('sends the CORS headers on its answers to a bearer token, refusals included, so the client can read them', async () => {
    const token = await oauthAccessToken(t, alice.user.id, ['notes:read']);
    const listed = await fetch(`${t.stack.baseUrl}/api/v2/me/notes`, {
      headers: { Origin: origin, Authorization: `Bearer ${token}` },
    });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(listed.headers.get('Access-Control-Allow-Credentials')).toBeNull();
    expect(listed.headers.get('Access-Control-Expose-Headers')).toContain('RateLimit-Remaining');

    const refused = await fetch(`${t.stack.baseUrl}/api/v2/me/notes`, {
      headers: { Origin: origin, Authorization: 'Bearer not-a-token' },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(refused.headers.get('Access-Control-Expose-Headers')).toContain('WWW-Authenticate');
  });
});

describe('attacks, generated from the route table', () => {
  let victim: Owner;
  let victimIds: Record<string, string>;

  beforeAll(async () => {
    victim = await signedInUser(t);
    const noteId = await savePage(victim, 'https://example.com/private-note', {
      comment: '#secret',
      selection: 'A private line',
    });
    const feed = await json(
      await victim.api('/api/v2/me/feeds', { method: 'POST', body: { title: 'Mine', tags: ['secret'] } }),
    );
    const [highlight] = (await json(await victim.api(`/api/v2/me/notes/${noteId}`))).highlights;
    const upload = await json(
      await victim.api('/api/v2/me/imports', { method: 'POST', body: { file_name: 'pocket.csv' } }),
    );
    victimIds = {
      import_id: upload.import.id,
      note_id: noteId,
      feed_id: feed.id,
      token_id: victim.tokenId,
      tag: 'secret',
      highlight_id: highlight.id,
    };
  });

  /** What the victim has, read as the victim: it must be the same after every attack. */
  async function victimState() {
    const [notes, tags, feeds, tokens, note, review, reviewSettings] = await Promise.all(
      [
        '/api/v2/me/notes',
        '/api/v2/me/tags',
        '/api/v2/me/feeds',
        '/api/v2/me/tokens',
        `/api/v2/me/notes/${victimIds.note_id}`,
        '/api/v2/me/review',
        '/api/v2/me/review-settings',
      ].map(async (path) => json(await victim.api(path))),
    );
    return { notes, tags, feeds, tokens, note, review, reviewSettings };
  }

  it('gives user A none of user B’s notes, feeds, tags or tokens through any /api/v2 route', async () => {
    const before = await victimState();
    const byId = ownerRoutes.filter((route) => route.path.includes('{'));
    expect(byId.length).toBeGreaterThanOrEqual(9);
    for (const route of byId) {
      const response = await bob.api(pathOf(route, victimIds), { method: route.method, body: validBodies[route.id] });
      expect(response.status, `${route.id} with the other user's ids`).toBe(404);
      expect(await response.text()).not.toContain(victimIds.note_id);
    }
    // Lists and the account are the caller's own: none of the victim's records appear.
    for (const route of ownerRoutes.filter(
      (candidate) => candidate.method === 'GET' && !candidate.path.includes('{'),
    )) {
      const text = await (await bob.api(route.path)).text();
      for (const id of [victimIds.note_id, victimIds.feed_id, victimIds.token_id, victim.user.id])
        expect(text, `${route.id} shows ${id}`).not.toContain(id);
      expect(text).not.toContain('"secret"');
    }
    expect(await victimState()).toEqual(before);
  });

  it('refuses a personal access token on every /api/v2 route, with a detail that says what PATs are for', async () => {
    for (const route of ownerRoutes) {
      const response = await contractFetch(`${t.stack.baseUrl}${pathOf(route, victimIds)}`, {
        method: route.method,
        headers: { Authorization: `Bearer ${victim.token}`, 'Content-Type': 'application/json' },
        body: route.method === 'GET' ? undefined : JSON.stringify(validBodies[route.id] ?? {}),
      });
      expect(response.status, route.id).toBe(401);
      expect((await json(response)).detail, route.id).toBe(PAT_REFUSED_DETAIL);
      expect(response.headers.get('RateLimit-Limit'), route.id).toBeTruthy();
    }
  });

  it('refuses anonymous callers, session writes without the CSRF token, OAuth tokens without the scope, for another audience, or on session-only routes', async () => {
    const readOnly = await oauthAccessToken(t, victim.user.id, ['notes:read', 'feeds:read']);
    const everything = await oauthAccessToken(t, victim.user.id, [
      'notes:read',
      'notes:write',
      'feeds:read',
      'feeds:write',
    ]);
    const elsewhere = await oauthAccessToken(t, victim.user.id, ['notes:read'], `${t.stack.webBaseUrl}/mcp`);
    const call = (route: RouteDefinition, headers: Record<string, string>) =>
      contractFetch(`${t.stack.baseUrl}${pathOf(route, victimIds)}`, {
        method: route.method,
        headers: { 'Content-Type': 'application/json', ...headers },
        body: route.method === 'GET' ? undefined : JSON.stringify(validBodies[route.id] ?? {}),
      });
    const before = await victimState();
    for (const route of ownerRoutes) {
      expect((await call(route, {})).status, `${route.id} anonymous`).toBe(401);
      expect((await call(route, { Authorization: `Bearer ${elsewhere}` })).status, `${route.id} other audience`).toBe(
        401,
      );
      if (route.method !== 'GET')
        expect((await call(route, { Cookie: victim.cookie })).status, `${route.id} without CSRF`).toBe(403);
      const scope = route.owner?.scope;
      if (route.owner?.session || scope?.endsWith(':write'))
        expect((await call(route, { Authorization: `Bearer ${readOnly}` })).status, `${route.id} read-only token`).toBe(
          403,
        );
      if (route.owner?.session)
        expect((await call(route, { Authorization: `Bearer ${everything}` })).status, `${route.id} OAuth`).toBe(403);
    }
    expect(await victimState()).toEqual(before);
    // What the token allows, it does.
    const listed = await call(routes.find((route) => route.id === 'ListMyNotes')!, {
      Authorization: `Bearer ${readOnly}`,
    });
    expect((await json(listed)).notes.map((note: { id: string }) => note.id)).toEqual([victimIds.note_id]);
  });
});
