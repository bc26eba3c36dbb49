import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/platform/routes';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { type Owner, signedInUser } from '../support/owner';

/** The signed-in pages and the share target over real sockets, two users, with real sessions. */

let t: TestStack;
let alice: Owner;
let bob: Owner;
let noteId: string;

beforeAll(async () => {
  t = await startTestStack({ OWNER_RATE_LIMIT: '5000;w=60' });
  [alice, bob] = await Promise.all([signedInUser(t), signedInUser(t)]);
  noteId = (await json(await t.save(alice.token, { url: 'https://example.com/alice', comment: '#mine' }))).note_id;
});
afterAll(() => t.stop());

const pageRoutes = routes.filter((route) => route.entry === 'functions/web-library/handler.ts');

function visit(owner: Owner | null, path: string, init: { method?: string; form?: Record<string, string> } = {}) {
  return fetch(`${t.stack.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    redirect: 'manual',
    headers: {
      ...(owner ? { Cookie: owner.cookie } : {}),
      ...(init.form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: init.form ? new URLSearchParams(init.form) : undefined,
  });
}

describe('signed-in pages', () => {
  it('renders every page with the strict CSP and sends strangers to sign in', async () => {
    for (const path of [
      '/library',
      `/library/notes/${noteId}`,
      '/review',
      '/tags',
      '/my/feeds',
      '/settings/tokens',
      '/settings/review',
    ]) {
      const response = await visit(alice, path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('Content-Security-Policy')).toContain("script-src 'self'");
      expect(await response.text()).toContain('<main id="main"');
      const stranger = await visit(null, path);
      expect(stranger.status).toBe(303);
      expect(stranger.headers.get('Location')).toBe(`/signin?next=${encodeURIComponent(path)}`);
    }
  });

  it("shows user B none of user A's records on any page route that takes an id", async () => {
    const ids = { note_id: noteId, feed_id: noteId, token_id: alice.tokenId };
    for (const route of pageRoutes.filter((candidate) => candidate.path.includes('{'))) {
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: keyof typeof ids) => ids[name]);
      const response = await visit(bob, path, {
        method: route.method,
        form: route.method === 'POST' ? { csrf: bob.csrfToken, title: 'Stolen', sharing: 'public' } : undefined,
      });
      expect(response.status, route.id).toBe(404);
      expect(await response.text()).not.toContain('example.com/alice');
    }
    expect((await json(await alice.api(`/api/v2/me/notes/${noteId}`))).title).not.toBe('Stolen');
  });

  it('edits a note through its form, and refuses a form without its CSRF token', async () => {
    const refused = await visit(alice, `/library/notes/${noteId}`, { method: 'POST', form: { title: 'Forged' } });
    expect(refused.status).toBe(403);
    const edited = await visit(alice, `/library/notes/${noteId}`, {
      method: 'POST',
      form: { csrf: alice.csrfToken, title: 'Edited title', comment: 'Mine', tags: '#one, two' },
    });
    expect(edited.status).toBe(303);
    const note = await json(await alice.api(`/api/v2/me/notes/${noteId}`));
    expect(note).toMatchObject({ title: 'Edited title', comment: 'Mine', tags: ['one', 'two'] });
  });

  it('answers Create token with a redirect; the page after it shows the secret once, and a reload neither shows it nor mints another', async () => {
    const tokenCount = async () => (await json(await alice.api('/api/v2/me/tokens'))).tokens.length;
    const before = await tokenCount();
    const created = await visit(alice, '/settings/tokens', {
      method: 'POST',
      form: { csrf: alice.csrfToken, label: 'Browser', expires_in_days: '30' },
    });
    expect(created.status).toBe(303);
    expect(created.headers.get('Location')).toBe('/settings/tokens?notice=created');
    expect(await created.text()).not.toContain('gln_');
    // Another session of another user finds nothing of it.
    expect(await (await visit(bob, '/settings/tokens?notice=created')).text()).not.toContain('gln_');

    const shown = await (await visit(alice, created.headers.get('Location')!)).text();
    const secret = /value="(gln_[^"]+)"/.exec(shown)?.[1];
    expect(secret).toBeDefined();
    expect((await t.save(secret!, { url: 'https://example.com/from-page-token' })).status).toBe(200);
    const reloaded = await (await visit(alice, created.headers.get('Location')!)).text();
    expect(reloaded).not.toContain(secret);
    expect(reloaded).not.toContain('gln_');
    expect(await tokenCount()).toBe(before + 1);
  });
});

describe('the share target', () => {
  const share = (owner: Owner | null, site: string, form: Record<string, string>) =>
    fetch(`${t.stack.baseUrl}/share`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'Sec-Fetch-Site': site,
        ...(owner ? { Cookie: owner.cookie } : {}),
      },
      body: new URLSearchParams(form),
    });

  it('saves a shared page with the session (the address inside `text`, as Android sends it) and opens its note', async () => {
    const response = await share(alice, 'none', { title: 'Shared', text: 'Look at this https://example.com/shared' });
    expect(response.status).toBe(303);
    const location = response.headers.get('Location')!;
    expect(location).toMatch(/^\/library\/notes\/[0-9a-f-]{36}\?notice=shared$/);
    const id = location.split('/')[3]!.split('?')[0]!;
    expect(await json(await alice.api(`/api/v2/me/notes/${id}`))).toMatchObject({
      title: 'Shared',
      url: 'https://example.com/shared',
    });
  });

  it('refuses a post from another site, and sends a stranger to sign in', async () => {
    const before = (await json(await alice.api('/api/v2/me/notes'))).notes.length;
    expect((await share(alice, 'cross-site', { url: 'https://evil.example/planted' })).status).toBe(403);
    expect((await json(await alice.api('/api/v2/me/notes'))).notes.length).toBe(before);
    const stranger = await share(null, 'none', { url: 'https://example.com/x' });
    expect(stranger.headers.get('Location')).toMatch(/^\/signin/);
  });
});
