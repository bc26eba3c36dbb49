import { createHash, randomUUID } from 'node:crypto';
import { parseHTML } from 'linkedom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEED_EMBED_SCRIPT } from '../../functions/core/feed/embed-script';
import { updateFeedRecord } from '../../functions/core/feed/settings';
import { routeUrl } from '../../functions/platform/routes';
import { startTestStack, type TestStack } from '../support/local-stack';

/** The feed's public page (GET /feeds/{feed_id}) and the embed script, through the local stack. */

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({ FEED_CACHE_SECONDS: '120' });
});
afterAll(() => t.stop());

const createFeed: TestStack['createFeed'] = (userId, settings) => t.createFeed(userId, settings);

const pageUrl = (id: string) => routeUrl(t.stack.baseUrl, 'GetFeedPage', { feed_id: id });

describe("a feed's public page: security headers from the handler (issue 21)", () => {
  const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

  it('sends a strict Content-Security-Policy that admits exactly its own inline style and copy script', async () => {
    const { user } = await t.createUser({ name: 'Csp' });
    const feed = await createFeed(user.id, { title: 'Strict', tags: ['csp'], sharing: 'public' });
    for (const url of [pageUrl(feed.id), pageUrl(randomUUID())]) {
      const response = await fetch(url);
      const { document } = parseHTML(await response.text());
      const policy = response.headers.get('Content-Security-Policy') ?? '';
      const directives = new Map(policy.split('; ').map((part) => [part.split(' ')[0], part]));
      expect(directives.get('default-src')).toBe("default-src 'none'");
      expect(directives.get('frame-ancestors')).toBe("frame-ancestors 'none'");
      const styles = [...document.querySelectorAll('style')].map((style) => style.textContent ?? '');
      expect(directives.get('style-src')).toBe(`style-src ${styles.map(sha256).join(' ')}`);
      const scripts = [...document.querySelectorAll('script:not([src])')].map((script) => script.textContent ?? '');
      if (response.status === 200) expect(scripts).toHaveLength(1);
      for (const script of scripts) expect(directives.get('script-src')).toContain(sha256(script));
      expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
      expect(response.headers.get('X-Frame-Options')).toBe('DENY');
      expect(response.headers.get('Referrer-Policy')).toBe('strict-origin-when-cross-origin');
    }
  });

  it('answers OPTIONS with 204, as the other feed routes do', async () => {
    const { user } = await t.createUser({ name: 'Preflight' });
    const feed = await createFeed(user.id, { title: 'Options', tags: ['options'], sharing: 'public' });
    const atom = routeUrl(t.stack.baseUrl, 'GetFeedAtom', { feed_id: feed.id });
    const headers = { Origin: 'https://blog.example', 'Access-Control-Request-Method': 'GET' };
    for (const url of [pageUrl(feed.id), atom]) {
      const response = await fetch(url, { method: 'OPTIONS', headers });
      expect(response.status, url).toBe(204);
      expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    }
  });
});

describe("a feed's public page", () => {
  it('shows the feed and its entries, links its formats, and carries the feed headers', async () => {
    const { user, token } = await t.createUser({ displayName: 'Ada' });
    const feed = await createFeed(user.id, {
      title: 'Ada reads',
      description: 'Long reads',
      tags: ['reading'],
      sharing: 'public',
    });
    await t.save(token, {
      url: 'https://example.com/one',
      title: 'One',
      selection: 'a quoted passage',
      comment: 'worth it #reading',
    });

    const response = await fetch(pageUrl(feed.id));
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('Cache-Control')).toBe('public, max-age=120');
    expect(response.headers.get('RateLimit-Policy')).toBe('600;w=60');
    for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'])
      expect(response.headers.get(name), name).toMatch(/^\d+$/);
    const html = await response.text();
    const { document } = parseHTML(html);
    expect(document.querySelector('h1')?.textContent).toBe('Ada reads');
    expect(document.querySelector('meta[property="og:title"]')?.getAttribute('content')).toBe('Ada reads');
    expect(document.querySelector('meta[property="og:description"]')?.getAttribute('content')).toBe('Long reads');
    expect([...document.querySelectorAll('link[rel="alternate"]')].map((link) => link.getAttribute('href'))).toEqual(
      ['GetPublishedFeedRss', 'GetFeedAtom', 'GetJsonFeed'].map((routeId) =>
        routeUrl(t.stack.baseUrl, routeId, { feed_id: feed.id }),
      ),
    );
    const article = document.querySelector('article')!;
    expect(article.querySelector('h2 a')?.getAttribute('href')).toBe('https://example.com/one');
    expect(article.querySelector('blockquote')?.textContent?.trim()).toBe('a quoted passage');
    expect(article.querySelector('time')?.getAttribute('datetime')).toMatch(/^\d{4}-/);
    expect((document.querySelector('#rss-address') as unknown as { value: string }).value).toBe(
      routeUrl(t.stack.baseUrl, 'GetPublishedFeedRss', { feed_id: feed.id }),
    );
    // The snippet is text in a textarea (RCDATA: the browser decodes these references; linkedom does not).
    expect(html).toContain(
      `<textarea id="embed-snippet" readonly rows="4">&lt;script src=&quot;${routeUrl(t.stack.baseUrl, 'GetFeedEmbedScript', {})}&quot;`,
    );
  });

  it('answers one 404 page, byte for byte, for unknown, private and deleted feeds', async () => {
    const { user } = await t.createUser();
    const feed = await createFeed(user.id, { title: 'Secret diary', description: 'mine', tags: ['s'] });
    const unknown = await fetch(pageUrl(randomUUID()));
    const hidden = await fetch(pageUrl(feed.id));
    expect([unknown.status, hidden.status]).toEqual([404, 404]);
    expect(hidden.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    const body = await hidden.text();
    expect(body).toBe(await unknown.text());
    expect(body).toContain('<h1>Feed not found</h1>');
    expect(body).not.toContain('Secret diary');

    await t.feeds.replaceFeed(feed, updateFeedRecord(feed, { sharing: 'link' }, new Date()));
    expect((await fetch(pageUrl(feed.id))).status).toBe(200);
    await t.feeds.deleteFeed(feed.id);
    expect(await (await fetch(pageUrl(feed.id))).text()).toBe(body);
  });

  it('answers 304 to a matching If-None-Match or a current If-Modified-Since, and a new ETag after a change', async () => {
    const { user, token } = await t.createUser();
    const feed = await createFeed(user.id, { title: 'Cached page', tags: ['c'], sharing: 'public' });
    await t.save(token, { url: 'https://example.com/c', comment: '#c' });
    const first = await fetch(pageUrl(feed.id));
    const etag = first.headers.get('ETag')!;
    const lastModified = first.headers.get('Last-Modified')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    // Its own representation: not the JSON's or the RSS's tag.
    expect(etag).not.toBe(
      (await fetch(routeUrl(t.stack.baseUrl, 'GetPublishedFeedRss', { feed_id: feed.id }))).headers.get('ETag'),
    );

    const byTag = await fetch(pageUrl(feed.id), { headers: { 'If-None-Match': etag } });
    expect(byTag.status).toBe(304);
    expect(await byTag.text()).toBe('');
    expect(byTag.headers.get('RateLimit-Remaining')).toMatch(/^\d+$/);
    expect((await fetch(pageUrl(feed.id), { headers: { 'If-Modified-Since': lastModified } })).status).toBe(304);

    await t.save(token, { url: 'https://example.com/c2', comment: '#c' });
    const changed = await fetch(pageUrl(feed.id), { headers: { 'If-None-Match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('ETag')).not.toBe(etag);
  });

  it('answers HEAD like GET without the body', async () => {
    const { user } = await t.createUser();
    const feed = await createFeed(user.id, { title: 'Head', tags: ['h'], sharing: 'public' });
    const head = await fetch(pageUrl(feed.id), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('ETag')).toBe((await fetch(pageUrl(feed.id))).headers.get('ETag'));
  });

  it('answers a feed id that is not a UUID with the HTML not-found page a browser shows, not JSON', async () => {
    const mistyped = await fetch(`${t.stack.baseUrl}/feeds/not-a-uuid`);
    expect(mistyped.status).toBe(404);
    expect(mistyped.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    expect(await mistyped.text()).toBe(await (await fetch(pageUrl(randomUUID()))).text());
  });
});

describe('the embed script', () => {
  it('is served as JavaScript from /feeds/embed.js, cached, with an ETag it honours', async () => {
    const response = await fetch(routeUrl(t.stack.baseUrl, 'GetFeedEmbedScript', {}));
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('Cache-Control')).toMatch(/^public, max-age=\d+$/);
    expect(await response.text()).toBe(FEED_EMBED_SCRIPT);
    const etag = response.headers.get('ETag')!;
    expect(
      (await fetch(routeUrl(t.stack.baseUrl, 'GetFeedEmbedScript', {}), { headers: { 'If-None-Match': etag } })).status,
    ).toBe(304);
  });
});
