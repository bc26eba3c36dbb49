import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeUrl } from '../../functions/platform/routes';
import { chromiumAvailable, serveHtmlPage } from '../support/browser';
import { type BrowserStack, startBrowserStack } from '../support/signed-in-browser';

/**
 * A site on another origin embeds a published feed the way embeds do: fetch it, keep the ETag, and
 * revalidate with If-None-Match, which makes Chromium send a CORS preflight first.
 */

/** The embedding page: fetches `feedUrl` twice and reports what its script could see. */
const EMBED_PAGE = `<!doctype html><html lang="en"><head><title>My blog</title></head><body>
<h1>What I read</h1><ul id="reading"></ul>
<script>
async function load(feedUrl) {
  const seen = (response) => ({
    status: response.status,
    etag: response.headers.get('ETag'),
    lastModified: response.headers.get('Last-Modified'),
    remaining: response.headers.get('RateLimit-Remaining'),
  });
  const first = await fetch(feedUrl);
  const feed = await first.json();
  for (const entry of feed.entries) document.getElementById('reading').append(Object.assign(document.createElement('li'), { textContent: entry.title }));
  const byEtag = await fetch(feedUrl, { headers: { 'If-None-Match': first.headers.get('ETag') } });
  const byDate = await fetch(feedUrl, { headers: { 'If-Modified-Since': first.headers.get('Last-Modified') } });
  return { first: seen(first), byEtag: seen(byEtag), byDate: seen(byDate), titles: feed.entries.map((entry) => entry.title) };
}
</script></body></html>`;

describe.skipIf(!chromiumAvailable())('a feed embedded in a page on another origin, in Chromium', () => {
  let session: BrowserStack;
  let { t, browser } = {} as BrowserStack;
  let site: Awaited<ReturnType<typeof serveHtmlPage>>;
  let siteUrl: string;

  beforeAll(async () => {
    session = await startBrowserStack();
    ({ t, browser } = session);
    site = await serveHtmlPage(EMBED_PAGE);
    // `localhost` against the API's 127.0.0.1: another origin even before the port differs.
    siteUrl = `http://localhost:${site.port}/`;
  }, 60_000);

  afterAll(async () => {
    site?.close();
    await session?.stop();
  });

  it('reads the feed, then revalidates with If-None-Match and If-Modified-Since and gets 304s it can read', async () => {
    const { user, token } = await t.createUser({ name: 'Embedder' });
    expect(
      (await t.save(token, { url: 'https://example.com/embedded', title: 'Embedded page', comment: '#blogroll' }))
        .status,
    ).toBe(200);
    const feed = await t.createFeed(user.id, { title: 'Blogroll', tags: ['blogroll'], sharing: 'public' });
    const feedUrl = routeUrl(t.stack.baseUrl, 'GetPublishedFeed', { feed_id: feed.id });

    const page = await browser.newPage();
    const corsErrors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && corsErrors.push(message.text()));
    await page.goto(siteUrl);
    const result = await page.evaluate(
      (url) => (window as unknown as { load(url: string): Promise<unknown> }).load(url),
      feedUrl,
    );

    expect(corsErrors).toEqual([]);
    expect(result).toEqual({
      first: {
        status: 200,
        etag: expect.stringMatching(/^"/),
        lastModified: expect.stringMatching(/GMT$/),
        remaining: expect.stringMatching(/^\d+$/),
      },
      byEtag: {
        status: 304,
        etag: expect.stringMatching(/^"/),
        lastModified: expect.any(String),
        remaining: expect.stringMatching(/^\d+$/),
      },
      byDate: {
        status: 304,
        etag: expect.stringMatching(/^"/),
        lastModified: expect.any(String),
        remaining: expect.stringMatching(/^\d+$/),
      },
      titles: ['Embedded page'],
    });
    const { first, byEtag } = result as { first: { etag: string }; byEtag: { etag: string } };
    expect(byEtag.etag).toBe(first.etag);
    expect(await page.locator('#reading li').allTextContents()).toEqual(['Embedded page']);
    await page.close();
  }, 60_000);
});
