import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, signedInPhonePage } from '../support/browser';
import { json } from '../support/local-stack';
import { type Owner, signedInUser } from '../support/owner';
import { type SignedInBrowser, startSignedInBrowser } from '../support/signed-in-browser';

/**
 * Settings › Import in real Chromium: a fixture export picked, uploaded to the upload URL, imported
 * by the worker, its progress and report on the page; a file of no known format explained. The
 * other user's page shows nothing of it. Every page passes axe, the CSP and the phone's width.
 */

const FIXTURES = join(import.meta.dirname, '../fixtures/import');

describe.skipIf(!chromiumAvailable())('Settings › Import in Chromium', { timeout: 180_000 }, () => {
  let session: SignedInBrowser;
  let { t, owner, page, checkPage } = {} as SignedInBrowser;
  let other: Owner;
  beforeAll(async () => {
    session = await startSignedInBrowser(
      { OWNER_RATE_LIMIT: '5000;w=60' },
      { startWorkers: true, scheduleEverySeconds: 3600 },
    );
    ({ t, owner, page, checkPage } = session);
    other = await signedInUser(t);
  }, 120_000);
  afterAll(() => session?.stop());

  const status = () => page.locator('[data-import-status]').textContent();

  it('imports an Instapaper export picked on the page: progress, then the report with every skipped row', async () => {
    await page.goto(`${t.stack.webBaseUrl}/settings/import`);
    await checkPage('import-empty.png');
    await page.setInputFiles('#import-file', join(FIXTURES, 'instapaper', 'instapaper-export.csv'));
    await page.getByRole('button', { name: 'Import' }).click();
    await expect.poll(status, { timeout: 120_000 }).toBe('Done: 4 new notes, 0 merged links, 1 row skipped.');
    const counts = await page.locator('[data-import-counts]').textContent();
    expect(counts).toContain('instapaper-export.csv (instapaper)');
    expect(counts).toMatch(/New notes\s*4/);
    expect(counts).toMatch(/Pages waiting to be fetched\s*4/);
    expect(await page.locator('[data-import-skipped] li').allTextContents()).toEqual([
      'row 5: not an http(s) URL (javascript:)',
    ]);
    expect(await page.locator('[data-import-notices] li').allTextContents()).toEqual([
      "Instapaper's CSV carries no highlights (only its API has them), and a starred item's archive state.",
    ]);
    expect(
      await page
        .locator('#import-bar')
        .evaluate((bar) => [(bar as HTMLProgressElement).value, (bar as HTMLProgressElement).max]),
    ).toEqual([4, 4]);
    await checkPage('import-report.png');
    expect((await json(await owner.api('/api/v2/me/notes'))).notes).toHaveLength(4);

    // Opened again (the tab was closed), the page shows the last import's report.
    await page.goto(`${t.stack.webBaseUrl}/settings/import`);
    await expect.poll(status).toBe('Done: 4 new notes, 0 merged links, 1 row skipped.');
  });

  it('explains a file of no known format', async () => {
    await page.goto(`${t.stack.webBaseUrl}/settings/import`);
    await expect.poll(status).toMatch(/^Done:/);
    await page.setInputFiles('#import-file', {
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('just some words\n'),
    });
    await page.getByRole('button', { name: 'Import' }).click();
    const error = page.getByRole('alert');
    await expect
      .poll(() => error.textContent(), { timeout: 120_000 })
      .toMatch(/^The import failed: notes\.txt is not an export of a known format; Gleaner imports: a Pocket zip/);
    expect(await page.locator('[data-import-report]').isHidden()).toBe(true);
    await checkPage('import-failed.png');
  });

  it('lists the books of a Readwise highlights CSV it keeps as notes without a bookmark', async () => {
    await page.goto(`${t.stack.webBaseUrl}/settings/import`);
    await expect.poll(status).toMatch(/^(Done|The import failed)/);
    await page.setInputFiles('#import-file', join(FIXTURES, 'readwise', 'readwise-highlights.csv'));
    await page.getByRole('button', { name: 'Import' }).click();
    await expect
      .poll(status, { timeout: 120_000 })
      .toBe('Done: 0 new notes, 3 notes without a bookmark, 0 merged links, 0 rows skipped.');
    expect(await page.locator('[data-import-counts]').textContent()).toMatch(/Notes without a bookmark\s*3/);
    expect(await page.locator('[data-import-notes] li').allTextContents()).toEqual([
      'Small Bets (2 highlights)',
      'The Printed Book (2 highlights)',
      'Büchertage (1 highlight)',
    ]);
    await checkPage('import-notes.png');
    const notes = (await json(await owner.api('/api/v2/me/notes'))).notes as { title: string; url: string | null }[];
    expect(
      notes
        .filter((note) => note.url === null)
        .map((note) => note.title)
        .sort(),
    ).toEqual(['Büchertage', 'Small Bets', 'The Printed Book']);
  });

  it('shows another user none of it', async () => {
    const { page: theirs } = await signedInPhonePage(session.browser, t.stack.webBaseUrl, other.cookie);
    await theirs.goto(`${t.stack.webBaseUrl}/settings/import`);
    await theirs.waitForLoadState('networkidle');
    expect(await theirs.locator('[data-import-report]').isHidden()).toBe(true);
    expect(await theirs.locator('[data-import-progress]').isHidden()).toBe(true);
    expect((await json(await other.api('/api/v2/me/notes'))).notes).toHaveLength(0);
  });
});
