import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page, Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_ANSWER } from '../../extension/src/queue';
import type { WorkerHandle } from '../../extension/src/worker';
import { mintToken } from '../../functions/core/token/token';
import { axeViolations, chromiumAvailable, launchWithExtension, serveHtmlPage } from '../support/browser';
import { startTestStack, type TestStack } from '../support/local-stack';
import { repositoryRoot } from '../support/processes';
import {
  currentWorker,
  extensionTestBuild,
  pressSaveCommand as pressSaveCommandIn,
  ungrantedAddress,
} from './support/extension';

/**
 * The extension in a real browser against the local stack: options set up by their labels, saves from
 * the popup and from the command/context-menu path, and a save made while the server is down that
 * arrives exactly once when it is back.
 */

/** GLEANER_SCREENSHOTS=docs refreshes the README's screenshots; otherwise they go to a temporary folder. */
const screenshotDir =
  process.env.GLEANER_SCREENSHOTS === 'docs'
    ? join(repositoryRoot, 'docs')
    : mkdtempSync(join(tmpdir(), 'gleaner-screens-'));

const ARTICLE = `<!doctype html><html lang="en"><head><title>Queues absorb bursts</title>
<meta name="description" content="Why a queue in front of a slow service keeps it standing."></head>
<body><h1>Queues absorb bursts</h1>
<p id="first">A queue turns a spike into a backlog.<br>The backlog drains at the pace the service can take.</p>
<p id="second">Retries need idempotency, or they do the work twice.</p>
<p id="third">Dead-letter queues keep what could not be processed.</p></body></html>`;

/** A save crosses the browser, CORS and the local stack: on a busy machine that takes more than a second. */
const SLOW = { timeout: 10_000 };

describe.skipIf(!chromiumAvailable())('the browser extension in Chromium', () => {
  let t: TestStack;
  let site: Awaited<ReturnType<typeof serveHtmlPage>>;
  let siteUrl: string;
  let context: BrowserContext;
  let worker: Worker;
  let extensionId: string;
  let token: string;
  let userId: string;

  beforeAll(async () => {
    t = await startTestStack();
    ({
      token,
      user: { id: userId },
    } = await t.createUser());
    site = await serveHtmlPage(ARTICLE);
    siteUrl = `http://127.0.0.1:${site.port}`;
    ({ context, worker, extensionId } = await launchWithExtension(await extensionTestBuild()));
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    site?.close();
    await t?.stop();
  });

  const extensionPage = async (path: string, viewport = { width: 760, height: 720 }) => {
    const page = await context.newPage();
    await page.setViewportSize(viewport);
    await page.goto(`chrome-extension://${extensionId}/${path}`);
    return page;
  };

  async function openArticle(path: string, selectId: string): Promise<{ page: Page; tabId: number }> {
    const page = await context.newPage();
    await page.goto(`${siteUrl}${path}`);
    await page.evaluate((id) => {
      const range = document.createRange();
      range.selectNodeContents(document.getElementById(id)!);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
    }, selectId);
    const tabId = await worker.evaluate(async (url) => (await chrome.tabs.query({ url }))[0]!.id!, `${siteUrl}${path}`);
    await page.bringToFront();
    return { page, tabId };
  }

  const pressSaveCommand = (tabId: number): Promise<any> => pressSaveCommandIn(context, tabId);

  const badgeText = () => worker.evaluate(() => chrome.action.getBadgeText({}));

  it('opens its options page when installed', async () => {
    const optionsUrl = `chrome-extension://${extensionId}/options.html`;
    await expect.poll(() => context.pages().some((page) => page.url() === optionsUrl)).toBe(true);
    await Promise.all(
      context
        .pages()
        .filter((page) => page.url() === optionsUrl)
        .map((page) => page.close()),
    );
  });

  it('is set up in the options page, which checks the token and tests the connection', async () => {
    const options = await extensionPage('options.html');
    const status = options.getByRole('status');
    await options.getByLabel('Server address').fill(ungrantedAddress(t.stack.baseUrl));

    await options.getByLabel('Personal access token').fill(`${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`);
    await options.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => status.textContent(), SLOW).toContain('checksum does not match');
    expect(await worker.evaluate(() => chrome.storage.local.get('settings'))).toEqual({});

    await options.getByLabel('Personal access token').fill(mintToken());
    await options.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => status.textContent(), SLOW).toContain('Token refused (401)');

    await options.getByLabel('Server address').fill('http://127.0.0.1:9');
    await options.getByLabel('Personal access token').fill(token);
    await options.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => status.textContent(), SLOW).toContain('Server unreachable');

    await options.getByLabel('Server address').fill(`${ungrantedAddress(t.stack.baseUrl)}/`);
    await options.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => status.textContent(), SLOW).toContain('Token accepted');
    await options.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => status.textContent(), SLOW).toBe('Saved.');
    expect(await worker.evaluate(() => chrome.storage.local.get('settings'))).toEqual({
      settings: { serverUrl: ungrantedAddress(t.stack.baseUrl), token },
    });
    expect(await axeViolations(options)).toEqual([]);
    await options.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => status.textContent(), SLOW).toContain('Token accepted');
    await options.screenshot({ path: join(screenshotDir, 'extension-options.png') });
    await options.close();
  });

  it('names Settings › API tokens and the address npm start names, and reads well in dark mode too', async () => {
    const options = await extensionPage('options.html');
    const hints = await options.locator('.hint').allTextContents();
    expect(hints.join(' ')).toContain('Settings › API tokens');
    expect(hints.join(' ')).toContain('http://localhost:3000');
    expect(hints.join(' ')).not.toContain('127.0.0.1');
    await options.emulateMedia({ colorScheme: 'dark' });
    expect(await axeViolations(options)).toEqual([]);
    expect(await options.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(32, 33, 36)');
    await options.screenshot({ path: join(screenshotDir, 'extension-options-dark.png') });
    await options.close();

    const { page, tabId } = await openArticle('/articles/dark', 'first');
    const popup = await extensionPage(`popup.html?tab=${tabId}`, { width: 360, height: 560 });
    await popup.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => popup.getByLabel('Title').inputValue()).not.toBe('');
    expect(await axeViolations(popup)).toEqual([]);
    await popup.close();
    await page.close();
  });

  it('saves from the popup with the selection and a comment, then appends a selection saved by the command', async () => {
    const { page, tabId } = await openArticle('/articles/queues?utm_source=feed', 'first');
    const popup = await extensionPage(`popup.html?tab=${tabId}`, { width: 360, height: 560 });
    await expect
      .poll(() => popup.getByLabel('Selection').inputValue())
      .toBe('A queue turns a spike into a backlog.\nThe backlog drains at the pace the service can take.');
    expect(await popup.getByLabel('Title').inputValue()).toBe('Queues absorb bursts');
    await popup.getByLabel('Comment').fill('The core idea #queues #reading');
    await popup.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => popup.getByRole('status').textContent(), SLOW).toBe('Saved');
    expect(await axeViolations(popup)).toEqual([]);
    await popup.locator('main').screenshot({ path: join(screenshotDir, 'extension-popup.png') });
    await popup.close();

    await page.evaluate(() => {
      const range = document.createRange();
      range.selectNodeContents(document.getElementById('second')!);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
    });
    const delivery = await pressSaveCommand(tabId);
    expect(delivery).toMatchObject({ kind: 'saved', result: { is_new_bookmark: false, selection_appended: true } });
    expect(await badgeText()).toBe('✓');

    const note = await t.bookmarks.getNote(delivery.result.note_id);
    expect(note?.body).toBe(
      [
        'Why a queue in front of a slow service keeps it standing.',
        `Source: [Queues absorb bursts](${siteUrl}/articles/queues?utm_source=feed)`,
        '> A queue turns a spike into a backlog.\n> The backlog drains at the pace the service can take.',
        'The core idea #queues #reading',
        '> Retries need idempotency, or they do the work twice.',
      ].join('\n\n'),
    );
    expect(note?.tags).toEqual(['queues', 'reading']);
    await page.close();
  });

  it('keeps a save made while the server is down and sends it exactly once when it is back', async () => {
    const notesBefore = (await t.accounts.getUser(userId))!.noteCount;
    const { page, tabId } = await openArticle('/articles/dead-letters', 'third');
    await t.takeDown();

    const delivery = await pressSaveCommand(tabId);
    expect(delivery).toMatchObject({ kind: 'queued', reason: NO_ANSWER });
    expect(await badgeText()).toBe('1');
    expect(await worker.evaluate(() => chrome.alarms.get('gleaner-outbox'))).toMatchObject({
      scheduledTime: expect.any(Number),
    });

    await t.bringUp();
    const popup = await extensionPage(`popup.html?tab=${tabId}`, { width: 360, height: 560 });
    const queued = popup.getByRole('listitem');
    await expect.poll(() => queued.count()).toBe(1);
    expect(await queued.textContent()).toContain(NO_ANSWER);
    await popup.getByRole('button', { name: 'Retry now' }).click();
    await expect.poll(() => popup.locator('#queue').isHidden()).toBe(true);
    await expect.poll(badgeText).toBe('');

    // Sending again (an alarm firing late) finds nothing left to send.
    await (await currentWorker(context)).evaluate(() =>
      (globalThis as unknown as { gleanerWorker: WorkerHandle }).gleanerWorker.outbox.flush(),
    );
    expect((await t.accounts.getUser(userId))!.noteCount).toBe(notesBefore + 1);
    const saved = await popup.evaluate(async () => (await chrome.storage.local.get('outbox')).outbox);
    expect(saved.items).toEqual([]);
    await popup.close();
    await page.close();
  });
});
