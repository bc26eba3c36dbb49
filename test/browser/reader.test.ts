import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { keys } from '../../functions/adapters/dynamo/keys';
import { chromiumAvailable } from '../support/browser';
import { json } from '../support/local-stack';
import { type SignedInBrowser, startSignedInBrowser } from '../support/signed-in-browser';
import { TIDES_ARTICLE } from '../support/tides-article';

/**
 * Reading a kept page and highlighting in it, in real Chromium on a phone in dark mode: the
 * highlights the extension saved are marked where the page holds them (the one it does not hold is
 * listed, not lost); selecting a passage fills in the highlight form, with the text around it, so
 * the second of two identical sentences is the one marked; then a highlight's comment is edited and
 * another deleted from the note page. Every page passes axe, the CSP and the phone's width.
 */

describe.skipIf(!chromiumAvailable())('the reader in Chromium', () => {
  let site: Server;
  let session: SignedInBrowser;
  let { t, owner, page, checkPage } = {} as SignedInBrowser;
  let noteId: string;
  let notePage: string;

  const note = async () => json(await owner.api(`/api/v2/me/notes/${noteId}`));

  beforeAll(async () => {
    site = createServer((_request, response) =>
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(TIDES_ARTICLE),
    );
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const { port } = site.address() as AddressInfo;
    session = await startSignedInBrowser(
      { GLEANER_FETCH_ALLOW: `127.0.0.1:${port}`, OWNER_RATE_LIMIT: '5000;w=60', SAVE_RATE_LIMIT: '5000;w=60' },
      { startWorkers: true },
    );
    ({ t, owner, page, checkPage } = session);
    const url = `http://127.0.0.1:${port}/tides`;
    // Two highlights saved from the page itself, as the extension saves them: one is in the kept copy.
    const saved = await json(
      await t.save(owner.token, {
        url,
        title: 'Tides of the North Sea',
        selection: 'Scientists measure the range with gauges that report every minute.',
        comment: 'Since 1843',
      }),
    );
    await t.save(owner.token, { url, selection: 'A sentence the page has since lost.' });
    noteId = saved.note_id;
    await vi.waitFor(
      async () => {
        const { Item } = await t.table.doc.send(
          new GetCommand({ TableName: t.table.tableName, Key: keys.bookmark(saved.bookmark.id), ConsistentRead: true }),
        );
        expect(Item?.article?.status).toBe('kept');
      },
      { timeout: 30_000, interval: 100 },
    );
    notePage = `${t.stack.webBaseUrl}/library/notes/${noteId}`;
  }, 120_000);

  afterAll(async () => {
    await session?.stop();
    site?.close();
  });

  it('marks the highlights the kept page holds and lists the one it does not', async () => {
    await page.goto(notePage);
    expect(await page.locator('#article-state').textContent()).toMatch(
      /^Kept \d{4}-\d{2}-\d{2}\. By Ada Wave · 1 min read$/,
    );
    const marks = page.locator('article.reader mark.highlight');
    await expect
      .poll(() => marks.allTextContents())
      .toEqual(['Scientists measure the range with gauges that report every minute.']);
    expect(await page.locator('#highlights-missing').textContent()).toContain(
      'One highlight is not in this copy of the page',
    );
    const [inPage, lost] = (await note()).highlights;
    expect(await page.locator(`#highlight-${inPage.id} a[href="#hl-${inPage.id}"]`).textContent()).toBe(
      'Show in the page',
    );
    expect(await page.locator(`#highlight-${lost.id}`).textContent()).toContain('not in the kept page');
    // The marks keep the dark scheme's contrast (axe checks it) and the reader fits the phone.
    await checkPage('reader-marked.png');
  });

  it('highlights a selected passage: the form fills in, and the passage selected is the one marked', async () => {
    await page.goto(notePage);
    // Select the second "The tide came in." (the one before "By evening"), as a reader's drag would.
    await page.evaluate(() => {
      const paragraph = [...document.querySelectorAll('article.reader p')].find((p) =>
        p.textContent?.includes('By evening'),
      )!;
      const text = paragraph.firstChild!;
      const selection = document.getSelection()!;
      selection.setBaseAndExtent(text, 0, text, 'The tide came in.'.length);
    });
    const quote = page.getByLabel('Passage to highlight');
    await expect.poll(() => quote.inputValue()).toBe('The tide came in.');
    expect(await page.locator('#highlight-form input[name="prefix"]').inputValue()).toMatch(/rising slowly\.\s*$/);
    expect(await page.locator('#highlight-form input[name="suffix"]').inputValue()).toMatch(/^ By evening/);
    // The form is below the page: the bar at the bottom of the screen takes the person there.
    const bar = page.getByRole('group', { name: 'The selected passage' });
    await bar.waitFor();
    await checkPage('reader-selection-bar.png');
    await bar.getByRole('button', { name: 'Add a comment' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('comment');
    expect(await bar.isVisible()).toBe(false);
    await page.getByLabel('Comment (optional)').fill('Low water comes next #evening');
    await checkPage('reader-selected.png');
    await page.getByRole('button', { name: 'Save highlight' }).click();
    await page.waitForURL(/notice=highlighted/);
    expect(await page.locator('[role="status"], .notice').first().textContent()).toContain('Highlight saved.');

    const marked = page.locator('article.reader mark.highlight', { hasText: 'The tide came in.' });
    expect(await marked.count()).toBe(1);
    expect(await marked.evaluate((mark) => mark.closest('p')?.textContent)).toContain('By evening');
    const saved = (await note()).highlights.at(-1);
    expect(saved).toMatchObject({ quote: 'The tide came in.', comment: 'Low water comes next #evening' });
    expect(saved.selector.suffix).toMatch(/^ By evening/);
    expect((await note()).tags).toContain('evening');
    expect((await note()).body).toContain('> The tide came in.\n\nLow water comes next #evening');
    await checkPage('web-reader.png');
  });

  it('edits one highlight’s comment and deletes another from the note page', async () => {
    await page.goto(notePage);
    const [inPage, lost] = (await note()).highlights;
    const item = page.locator(`#highlight-${inPage.id}`);
    await item.getByText('Edit or delete').click();
    await item.getByLabel('Comment on this highlight').fill('Gauges since 1843 #data');
    await checkPage('reader-edit-highlight.png');
    await item.getByRole('button', { name: 'Save comment' }).click();
    await page.waitForURL(/notice=saved/);
    expect(await page.locator(`#highlight-${inPage.id} > p`).first().textContent()).toBe('Gauges since 1843 #data');
    expect((await note()).highlights[0].comment).toBe('Gauges since 1843 #data');
    expect((await note()).body).toContain('every minute.\n\nGauges since 1843 #data');

    const gone = page.locator(`#highlight-${lost.id}`);
    await gone.getByText('Edit or delete').click();
    await gone.getByRole('button', { name: 'Delete highlight' }).click();
    await page.waitForURL(/notice=highlightDeleted/);
    expect(await page.locator(`#highlight-${lost.id}`).count()).toBe(0);
    expect(await page.locator('#highlights-missing').count()).toBe(0);
    const after = await note();
    expect(after.highlights.map((highlight: { id: string }) => highlight.id)).not.toContain(lost.id);
    expect(after.body).not.toContain('since lost');
    await checkPage('reader-after-delete.png');
  });

  it('saves a selected passage at once from the bar at the bottom of the screen', async () => {
    await page.goto(notePage);
    await page.evaluate(() => {
      const paragraph = [...document.querySelectorAll('article.reader p')].find((p) =>
        p.textContent?.includes('Frisian coast'),
      )!;
      const text = paragraph.firstChild!;
      const start = text.textContent!.indexOf('The mudflats');
      document.getSelection()!.setBaseAndExtent(text, start, text, start + 'The mudflats of the Wadden Sea'.length);
    });
    await page.getByRole('group', { name: 'The selected passage' }).getByRole('button', { name: 'Highlight' }).click();
    await page.waitForURL(/notice=highlighted/);
    expect(
      await page.locator('article.reader mark.highlight', { hasText: 'The mudflats of the Wadden Sea' }).count(),
    ).toBe(1);
    expect((await note()).highlights.at(-1)).toMatchObject({ quote: 'The mudflats of the Wadden Sea', comment: null });
  });

  it('refuses a pasted passage the page does not hold, saying so, and adds nothing', async () => {
    await page.goto(notePage);
    const before = await note();
    await page.getByLabel('Passage to highlight').fill('The tide went out and never came back.');
    await page.getByRole('button', { name: 'Save highlight' }).click();
    await expect.poll(() => page.locator('main').textContent()).toContain('The kept page does not hold this quote');
    await checkPage('reader-refused.png');
    expect(await note()).toEqual(before);
  });
});
