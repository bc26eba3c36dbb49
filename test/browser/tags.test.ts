import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../support/browser';
import { json } from '../support/local-stack';
import { type Owner, renameUnderWay, savedPage, signedInUser } from '../support/owner';
import { type SignedInBrowser, startSignedInBrowser } from '../support/signed-in-browser';

/**
 * A note page's Feeds in Chromium: a feed that does not show the note has an Add button, which puts
 * the note in (the tags the feed shows), after which the page says the feed shows it.
 *
 * The Tags page in Chromium with a rename under way (a run of it stopped at its time budget or cut
 * short): listed above the tags with how far it got, and a button that carries it on at once. The
 * other user's rename of the same tag is neither shown nor touched.
 */

describe.skipIf(!chromiumAvailable())('the Tags page and a note’s Feeds in Chromium', () => {
  let session: SignedInBrowser;
  let { t, owner: alice, page, checkPage } = {} as SignedInBrowser;
  let bob: Owner;
  beforeAll(async () => {
    session = await startSignedInBrowser();
    ({ t, owner: alice, page, checkPage } = session);
    bob = await signedInUser(t);
  }, 120_000);
  afterAll(() => session?.stop());

  it('shows an unfinished rename with how far it got, and Continue finishes it', async () => {
    await savedPage(t, alice, 'https://example.com/tags/1', { comment: '#ai' });
    for (let i = 2; i <= 4; i++) await savedPage(t, alice, `https://example.com/tags/${i}`, { comment: '#ml' });
    await savedPage(t, bob, 'https://example.com/tags/1', { comment: '#ml' });
    await renameUnderWay(t, alice, 'ml', 'ai', 1);
    const bobsJob = await renameUnderWay(t, bob, 'ml', 'learning');

    await page.goto(`${t.stack.webBaseUrl}/tags`);
    const unfinished = page.locator('.unfinished-retags li');
    expect(await unfinished.count()).toBe(1);
    expect(await unfinished.textContent()).toContain('Renaming #ml into #ai 1 note so far');
    await checkPage('web-tags-unfinished.png');

    await page.getByRole('button', { name: 'Continue renaming #ml into #ai now' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Tag renamed.');
    expect(await page.locator('.unfinished-retags').count()).toBe(0);
    expect(await page.locator('.tags-list li').allTextContents()).toEqual([expect.stringMatching(/#ai\s+4 notes/)]);

    // Bob's rename of his own #ml: never on Alice's page, and as it was.
    expect(await json(await bob.api('/api/v2/me/tags'))).toEqual({
      tags: [{ name: 'ml', count: 1 }],
      unfinished: [{ tag: 'ml', into: 'learning', mode: 'rename', notes_changed: 0, started: bobsJob.started }],
    });
  });

  it('puts a note into a feed from its page, and says which feeds show it', async () => {
    const saved = await json(await t.save(alice.token, { url: 'https://example.com/feeds/1', comment: '#rust' }));
    await t.createFeed(alice.user.id, { title: 'Systems', tags: ['rust', 'zig'], match: 'all' });
    await t.createFeed(alice.user.id, { title: 'Rust only', tags: ['rust'] });
    await page.goto(`${t.stack.webBaseUrl}/library/notes/${saved.note_id}`);
    const feeds = page.locator('.note-feeds li');
    expect(await feeds.allTextContents()).toEqual([
      expect.stringMatching(/^Rust only\s+shows this note/),
      expect.stringMatching(/^Systems\s+notes tagged #rust and #zig/),
    ]);
    await checkPage('web-note-feeds.png');
    await page.getByRole('button', { name: 'Add to Systems' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Added to the feed');
    expect(await page.locator('.note-feeds li').allTextContents()).toEqual([
      expect.stringMatching(/shows this note/),
      expect.stringMatching(/shows this note/),
    ]);
  });
});
