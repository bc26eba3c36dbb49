import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, chromiumAvailable, launchChromium } from '../support/browser';
import { startTestStack, type TestStack } from '../support/local-stack';
import { type Owner, signedInUser } from '../support/owner';

/**
 * Search in the web app, in Chromium on a phone-sized screen in dark mode: typing in the Library's
 * search box shows marked results as you type (search.js, debounced), the same box works without
 * script (the form submits to the results page), and a note's page shows its related notes with
 * their reasons. Another user's notes with the same words never appear. No axe-core violation, no
 * CSP refusal, no sideways scrolling; `npm run screenshots` writes docs/web-search.png.
 */

const screenshotDir =
  process.env.GLEANER_SCREENSHOTS === 'docs'
    ? fileURLToPath(new URL('../../docs', import.meta.url))
    : mkdtempSync(join(tmpdir(), 'gleaner-search-'));

describe.skipIf(!chromiumAvailable())('search in Chromium', () => {
  let t: TestStack;
  let folder: string;
  let owner: Owner;
  let other: Owner;
  let browser: Browser;
  const cspErrors: string[] = [];
  const notes: Record<string, string> = {};

  async function save(user: Owner, body: Record<string, unknown>): Promise<string> {
    const response = await t.save(user.token, body);
    expect(response.status).toBe(200);
    return ((await response.json()) as { note_id: string }).note_id;
  }

  async function signedInPage(options: { javaScriptEnabled?: boolean } = {}): Promise<[BrowserContext, Page]> {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
      ...options,
    });
    const [name, value] = owner.cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: t.stack.webBaseUrl, httpOnly: true, sameSite: 'Lax' }]);
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|Refused/.test(message.text()))
        cspErrors.push(`${page.url()}: ${message.text()}`);
    });
    return [context, page];
  }

  async function checkPage(page: Page, screenshot?: string): Promise<void> {
    expect(await axeViolations(page), page.url()).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(cspErrors).toEqual([]);
    if (screenshot) await page.screenshot({ path: join(screenshotDir, screenshot), fullPage: true });
  }

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'gleaner-search-browser-'));
    t = await startTestStack({}, { searchIndexUri: join(folder, 'index') });
    owner = await signedInUser(t);
    other = await signedInUser(t);
    notes.glaciers = await save(owner, {
      url: 'https://geology.example/moraines',
      title: 'How glaciers shape valleys',
      selection: 'Terminal moraines mark the furthest advance of a glacier.',
      comment: 'Field trip reading #geology',
    });
    notes.ice = await save(owner, {
      url: 'https://geology.example/ice-ages',
      title: 'Ice ages and glacial cycles',
      comment: 'Milankovitch cycles drive glacier advance #geology',
    });
    notes.bread = await save(owner, { url: 'https://bread.example/rye', title: 'Rye bread at home #baking' });
    notes.othersGlacier = await save(other, {
      url: 'https://geology.example/moraines',
      title: 'Glacier glacier moraines (another account)',
      comment: '#geology',
    });
    browser = await launchChromium();
    // Wait until the indexer has the owner's three notes.
    const [context, page] = await signedInPage();
    const indexed = async () => {
      const answer = await page.request.get(`${t.stack.webBaseUrl}/api/v2/me/search?q=-%23nothing`);
      return ((await answer.json()) as { results?: unknown[] }).results?.length === 3;
    };
    for (const deadline = Date.now() + 15_000; !(await indexed()); ) {
      if (Date.now() > deadline) throw new Error('the notes were not indexed within 15 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await context.close();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('shows marked results as you type in the Library’s search box', async () => {
    const [context, page] = await signedInPage();
    await page.goto(`${t.stack.webBaseUrl}/library`);
    const box = page.getByRole('searchbox', { name: 'Search your notes' });
    await box.pressSequentially('glacier moraine', { delay: 30 });
    const live = page.locator('[data-search-live]');
    await expect.poll(() => live.locator('li.note-item').count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => live.locator('mark').first().textContent()).toMatch(/^(glacier|moraines)$/i);
    expect(await live.textContent()).toContain('How glaciers shape valleys');
    expect(await live.textContent()).not.toContain('another account');
    // Under a heading, each row with its site, the day it was saved and its tags; the Library's own list is hidden.
    expect(await live.getByRole('heading', { level: 2 }).textContent()).toBe('Results for “glacier moraine”');
    const row = live.locator('li.note-item').first();
    expect(await row.locator('p.muted').textContent()).toMatch(/^geology\.example · \d{4}-\d{2}-\d{2}$/);
    expect(await row.getByRole('link', { name: '#geology' }).getAttribute('href')).toBe('/library?tag=geology');
    expect(await page.locator('[data-search-replaces]').isHidden()).toBe(true);
    await box.fill('');
    await box.pressSequentially('#geology', { delay: 30 });
    await expect.poll(() => live.locator('li.note-item').count(), { timeout: 10_000 }).toBe(2);
    await checkPage(page, 'web-search.png');
    // Cleared, the Library comes back.
    await box.fill('');
    await expect.poll(() => page.locator('[data-search-replaces]').isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await live.textContent()).toBe('');
    await box.fill('glacier');
    await expect.poll(() => live.locator('li.note-item').count(), { timeout: 10_000 }).toBe(2);
    // A refused query says why, in place.
    await box.fill('glacier after:2024-02-30');
    await expect.poll(() => live.textContent(), { timeout: 10_000 }).toContain('is not a date');
    await box.fill('moraine');
    await expect.poll(() => live.locator('li.note-item').count(), { timeout: 10_000 }).toBe(1);
    await live.getByRole('link', { name: 'How glaciers shape valleys' }).click();
    await expect.poll(() => page.url()).toContain(`/library/notes/${notes.glaciers}`);
    await context.close();
  });

  it('shows a note’s related notes with their reasons', async () => {
    const [context, page] = await signedInPage();
    await page.goto(`${t.stack.webBaseUrl}/library/notes/${notes.glaciers}`);
    const related = page.locator('section[data-related]');
    await expect.poll(() => related.locator('li').count(), { timeout: 10_000 }).toBe(1);
    expect(await related.textContent()).toContain('Ice ages and glacial cycles');
    expect(await related.textContent()).toContain('shares #geology');
    expect(await related.textContent()).not.toContain('another account');
    await checkPage(page, 'web-related-notes.png');
    await context.close();
  });

  it('searches without script: the form submits to the results page', async () => {
    const [context, page] = await signedInPage({ javaScriptEnabled: false });
    await page.goto(`${t.stack.webBaseUrl}/library`);
    await page.getByRole('searchbox', { name: 'Search your notes' }).fill('glacier');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.url()).toContain('/library/search?q=glacier');
    const results = page.locator('ul.search-results');
    expect(await results.locator('li.note-item').count()).toBe(2);
    expect(await results.locator('li.note-item p.muted').first().textContent()).toMatch(/^geology\.example · \d{4}/);
    expect(await results.getByRole('link', { name: '#geology' }).count()).toBe(2);
    expect(await results.locator('mark').count()).toBeGreaterThan(0);
    expect(await page.content()).not.toContain('another account');
    const resultsUrl = page.url();
    // The note page's related notes are a link away.
    await page.goto(`${t.stack.webBaseUrl}/library/notes/${notes.glaciers}`);
    await page.getByRole('link', { name: 'Show related notes' }).click();
    expect(await page.locator('.related-reason').first().textContent()).toContain('shares #geology');
    const relatedUrl = page.url();
    await context.close();
    // axe-core runs as a script: the same two pages are checked where script runs.
    const [checked, checkedPage] = await signedInPage();
    for (const url of [resultsUrl, relatedUrl]) {
      await checkedPage.goto(url);
      await checkPage(checkedPage);
    }
    await checked.close();
  });
  it('shows the note’s own comment with its [[…]] links as links, one still waiting as written', async () => {
    const linking = await save(owner, { url: 'https://geology.example/trip', title: 'Trip plan' });
    await owner.api(`/api/v2/me/notes/${linking}`, {
      method: 'PATCH',
      body: { comment: 'Read [[How glaciers shape valleys]] first, then [[A note not saved yet]].' },
    });
    const [context, page] = await signedInPage();
    await page.goto(`${t.stack.webBaseUrl}/library/notes/${linking}`);
    const comment = page.locator('.note-comment');
    expect(await comment.getByRole('link', { name: 'How glaciers shape valleys' }).getAttribute('href')).toBe(
      `/library/notes/${notes.glaciers}`,
    );
    expect(await comment.locator('.link-waiting').textContent()).toBe('[[A note not saved yet]]');
    expect(await comment.textContent()).not.toContain('[[How glaciers');
    await checkPage(page, 'web-note-comment-links.png');
    await context.close();
  });
});
