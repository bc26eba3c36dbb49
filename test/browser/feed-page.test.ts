import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embedSnippet } from '../../functions/core/feed/page';
import { routeUrl } from '../../functions/platform/routes';
import { chromiumAvailable, serveHtmlPage } from '../support/browser';
import { repositoryRoot } from '../support/processes';
import { type BrowserStack, startBrowserStack } from '../support/signed-in-browser';

/**
 * The feed's public page in real Chromium: axe-core finds no serious or critical violation (light and
 * dark), hostile text stays text, and the embed snippet renders the feed on a site of another origin.
 * `npm run screenshots` (GLEANER_SCREENSHOTS=docs) also writes the README's screenshot, docs/feed-page.png.
 */

const HOSTILE = `<img src=x onerror="window.pwned=1"><script>window.pwned=1</script> "quotes" & 'apostrophes'`;

describe.skipIf(!chromiumAvailable())("a feed's public page, in Chromium", () => {
  let session: BrowserStack;
  let { t, browser } = {} as BrowserStack;
  let site: Awaited<ReturnType<typeof serveHtmlPage>>;
  let feedId: string;
  /** A feed without the hostile note, for the README's screenshot. */
  let calmFeedId: string;

  beforeAll(async () => {
    session = await startBrowserStack();
    ({ t, browser } = session);
    const { user, token } = await t.createUser({ name: 'Grace Hopper' });
    await t.save(token, {
      url: 'https://example.com/compilers',
      title: 'On compilers',
      selection: 'It is often easier to ask for forgiveness than to ask for permission.',
      comment: 'A favourite. #reading #history #calm',
    });
    await t.save(token, {
      url: 'https://example.com/nanosecond',
      title: 'A nanosecond of wire',
      selection: 'Eleven point eight inches.',
      comment: '#reading #calm',
    });
    await t.save(token, {
      url: 'https://example.com/hostile',
      title: HOSTILE,
      selection: HOSTILE,
      comment: `${HOSTILE} #reading`,
    });
    const feedSettings = {
      title: 'What Grace reads',
      description: 'Highlights from the reading pile.',
      sharing: 'public',
    } as const;
    feedId = (await t.createFeed(user.id, { ...feedSettings, tags: ['reading'] })).id;
    calmFeedId = (await t.createFeed(user.id, { ...feedSettings, tags: ['calm'] })).id;
    const links = {
      page: routeUrl(t.stack.baseUrl, 'GetFeedPage', { feed_id: feedId }),
      json: routeUrl(t.stack.baseUrl, 'GetPublishedFeed', { feed_id: feedId }),
      rss: routeUrl(t.stack.baseUrl, 'GetPublishedFeedRss', { feed_id: feedId }),
      embedScript: routeUrl(t.stack.baseUrl, 'GetFeedEmbedScript', {}),
    };
    site = await serveHtmlPage(
      `<!doctype html><html lang="en"><head><title>My blog</title></head><body><h1>What I read</h1>${embedSnippet(links)}</body></html>`,
    );
  }, 60_000);

  afterAll(async () => {
    site?.close();
    await session?.stop();
  });

  async function seriousAxeViolations(page: Page): Promise<string[]> {
    await page.evaluate(readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
    const results = await page.evaluate(() =>
      (
        globalThis as unknown as {
          axe: { run(): Promise<{ violations: { id: string; impact: string; help: string }[] }> };
        }
      ).axe.run(),
    );
    return results.violations
      .filter((violation) => ['serious', 'critical'].includes(violation.impact))
      .map((violation) => `${violation.id}: ${violation.help}`);
  }

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`has no serious or critical axe-core violation, in the ${colorScheme} scheme, on a phone and a desktop`, async () => {
      for (const [viewport, id] of [
        [{ width: 390, height: 844 }, feedId],
        [{ width: 1280, height: 900 }, calmFeedId],
      ] as const) {
        const page = await browser.newPage({ colorScheme, viewport });
        await page.goto(routeUrl(t.stack.baseUrl, 'GetFeedPage', { feed_id: id }));
        expect(await page.locator('h1').textContent()).toBe('What Grace reads');
        expect(await seriousAxeViolations(page)).toEqual([]);
        // Responsive: nothing wider than the screen.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
        if (colorScheme === 'light' && viewport.width > 1000 && process.env.GLEANER_SCREENSHOTS === 'docs') {
          await page.screenshot({ path: join(repositoryRoot, 'docs/feed-page.png'), fullPage: true });
        }
        await page.close();
      }
    });
  }

  it('shows hostile titles and notes as text, runs none of it, and offers the RSS address to copy', async () => {
    const page = await browser.newPage();
    await page.goto(routeUrl(t.stack.baseUrl, 'GetFeedPage', { feed_id: feedId }));
    expect(await page.locator('article h2').allTextContents()).toContain(HOSTILE);
    expect((await page.locator('article blockquote').allTextContents()).map((text) => text.trim())).toContain(HOSTILE);
    expect(await page.locator('article img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.locator('#rss-address').inputValue()).toBe(
      routeUrl(t.stack.baseUrl, 'GetPublishedFeedRss', { feed_id: feedId }),
    );
    expect(await page.locator('#embed-snippet').inputValue()).toMatch(
      /^<script src="[^"]+\/feeds\/embed\.js" data-feed="/,
    );
    await expect.poll(() => page.locator('button[data-copy="rss-address"]').isVisible()).toBe(true);
    await page.close();
  });

  it('without JavaScript, still shows every entry and hides the copy button it cannot run', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(routeUrl(t.stack.baseUrl, 'GetFeedPage', { feed_id: feedId }));
    expect(await page.locator('article').count()).toBe(3);
    expect(await page.locator('button[data-copy]').isVisible()).toBe(false);
    await context.close();
  });

  it('renders the latest entries through the embed snippet on a site of another origin', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    page.on('pageerror', (error) => errors.push(error.message));
    // `localhost` against the API's 127.0.0.1: another origin even before the port differs.
    await page.goto(`http://localhost:${site.port}/`);
    const items = page.locator('.gleaner-feed li a');
    await expect.poll(() => items.count()).toBe(3);
    expect(await items.allTextContents()).toEqual([HOSTILE, 'A nanosecond of wire', 'On compilers']);
    expect(await items.first().getAttribute('href')).toMatch(new RegExp(`/feeds/${feedId}#entry-`));
    expect(await page.locator('.gleaner-feed-title a').textContent()).toBe('What Grace reads');
    expect(await page.locator('.gleaner-feed img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(errors).toEqual([]);
    await page.close();
  });
});
