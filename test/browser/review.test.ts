import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../support/browser';
import { type SignedInBrowser, startSignedInBrowser } from '../support/signed-in-browser';

/**
 * The daily review in real Chromium on a phone-sized screen in dark mode: five highlights reviewed
 * with the keyboard alone (3, 1, 4, 2, D), the Done screen with the streak, and Settings › Review
 * with a review feed address. Every page has no axe-core violation, no CSP refusal and no sideways
 * scrolling. `GLEANER_SCREENSHOTS=docs` writes the screenshots into docs/.
 */

describe.skipIf(!chromiumAvailable())('the daily review in Chromium', () => {
  let session: SignedInBrowser;
  let { t, owner, page, checkPage } = {} as SignedInBrowser;
  beforeAll(async () => {
    session = await startSignedInBrowser({ SAVE_RATE_LIMIT: '5000;w=60' });
    ({ t, owner, page, checkPage } = session);
    const pages = [
      ['Queues in practice', 'Queues absorb bursts, so the slow service behind them keeps standing.'],
      ['Retries and idempotency', 'A retry without an idempotency key is a second order.'],
      ['The tail at scale', 'Hedged requests cut the tail latency at a small cost in load.'],
      ['Designing data-intensive applications', 'Derived data can always be rebuilt from the log.'],
      ['Release it!', 'Every integration point will eventually fail in some way.'],
      ['Thinking in systems', 'A stock is the memory of the history of changing flows.'],
    ];
    for (const [index, [title, selection]] of pages.entries())
      expect((await t.save(owner.token, { url: `https://example.com/read/${index}`, title, selection })).status).toBe(
        200,
      );
  }, 120_000);
  afterAll(() => session?.stop());

  /** What the page shows now: its heading and, while reviewing, which highlight. */
  const headings = () => page.locator('h1, #review-position').allTextContents();

  /** The highlights of the day's review, in their order. */
  let shown: string[] = [];

  it('reviews five highlights with the keyboard and shows the streak on the Done screen', async () => {
    await page.goto(`${t.stack.webBaseUrl}/library`);
    await page.getByRole('link', { name: 'Review', exact: true }).click();
    expect(await headings()).toEqual(['Review', 'Highlight 1 of 5']);
    await checkPage('web-review.png');

    shown = [];
    for (const [index, key] of ['3', '1', '4', '2', 'd'].entries()) {
      shown.push((await page.locator('blockquote').textContent())!);
      await page.keyboard.press(key);
      const next = index < 4 ? ['Review', `Highlight ${index + 2} of 5`] : ['Done for today'];
      await expect.poll(headings, { timeout: 15_000 }).toEqual(next);
    }
    expect(new Set(shown).size).toBe(5);
    expect(await page.locator('.streak').textContent()).toBe('1 day in a row · 5 reviews done');
    expect(await page.locator('.review-done + section blockquote').allTextContents()).toEqual(shown);
    await checkPage('web-review-done.png');

    // Each highlight links to its note.
    const noteLink = page.locator('.review-done + section a[href^="/library/notes/"]').first();
    const title = await noteLink.textContent();
    await noteLink.click();
    await expect.poll(() => page.locator('h1').textContent()).toBe(title);
    expect(await page.locator('blockquote').textContent()).toBe(shown[0]);

    const review = await (await owner.api('/api/v2/me/review')).json();
    expect(review).toMatchObject({ completed: true, streak: 1, reviews_done: 5 });
  });

  it('sets the review up in Settings › Review and issues the review feed', async () => {
    await page.goto(`${t.stack.webBaseUrl}/review`);
    await page.getByRole('link', { name: 'Review settings' }).click();
    await page.getByLabel('Highlights a day').fill('7');
    await page.getByLabel('Time zone').selectOption('Pacific/Kiritimati');
    await page.getByLabel('Favoured tags').fill('reading, systems');
    await page.getByRole('button', { name: 'Save review settings' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Saved.');
    expect(await page.getByLabel('Highlights a day').inputValue()).toBe('7');

    await page.getByRole('button', { name: 'Issue an address' }).click();
    const address = await page.getByLabel('Your review feed address').inputValue();
    const feed = await fetch(address);
    expect(feed.status).toBe(200);
    expect(await feed.text()).toContain(shown[0]);
    await checkPage('web-review-settings.png');
  });
});
