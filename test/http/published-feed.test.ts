import { randomUUID } from 'node:crypto';
import { parseFeed } from '@rowanmanning/feed-parser';
import { SaxesParser } from 'saxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateFeedRecord } from '../../functions/core/feed/settings';
import { routeUrl } from '../../functions/platform/routes';
import { contractFetch } from '../support/contract';
import { feedValidatorRulesAvailable, feedValidatorWarnings } from '../support/feed-validator';
import { jsonFeedSchemaProblems } from '../support/json-feed';
import { json, startTestStack, type TestStack } from '../support/local-stack';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({ FEED_MAX_ENTRIES: '3', FEED_CACHE_SECONDS: '120' });
});
afterAll(() => t.stop());

const createFeed: TestStack['createFeed'] = (userId, settings) => t.createFeed(userId, settings);

/** Every representation of a feed, by the route that serves it. */
const FEED_ROUTES = {
  public: 'GetPublishedFeed',
  rss: 'GetPublishedFeedRss',
  atom: 'GetFeedAtom',
  'feed.json': 'GetJsonFeed',
} as const;
type Variant = keyof typeof FEED_ROUTES;
const VARIANTS = Object.keys(FEED_ROUTES) as Variant[];
const feedUrl = (id: string, variant: Variant) => routeUrl(t.stack.baseUrl, FEED_ROUTES[variant], { feed_id: id });

function parseXmlStrictly(xml: string): void {
  const parser = new SaxesParser({ xmlns: true });
  parser.on('error', (error) => {
    throw error;
  });
  parser.write(xml).close();
}

describe('a published feed', () => {
  it('shows notes saved through the save route, as PublishedFeed JSON and as RSS 2.0', async () => {
    const { user, token } = await t.createUser({ displayName: 'Grace' });
    const feed = await createFeed(user.id, {
      title: 'Grace reads',
      description: 'Things',
      tags: ['reading'],
      sharing: 'public',
    });
    await t.save(token, {
      url: 'https://example.com/one',
      title: 'One',
      selection: 'quoted *text*',
      comment: 'good #reading',
    });
    await t.save(token, { url: 'https://example.com/other', title: 'Other', comment: '#unrelated' });

    const response = await contractFetch(feedUrl(feed.id, 'public'));
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/json');
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(response.headers.get('Cache-Control')).toBe('public, max-age=120');
    expect(response.headers.get('RateLimit-Policy')).toBe('600;w=60');
    const body = await json(response);
    expect(body).toEqual({
      id: feed.id,
      title: 'Grace reads',
      description: 'Things',
      author: 'Grace',
      rss_url: feedUrl(feed.id, 'rss'),
      entries: [
        {
          id: expect.any(String),
          title: 'One',
          text: expect.stringContaining('quoted text'),
          updated: expect.any(String),
        },
      ],
    });
    expect(body.entries[0].text).not.toMatch(/^>|\*|\]\(/m);

    const rss = await contractFetch(feedUrl(feed.id, 'rss'));
    expect(rss.headers.get('Content-Type')).toBe('application/rss+xml; charset=utf-8');
    const xml = await rss.text();
    parseXmlStrictly(xml);
    const parsed = parseFeed(xml);
    expect(parsed.title).toBe('Grace reads');
    // The channel links to the feed's page for people, not to the JSON API.
    expect(parsed.url).toBe(`${t.stack.baseUrl}/feeds/${feed.id}`);
    expect(parsed.items.map((item) => item.title)).toEqual(['One']);
    expect(parsed.items[0]!.url).toBe('https://example.com/one');
    expect(xml).toContain(`<atom:link href="${feedUrl(feed.id, 'rss')}" rel="self" type="application/rss+xml"/>`);
    expect(xml).toMatch(/<guid isPermaLink="false">[0-9a-f-]{36}<\/guid>/);
  });

  it('offers the same entries in the same order as Atom 1.0 and JSON Feed 1.1, with full content', async () => {
    const { user, token } = await t.createUser({ displayName: 'Ada' });
    const feed = await createFeed(user.id, {
      title: 'Ada reads',
      description: 'Notes & quotes',
      tags: ['formats'],
      sharing: 'link',
    });
    for (const name of ['first', 'second', 'third'])
      await t.save(token, {
        url: `https://example.com/${name}`,
        title: name,
        selection: `a *${name}* quote`,
        comment: '#formats',
      });
    await t.save(token, { url: 'https://example.com/first', selection: 'and more' });
    const ids = (await json(await contractFetch(feedUrl(feed.id, 'public')))).entries.map(
      (entry: { id: string }) => entry.id,
    );
    expect(ids).toHaveLength(3);

    const atom = await contractFetch(feedUrl(feed.id, 'atom'));
    expect(atom.headers.get('Content-Type')).toBe('application/atom+xml; charset=utf-8');
    const xml = await atom.text();
    parseXmlStrictly(xml);
    const parsedAtom = parseFeed(xml);
    expect(parsedAtom.title).toBe('Ada reads');
    expect(parsedAtom.url).toBe(routeUrl(t.stack.baseUrl, 'GetFeedPage', { feed_id: feed.id }));
    expect(parsedAtom.self).toBe(feedUrl(feed.id, 'atom'));
    expect(parsedAtom.items.map((item) => item.id)).toEqual(ids.map((id: string) => `urn:uuid:${id}`));
    expect(parsedAtom.items[0]!.title).toBe('first');
    expect(parsedAtom.items[0]!.content).toContain('<blockquote>');
    expect(parsedAtom.items[0]!.content).toContain('<em>first</em>');

    const jsonFeed = await contractFetch(feedUrl(feed.id, 'feed.json'));
    expect(jsonFeed.headers.get('Content-Type')).toBe('application/feed+json; charset=utf-8');
    const document = await json(jsonFeed);
    expect(jsonFeedSchemaProblems(document)).toEqual([]);
    expect(document).toMatchObject({
      version: 'https://jsonfeed.org/version/1.1',
      title: 'Ada reads',
      description: 'Notes & quotes',
      home_page_url: routeUrl(t.stack.baseUrl, 'GetFeedPage', { feed_id: feed.id }),
      feed_url: feedUrl(feed.id, 'feed.json'),
      authors: [{ name: 'Ada' }],
    });
    expect(document.items.map((item: { id: string }) => item.id)).toEqual(ids);
    expect(document.items[0]).toMatchObject({
      url: 'https://example.com/first',
      title: 'first',
      tags: ['formats'],
      content_text: expect.stringContaining('and more'),
    });
    expect(document.items[0].content_html).toContain('<em>first</em>');
  });

  it('lists matching notes newest first by last update, at most FEED_MAX_ENTRIES', async () => {
    const { user, token } = await t.createUser();
    const feed = await createFeed(user.id, { title: 'Order', tags: ['x'], sharing: 'link' });
    for (const name of ['a', 'b', 'c', 'd'])
      await t.save(token, { url: `https://example.com/${name}`, title: name, comment: '#x' });
    await t.save(token, { url: 'https://example.com/b', selection: 'touch b again' });
    const body = await json(await contractFetch(feedUrl(feed.id, 'public')));
    expect(body.entries.map((entry: { title: string }) => entry.title)).toEqual(['b', 'd', 'c']);
  });

  it('filters on any or all of its tags', async () => {
    const { user, token } = await t.createUser();
    await t.save(token, { url: 'https://example.com/p', title: 'p', comment: '#p' });
    await t.save(token, { url: 'https://example.com/q', title: 'q', comment: '#q' });
    await t.save(token, { url: 'https://example.com/pq', title: 'pq', comment: '#p #q' });
    const any = await createFeed(user.id, { title: 'any', tags: ['p', 'q'], match: 'any', sharing: 'public' });
    const all = await createFeed(user.id, { title: 'all', tags: ['p', 'q'], match: 'all', sharing: 'public' });
    const titles = async (id: string) =>
      (await json(await contractFetch(feedUrl(id, 'public')))).entries
        .map((entry: { title: string }) => entry.title)
        .sort();
    expect(await titles(any.id)).toEqual(['p', 'pq', 'q']);
    expect(await titles(all.id)).toEqual(['pq']);
  });

  it('answers the same 404 for unknown, private and deleted feeds, and appears once made public', async () => {
    const { user } = await t.createUser();
    const feed = await createFeed(user.id, { title: 'Secret', tags: ['s'] });
    let body = '';
    for (const variant of VARIANTS) {
      const unknown = await contractFetch(feedUrl(randomUUID(), variant));
      const hidden = await contractFetch(feedUrl(feed.id, variant));
      expect([unknown.status, hidden.status], variant).toEqual([404, 404]);
      body = await hidden.text();
      expect(body).toBe(await unknown.text());
      expect(JSON.parse(body)).toEqual({ detail: { code: 'not_found', message: 'Feed not found' } });
      expect(hidden.headers.get('Cache-Control')).toMatch(/max-age=([0-9]|[1-5][0-9])$/);
    }

    await t.feeds.replaceFeed(feed, updateFeedRecord(feed, { sharing: 'public' }, new Date()));
    for (const variant of VARIANTS) expect((await contractFetch(feedUrl(feed.id, variant))).status, variant).toBe(200);
    await t.feeds.deleteFeed(feed.id);
    expect(await (await contractFetch(feedUrl(feed.id, 'public'))).text()).toBe(body);
  });

  it('answers 422 HTTPValidationError for a feed_id that is not a UUID', async () => {
    const response = await contractFetch(feedUrl('not-a-uuid', 'public'));
    expect(response.status).toBe(422);
    expect(await json(response)).toEqual({
      detail: [{ loc: ['path', 'feed_id'], msg: expect.any(String), type: 'uuid_parsing' }],
    });
    expect(response.headers.get('RateLimit-Limit')).toBe('600');
  });

  it('yields well-formed RSS for hostile note content', async () => {
    const { user, token } = await t.createUser();
    const feed = await createFeed(user.id, { title: 'Hostile ]]> <b>', tags: ['h'], sharing: 'public' });
    const nasty = `]]> <script>alert(1)</script> & \u0000\u0001\u000b ok 😀 שלום \u202eevil ${'x'.repeat(15_000)}`;
    await t.save(token, {
      url: 'https://example.com/hostile?a=1&b=<2>',
      title: `T ${nasty.slice(0, 200)}`,
      selection: nasty,
      comment: `${nasty.slice(0, 4000)} #h`,
    });
    const xml = await (await contractFetch(feedUrl(feed.id, 'rss'))).text();
    parseXmlStrictly(xml);
    const parsed = parseFeed(xml);
    expect(parsed.items).toHaveLength(1);
    expect(parsed.items[0]!.title).toContain('😀 שלום');
    expect(parsed.items[0]!.title).not.toContain('\u0000');
  });

  it("names its owner's display name as the author in every representation, never the account's other name; another user's feed is unaffected", async () => {
    const a = await t.createUser({ name: 'ana.reader', displayName: 'Ana R.' });
    const b = await t.createUser({ name: 'bob.private' });
    const feedA = await createFeed(a.user.id, { title: 'A reads', tags: ['a'], sharing: 'public' });
    const feedB = await createFeed(b.user.id, { title: 'B reads', tags: ['b'], sharing: 'public' });
    await t.save(a.token, { url: 'https://example.com/a', title: 'A note', comment: '#a' });
    await t.save(b.token, { url: 'https://example.com/b', title: 'B note', comment: '#b' });

    const texts = async (feedId: string) => ({
      json: await json(await contractFetch(feedUrl(feedId, 'public'))),
      rss: await (await contractFetch(feedUrl(feedId, 'rss'))).text(),
      atom: await (await fetch(`${t.stack.baseUrl}/feeds/${feedId}/atom`)).text(),
      jsonFeed: (await (await fetch(`${t.stack.baseUrl}/feeds/${feedId}/feed.json`)).json()) as { authors?: unknown },
      page: await (await fetch(`${t.stack.baseUrl}/feeds/${feedId}`)).text(),
    });
    const ofA = await texts(feedA.id);
    expect(ofA.json.author).toBe('Ana R.');
    expect(ofA.rss).toContain('<dc:creator>Ana R.</dc:creator>');
    expect(ofA.atom).toMatch(/<author>\s*<name>Ana R\.<\/name>/);
    expect(ofA.jsonFeed.authors).toEqual([{ name: 'Ana R.' }]);
    expect(ofA.page).toContain('By Ana R.');
    expect(JSON.stringify(ofA)).not.toContain('ana.reader');

    const ofB = await texts(feedB.id);
    expect(ofB.json.author).toBe('');
    expect(ofB.rss).not.toContain('dc:creator>');
    expect(ofB.jsonFeed.authors).toBeUndefined();
    expect(ofB.page).not.toContain('By ');
    expect(JSON.stringify(ofB)).not.toMatch(/bob\.private|Ana R\./);
  });

  it.skipIf(!feedValidatorRulesAvailable('served feed validator test'))(
    'serves RSS the W3C feed validator has no warning for, from hostile feed and note text',
    async () => {
      const { user, token } = await t.createUser({ displayName: 'Tom & Jerry <i>' });
      const hostile =
        'Tom & Jerry <b>bold</b> <script>x</script> a literal &amp; DEL\u007F NEL\u0085 C1\u009B NUL\u0000 ESC\u001b[31m lone \uD800 end';
      const feed = await createFeed(user.id, { title: hostile, description: hostile, tags: ['h'], sharing: 'public' });
      await t.save(token, {
        url: 'https://example.com/hostile?a=1&b=2',
        title: hostile,
        selection: hostile,
        comment: `${hostile} #h`,
      });
      const xml = await (await contractFetch(feedUrl(feed.id, 'rss'))).text();
      expect(feedValidatorWarnings(xml)).toEqual([]);
    },
  );
});

describe('conditional GET for feed readers', () => {
  it('answers 304 with no body to a matching If-None-Match or a current If-Modified-Since', async () => {
    const { user, token } = await t.createUser();
    const feed = await createFeed(user.id, { title: 'Cached', tags: ['c'], sharing: 'public' });
    await t.save(token, { url: 'https://example.com/c', comment: '#c' });
    for (const variant of VARIANTS) {
      const first = await contractFetch(feedUrl(feed.id, variant));
      const etag = first.headers.get('ETag')!;
      const lastModified = first.headers.get('Last-Modified')!;
      expect(etag).toMatch(/^"[^"]+"$/);
      expect(new Date(lastModified).toUTCString()).toBe(lastModified);

      const revalidated = await contractFetch(feedUrl(feed.id, variant), { headers: { 'If-None-Match': etag } });
      expect(revalidated.status).toBe(304);
      expect(await revalidated.text()).toBe('');
      expect(revalidated.headers.get('ETag')).toBe(etag);

      expect(
        (await contractFetch(feedUrl(feed.id, variant), { headers: { 'If-Modified-Since': lastModified } })).status,
      ).toBe(304);
      // If-None-Match wins when both are sent.
      const mismatched = await contractFetch(feedUrl(feed.id, variant), {
        headers: { 'If-None-Match': '"stale"', 'If-Modified-Since': lastModified },
      });
      expect(mismatched.status).toBe(200);
    }
  });

  it('changes the ETag when a matching note changes', async () => {
    const { user, token } = await t.createUser();
    const feed = await createFeed(user.id, { title: 'Changing', tags: ['e'], sharing: 'public' });
    await t.save(token, { url: 'https://example.com/e', comment: '#e' });
    const before = (await contractFetch(feedUrl(feed.id, 'rss'))).headers.get('ETag')!;
    await t.save(token, { url: 'https://example.com/e', selection: 'new highlight' });
    const after = await contractFetch(feedUrl(feed.id, 'rss'), { headers: { 'If-None-Match': before } });
    expect(after.status).toBe(200);
    expect(after.headers.get('ETag')).not.toBe(before);
  });
});

describe('CORS for site embeds', () => {
  it('answers the preflight of a conditional GET from any origin, and exposes the validators and rate-limit headers', async () => {
    const { user } = await t.createUser();
    const feed = await createFeed(user.id, { title: 'Embedded', tags: ['embed'], sharing: 'public' });
    for (const variant of VARIANTS) {
      const preflight = await fetch(feedUrl(feed.id, variant), {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://blog.example',
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'if-none-match',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('Access-Control-Allow-Origin')).toBe('*');
      expect(preflight.headers.get('Access-Control-Allow-Methods')).toBe('OPTIONS,GET');
      expect(preflight.headers.get('Access-Control-Allow-Headers')).toBe('If-None-Match,If-Modified-Since');
      expect(preflight.headers.get('Access-Control-Max-Age')).toBe('600');

      const answer = await contractFetch(feedUrl(feed.id, variant), { headers: { Origin: 'https://blog.example' } });
      const exposed = answer.headers.get('Access-Control-Expose-Headers')!.split(/,\s*/);
      expect(exposed).toEqual(
        expect.arrayContaining([
          'ETag',
          'Last-Modified',
          'RateLimit-Limit',
          'RateLimit-Remaining',
          'RateLimit-Reset',
          'RateLimit-Policy',
        ]),
      );
    }
  });
});

describe('HEAD, for feed readers and link checkers', () => {
  it('answers like GET without the body, on every feed route', async () => {
    const { user, token } = await t.createUser();
    const feed = await createFeed(user.id, { title: 'Headed', tags: ['hd'], sharing: 'public' });
    await t.save(token, { url: 'https://example.com/hd', comment: '#hd' });
    for (const variant of VARIANTS) {
      const get = await contractFetch(feedUrl(feed.id, variant));
      const head = await contractFetch(feedUrl(feed.id, variant), { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      for (const name of ['Content-Type', 'ETag', 'Last-Modified', 'Cache-Control', 'RateLimit-Policy'])
        expect(head.headers.get(name)).toBe(get.headers.get(name));
      expect(
        (
          await contractFetch(feedUrl(feed.id, variant), {
            method: 'HEAD',
            headers: { 'If-None-Match': get.headers.get('ETag')! },
          })
        ).status,
      ).toBe(304);
    }
  });

  it('answers 404 and 422 to HEAD as to GET, and the save route refuses HEAD', async () => {
    expect((await contractFetch(feedUrl(randomUUID(), 'rss'), { method: 'HEAD' })).status).toBe(404);
    expect((await contractFetch(feedUrl('not-a-uuid', 'rss'), { method: 'HEAD' })).status).toBe(422);
    expect((await contractFetch(`${t.stack.baseUrl}/api/v1/bookmarks/save`, { method: 'HEAD' })).status).toBe(405);
  });
});

describe('feed rate limit', () => {
  it('limits each client with the four headers and a 429 RateLimitError', async () => {
    const limited = await startTestStack({ FEED_RATE_LIMIT: '3;w=60' });
    try {
      const url = `${limited.stack.baseUrl}/api/v2/publisher/feeds/${randomUUID()}/public`;
      const statuses = await Promise.all(
        Array.from({ length: 6 }, () =>
          contractFetch(url).then(async (response) => ({ response, body: await response.text() })),
        ),
      );
      expect(statuses.filter(({ response }) => response.status === 404)).toHaveLength(3);
      const rejected = statuses.filter(({ response }) => response.status === 429);
      expect(rejected).toHaveLength(3);
      const { response, body } = rejected[0]!;
      const detail = JSON.parse(body).detail;
      expect(detail).toMatchObject({ code: 'rate_limited', retry_after: Number(response.headers.get('Retry-After')) });
      expect(response.headers.get('RateLimit-Policy')).toBe('3;w=60');
    } finally {
      await limited.stop();
    }
  });
});
