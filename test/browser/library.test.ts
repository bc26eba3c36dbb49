import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../support/browser';
import { type SignedInBrowser, startSignedInBrowser } from '../support/signed-in-browser';

/**
 * The signed-in pages in real Chromium on a phone-sized screen in dark mode: create and revoke API
 * tokens in Settings, save with the new one through the contract's save operation, then see and
 * edit the note in the Library; Tags and Feeds too. Every page has no axe-core violation, no CSP
 * refusal and no sideways scrolling. `npm run screenshots` (GLEANER_SCREENSHOTS=docs) writes each
 * page's screenshot into docs/.
 */

describe.skipIf(!chromiumAvailable())('the Library in Chromium', () => {
  let session: SignedInBrowser;
  let { t, page, checkPage } = {} as SignedInBrowser;
  beforeAll(async () => {
    session = await startSignedInBrowser();
    ({ t, page, checkPage } = session);
  }, 120_000);
  afterAll(() => session?.stop());

  it('creates and revokes API tokens in Settings, saves with one, and sees and edits the note in the Library', async () => {
    await page.goto(`${t.stack.webBaseUrl}/settings/tokens`);
    await page.getByLabel('Label').fill('Old laptop');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByLabel('Label').fill('Browser extension');
    await page.getByLabel('Expires').selectOption({ label: 'A year' });
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = await page.getByLabel('Token', { exact: true }).inputValue();
    expect(secret).toMatch(/^gln_/);
    // The token shown once has a Copy button that puts it on the clipboard.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.stack.webBaseUrl });
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.locator('[data-copied="secret"]').textContent()).toBe('Copied.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await page.getByRole('button', { name: 'Revoke Old laptop' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Token revoked');
    await checkPage('web-api-tokens.png');

    const saved = await fetch(`${t.stack.baseUrl}/api/v1/bookmarks/save`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        url: 'https://example.com/queues',
        title: 'Queues in practice',
        description: 'Why a queue in front of a slow service keeps it standing.',
        selection: 'Queues absorb bursts.',
        comment: 'Worth rereading #reading #aws',
      }),
    });
    expect(saved.status).toBe(200);
    await t.save(secret, { url: 'https://example.com/retries', title: 'Retries and idempotency', comment: '#aws' });

    await page.getByRole('link', { name: 'Library' }).click();
    await page.getByRole('link', { name: 'Queues in practice' }).waitFor();
    await checkPage('web-library.png');
    await page.getByRole('link', { name: '#reading' }).first().click();
    expect(await page.locator('.notes > li').count()).toBe(1);

    await page.getByRole('link', { name: 'Queues in practice' }).click();
    expect(await page.locator('blockquote').first().textContent()).toBe('Queues absorb bursts.');
    await page.getByLabel('Title').fill('Queues, in practice');
    await page.getByLabel('Comment', { exact: true }).fill('The chapter on backpressure is the one to keep.');
    await page.getByRole('textbox', { name: 'Tags' }).fill('reading, aws, queues');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Saved.');
    expect(await page.locator('h1').textContent()).toBe('Queues, in practice');
    await checkPage('web-note.png');
  });

  it('shows Tags and Feeds, and creates a feed with its addresses', async () => {
    await page.getByRole('link', { name: 'Tags', exact: true }).click();
    expect(await page.locator('.tags-list li').count()).toBe(3);
    await checkPage('web-tags.png');

    await page.getByRole('link', { name: 'Feeds' }).click();
    await page.getByLabel('Title').fill('Reading list');
    await page.getByLabel('Tags').fill('reading');
    await page.locator('#feed-sharing').selectOption('link');
    await page.getByRole('button', { name: 'Create feed' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Created.');
    const rss = await page.getByRole('link', { name: 'RSS' }).getAttribute('href');
    expect((await fetch(rss!)).status).toBe(200);
    await checkPage('web-feeds.png');
  });

  it('moves a note to the Trash, restores it from there, and empties the Trash after asking', async () => {
    await page.goto(`${t.stack.webBaseUrl}/library`);
    await page.getByRole('link', { name: 'Retries and idempotency' }).click();
    await page.getByRole('button', { name: 'Move to Trash' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Moved to the Trash');
    expect(await page.getByRole('link', { name: 'Retries and idempotency' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Trash', exact: true }).click();
    expect(await page.locator('.notes > li').count()).toBe(1);
    expect(await page.locator('.notes > li').textContent()).toContain('deleted for good on');
    await checkPage('web-trash.png');
    await page.getByRole('button', { name: 'Restore Retries and idempotency' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Restored');
    expect(await page.getByText('The Trash is empty.').count()).toBe(1);
    await page.goto(`${t.stack.webBaseUrl}/library`);
    await page.getByRole('link', { name: 'Retries and idempotency' }).waitFor();

    await page.getByRole('link', { name: 'Retries and idempotency' }).click();
    await page.getByRole('button', { name: 'Move to Trash' }).click();
    await page.getByRole('link', { name: 'Trash', exact: true }).click();
    // Empty trash asks for its box first (the browser refuses the form without it).
    await page.getByRole('button', { name: 'Empty trash' }).click();
    expect(await page.locator('.notes > li').count()).toBe(1);
    await page.getByLabel('Yes, delete every note in the Trash for good').check();
    await page.getByRole('button', { name: 'Empty trash' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('The Trash is empty');
    await checkPage('web-trash-empty.png');
  });
});
