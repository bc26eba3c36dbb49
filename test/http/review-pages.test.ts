import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { type Owner, signedInUser } from '../support/owner';

/**
 * The Review page and Settings › Review without a browser, as a browser without script uses them:
 * form posts with the session's CSRF field, then redirects. Two users with highlights of their own.
 */

let t: TestStack;
let alice: Owner;
let bob: Owner;
let bobHighlight: string | undefined;

async function saveHighlights(owner: Owner, count: number, name: string): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const saved = await json(
      await t.save(owner.token, { url: `https://example.com/${name}/${index}`, selection: `${name} line ${index}` }),
    );
    const note = await json(await owner.api(`/api/v2/me/notes/${saved.note_id}`));
    ids.push(note.highlights[0].id);
  }
  return ids;
}

beforeAll(async () => {
  t = await startTestStack({ OWNER_RATE_LIMIT: '5000;w=60', SAVE_RATE_LIMIT: '5000;w=60' });
  [alice, bob] = await Promise.all([signedInUser(t), signedInUser(t)]);
  await saveHighlights(alice, 3, 'alice');
  [bobHighlight] = await saveHighlights(bob, 1, 'bob');
});
afterAll(() => t.stop());

function visit(owner: Owner, path: string, form?: Record<string, string>) {
  return fetch(`${t.stack.baseUrl}${path}`, {
    method: form ? 'POST' : 'GET',
    redirect: 'manual',
    headers: { Cookie: owner.cookie, ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
    body: form ? new URLSearchParams(form) : undefined,
  });
}

/** The highlight the Review page asks about now (its form's hidden field). */
const shownHighlight = (html: string) => /name="highlight" value="([^"]+)"/.exec(html)?.[1];

describe('the Review page', () => {
  it('shows one highlight at a time with its rating buttons, rates by form post, then shows the Done screen', async () => {
    const first = await (await visit(alice, '/review')).text();
    expect(first).toContain('Highlight 1 of 3');
    expect(first).toMatch(/<blockquote>alice line \d<\/blockquote>/);
    expect(first).toContain('<script type="module" src="/assets/review.js">');
    for (const label of ['Again', 'Hard', 'Good', 'Easy', 'Discard']) expect(first).toContain(`>${label} <kbd>`);
    expect(first).toMatch(/href="\/library\/notes\/[0-9a-f-]{36}"/);

    const highlight = shownHighlight(first)!;
    const noCsrf = await visit(alice, '/review', { highlight, rating: 'good' });
    expect(noCsrf.status).toBe(403);
    expect(shownHighlight(await (await visit(alice, '/review')).text())).toBe(highlight);

    const seen = new Set<string>();
    for (const rating of ['good', 'again', 'discard']) {
      const html = await (await visit(alice, '/review')).text();
      const shown = shownHighlight(html)!;
      expect(seen.has(shown)).toBe(false);
      seen.add(shown);
      const rated = await visit(alice, '/review', { csrf: alice.csrfToken, highlight: shown, rating });
      expect(rated.status).toBe(303);
      expect(rated.headers.get('Location')).toBe('/review?notice=rated');
    }
    const done = await (await visit(alice, '/review?notice=rated')).text();
    expect(done).toContain('<h1>Done for today</h1>');
    expect(done).toContain('<strong>1 day</strong> in a row · <strong>3 reviews</strong> done');
    expect(done).not.toContain('review.js');
  });

  it("refuses another user's highlight (404, nothing rated) and an unknown rating (422)", async () => {
    const stolen = await visit(alice, '/review', { csrf: alice.csrfToken, highlight: bobHighlight!, rating: 'easy' });
    expect(stolen.status).toBe(404);
    expect((await json(await bob.api('/api/v2/me/review'))).reviews_done).toBe(0);
    const html = await (await visit(bob, '/review')).text();
    const unknown = await visit(bob, '/review', {
      csrf: bob.csrfToken,
      highlight: shownHighlight(html)!,
      rating: 'meh',
    });
    expect(unknown.status).toBe(422);
    expect(await unknown.text()).toContain('Input should be');
  });
});

describe('Settings › Review', () => {
  it('saves size, time zone and tags, and refuses what the API refuses', async () => {
    const page = await (await visit(bob, '/settings/review')).text();
    expect(page).toContain('<option value="Pacific/Kiritimati">');
    expect(page).toMatch(/id="review-size"[^>]*value="5"/);
    const save = (fields: Record<string, string>) =>
      visit(bob, '/settings/review', { csrf: bob.csrfToken, size: '5', time_zone: 'UTC', ...fields });
    expect((await save({ size: '16' })).status).toBe(422);
    expect((await save({ size: 'x' })).status).toBe(422);
    expect((await save({ time_zone: 'Nowhere/Land' })).status).toBe(422);
    expect((await save({ favoured_tags: 'rust', muted_tags: '#rust' })).status).toBe(422);
    const saved = await save({
      size: '9',
      time_zone: 'Pacific/Kiritimati',
      favoured_tags: '#rust, go',
      muted_tags: 'x',
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('Location')).toBe('/settings/review?notice=saved');
    expect(await json(await bob.api('/api/v2/me/review-settings'))).toEqual({
      size: 9,
      time_zone: 'Pacific/Kiritimati',
      favoured_tags: ['rust', 'go'],
      muted_tags: ['x'],
    });
    expect((await json(await alice.api('/api/v2/me/review-settings'))).size).toBe(5);
  });

  it('issues the review feed address with a redirect, shows it once on the next page, and a reload keeps it working', async () => {
    const issue = () => visit(alice, '/settings/review/feed', { csrf: alice.csrfToken, action: 'issue' });
    const addressOn = (html: string) => /id="review-feed-url" readonly value="([^"]+)"/.exec(html)?.[1];
    const issued = await issue();
    expect(issued.status).toBe(303);
    expect(issued.headers.get('Location')).toBe('/settings/review?notice=feedIssued');
    expect(addressOn(await issued.text())).toBeUndefined();
    expect(addressOn(await (await visit(bob, '/settings/review?notice=feedIssued')).text())).toBeUndefined();
    const address = addressOn(await (await visit(alice, issued.headers.get('Location')!)).text())!;
    expect(address).toBeDefined();
    const read = (url: string) => fetch(`${t.stack.baseUrl}${new URL(url).pathname}`);
    expect((await read(address)).status).toBe(200);
    // The reload of the page after the redirect: no address shown, none issued, the first one still works.
    const page = await (await visit(alice, issued.headers.get('Location')!)).text();
    expect(page).not.toContain(address);
    expect(addressOn(page)).toBeUndefined();
    expect(page).toContain('An address is active');
    expect((await read(address)).status).toBe(200);

    const reissuedAnswer = await issue();
    expect(reissuedAnswer.status).toBe(303);
    const reissued = addressOn(await (await visit(alice, reissuedAnswer.headers.get('Location')!)).text())!;
    expect(reissued).not.toBe(address);
    expect((await read(address)).status).toBe(404);
    expect((await read(reissued)).status).toBe(200);
    const revoked = await visit(alice, '/settings/review/feed', { csrf: alice.csrfToken, action: 'revoke' });
    expect(revoked.status).toBe(303);
    expect((await read(reissued)).status).toBe(404);
    expect(await (await visit(alice, '/settings/review?notice=feedRevoked')).text()).toContain('No address yet.');
  });
});
