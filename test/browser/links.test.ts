import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notePath } from '../../functions/core/web/paths';
import { chromiumAvailable } from '../support/browser';
import { json } from '../support/local-stack';
import { type SignedInBrowser, startSignedInBrowser } from '../support/signed-in-browser';

/**
 * Connected notes in Chromium, over the local stack with its stream consumer running: a link written
 * in the note's edit form shows on the target's page as a backlink, which leads back; a `[[title]]`
 * with no note yet waits visibly and becomes a link once that note is saved. On a phone in dark
 * mode, with no axe-core violation, no CSP refusal and no sideways scrolling.
 */

describe.skipIf(!chromiumAvailable())('links between notes in Chromium', () => {
  let session: SignedInBrowser;
  let { t, owner, page, checkPage } = {} as SignedInBrowser;
  beforeAll(async () => {
    session = await startSignedInBrowser({}, { searchIndex: true });
    ({ t, owner, page, checkPage } = session);
  }, 120_000);
  afterAll(() => session?.stop());

  async function save(url: string, title: string): Promise<string> {
    const response = await t.save(owner.token, { url, title });
    expect(response.status).toBe(200);
    return (await json(response)).note_id as string;
  }

  /** Reloads the page until `name` is a link in the section headed `section` (the stream catches up). */
  async function linkAppears(section: 'Links' | 'Backlinks', name: string) {
    const link = page.getByRole('region', { name: section }).getByRole('link', { name });
    await expect
      .poll(
        async () => {
          if (await link.count()) return true;
          await page.reload();
          return false;
        },
        { timeout: 15_000, interval: 300 },
      )
      .toBe(true);
    return link;
  }

  it('follows a backlink, and sees a waiting link resolve once its target is saved', async () => {
    const target = await save('https://example.com/queues', 'Queues in practice');
    const source = await save('https://example.com/load', 'Load shedding');

    await page.goto(`${t.stack.webBaseUrl}${notePath(source)}`);
    await page
      .getByLabel('Comment', { exact: true })
      .fill('Read with [[Queues in practice]] first. Then [[Backpressure]], once I have notes on it.');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Saved.');
    await linkAppears('Links', 'Queues in practice');
    const links = page.getByRole('region', { name: 'Links' });
    expect(await links.getByText('[[Backpressure]]').count()).toBe(1);
    expect(await links.getByText('waiting', { exact: true }).count()).toBe(1);
    await checkPage('web-note-links.png');

    await page.goto(`${t.stack.webBaseUrl}${notePath(target)}`);
    await (await linkAppears('Backlinks', 'Load shedding')).click();
    await page.waitForURL(`**${notePath(source)}`);
    expect(await page.locator('h1').textContent()).toBe('Load shedding');

    const backpressure = await save('https://example.com/backpressure', 'Backpressure');
    await (await linkAppears('Links', 'Backpressure')).click();
    await page.waitForURL(`**${notePath(backpressure)}`);
    expect(await page.locator('h1').textContent()).toBe('Backpressure');
    expect(
      await page.getByRole('region', { name: 'Backlinks' }).getByRole('link', { name: 'Load shedding' }).count(),
    ).toBe(1);
    await checkPage('web-note-backlinks.png');
  });
});
