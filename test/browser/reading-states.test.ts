import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../support/browser';
import { json } from '../support/local-stack';
import { signedInUser } from '../support/owner';
import { type SignedInBrowser, startSignedInBrowser } from '../support/signed-in-browser';

/**
 * Reading states in real Chromium on a phone in dark mode: j/k move through the Library with a
 * visible focus, `e` archives and `s` stars from the keyboard (through the per-user API, the page
 * following in place and saying so in its live region), the Inbox, Starred and Archive views, a bulk
 * archive through the form, `/` and Esc on the search box, and the same buttons without script.
 * Every page passes axe, the CSP and the phone's width (checkPage) before its screenshot.
 */

describe.skipIf(!chromiumAvailable())('reading states in Chromium', () => {
  let session: SignedInBrowser;
  let { t, owner, page, checkPage } = {} as SignedInBrowser;
  const ids: Record<string, string> = {};

  const state = async (noteId: string) => {
    const note = await json(await owner.api(`/api/v2/me/notes/${noteId}`));
    return { archived: note.archived as boolean, starred: note.starred as boolean };
  };
  const titles = () => page.locator('li.note-item .note-title').allTextContents();
  const live = () => page.locator('#library-status').textContent();

  beforeAll(async () => {
    session = await startSignedInBrowser({ OWNER_RATE_LIMIT: '5000;w=60' });
    ({ t, owner, page, checkPage } = session);
    const other = await signedInUser(t);
    // Saved oldest first: the Library lists the newest first.
    for (const [key, title] of [
      ['d', 'Designing data pipelines'],
      ['c', 'Caching at the edge'],
      ['b', 'Backpressure explained'],
      ['a', 'A field guide to queues'],
    ])
      ids[key] = (await json(await t.save(owner.token, { url: `https://example.com/${key}`, title }))).note_id;
    await t.save(other.token, { url: 'https://example.com/other', title: 'Someone else’s note' });
  }, 120_000);
  afterAll(() => session?.stop());

  it('moves with j/k, archives with e and stars with s, and shows each view', async () => {
    await page.goto(`${t.stack.webBaseUrl}/library`);
    expect(await titles()).toEqual([
      'A field guide to queues',
      'Backpressure explained',
      'Caching at the edge',
      'Designing data pipelines',
    ]);
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    const second = page.locator(`li.note-item[data-note-id="${ids.b}"]`);
    await expect.poll(() => second.evaluate((row) => row === document.activeElement)).toBe(true);
    // The focus ring is drawn (an outline), and screen readers are told where they are.
    expect(await second.evaluate((row) => getComputedStyle(row).outlineStyle)).toBe('solid');
    await expect.poll(live).toBe('Note 2 of 4: Backpressure explained');
    await checkPage('reading-states-focus.png');

    await page.keyboard.press('s');
    await expect.poll(live).toBe('Starred: Backpressure explained.');
    expect(await state(ids.b!)).toEqual({ archived: false, starred: true });
    await page.keyboard.press('e');
    await expect.poll(live).toBe('Archived: Backpressure explained.');
    // Out of the inbox at once; the keyboard goes on from the next note.
    expect(await titles()).toEqual(['A field guide to queues', 'Caching at the edge', 'Designing data pipelines']);
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.querySelector('.note-title')?.textContent))
      .toBe('Caching at the edge');
    expect(await state(ids.b!)).toEqual({ archived: true, starred: true });
    await page.keyboard.press('k');
    await page.keyboard.press('s');
    await expect.poll(live).toBe('Starred: A field guide to queues.');

    await page.getByRole('link', { name: 'Starred' }).click();
    await expect.poll(titles).toEqual(['A field guide to queues', 'Backpressure explained']);
    expect(await page.locator('nav.views [aria-current="page"]').textContent()).toBe('Starred');
    await checkPage('reading-states-starred.png');
    await page.getByRole('link', { name: 'Archive' }).click();
    await expect.poll(titles).toEqual(['Backpressure explained']);
    await checkPage('reading-states-archive.png');
    // Back to the inbox from the archive, with the note's own button.
    await page.getByRole('button', { name: 'Move to inbox' }).click();
    await expect.poll(live).toBe('Moved back to the inbox: Backpressure explained.');
    expect(await titles()).toEqual([]);
    expect(await state(ids.b!)).toEqual({ archived: false, starred: true });
  });

  it('archives the selected notes in bulk, and focuses and clears the search box with / and Esc', async () => {
    await page.goto(`${t.stack.webBaseUrl}/library`);
    await page.getByRole('checkbox', { name: 'Select Caching at the edge' }).check();
    // x selects the current note too.
    await page.locator(`li.note-item[data-note-id="${ids.d}"]`).focus();
    await page.keyboard.press('x');
    await expect.poll(live).toBe('Selected: Designing data pipelines');
    await page.getByLabel('Action').selectOption('archive');
    await page.getByRole('button', { name: 'Apply to selected' }).click();
    await expect.poll(() => page.locator('.notice').textContent()).toBe('Archived.');
    expect(await titles()).toEqual(['A field guide to queues', 'Backpressure explained']);
    expect(await state(ids.c!)).toMatchObject({ archived: true });
    expect(await state(ids.d!)).toMatchObject({ archived: true });
    await checkPage('reading-states-bulk.png');

    await page.keyboard.press('/');
    const search = page.getByRole('searchbox', { name: 'Search your notes' });
    await expect.poll(() => search.evaluate((box) => box === document.activeElement)).toBe(true);
    await page.keyboard.type('queues');
    expect(await search.inputValue()).toBe('queues');
    await page.keyboard.press('Escape');
    expect(await search.inputValue()).toBe('');
    await expect.poll(live).toBe('Search cleared.');
    // Keys typed into the box are text, not commands: nothing was archived or starred by them.
    expect(await state(ids.a!)).toEqual({ archived: false, starred: true });
  });

  it('archives and stars from a note’s page with e and s, and from its buttons without script', async () => {
    // Enter on the current note opens it.
    await page.goto(`${t.stack.webBaseUrl}/library`);
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/library/notes/${ids.a}`);
    await page.keyboard.press('e');
    await expect.poll(live).toBe('Archived: A field guide to queues.');
    expect(await page.locator('[data-state-text]').textContent()).toBe('Archived · starred');
    await page.keyboard.press('s');
    await expect.poll(live).toBe('Unstarred: A field guide to queues.');
    expect(await state(ids.a!)).toEqual({ archived: true, starred: false });
    await checkPage('reading-states-note.png');

    const noScript = await session.browser.newContext({
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
      javaScriptEnabled: false,
    });
    const [name, value] = owner.cookie.split('=') as [string, string];
    await noScript.addCookies([{ name, value, url: t.stack.webBaseUrl, httpOnly: true, sameSite: 'Lax' }]);
    const plain = await noScript.newPage();
    await plain.goto(`${t.stack.webBaseUrl}/library?view=archive`);
    await plain.locator(`li.note-item[data-note-id="${ids.c}"]`).getByRole('button', { name: 'Move to inbox' }).click();
    await plain.waitForURL(/notice=unarchived/);
    expect(new URL(plain.url()).searchParams.get('view')).toBe('archive');
    expect(await state(ids.c!)).toEqual({ archived: false, starred: false });
    await plain.goto(`${t.stack.webBaseUrl}/library`);
    await plain.getByRole('checkbox', { name: 'Select Caching at the edge' }).check();
    await plain.getByLabel('Action').selectOption('star');
    await plain.getByRole('button', { name: 'Apply to selected' }).click();
    await plain.waitForURL(/notice=starred/);
    expect(await state(ids.c!)).toEqual({ archived: false, starred: true });
    await noScript.close();
  });
});
