import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerHandle } from '../../extension/src/worker';
import { chromiumAvailable, launchWithExtension, serveHtmlPage } from '../support/browser';
import { startTestStack, type TestStack } from '../support/local-stack';
import {
  currentWorker,
  extensionTestBuild,
  openedPage,
  pressSaveCommand,
  stopServiceWorkers,
  storedOutbox,
  ungrantedAddress,
} from './support/extension';

/**
 * The extension in Chromium when things go wrong between it and the server: a lost answer, a server
 * that never answers, the browser stopping the worker mid-send, a failure inside the worker, an
 * address too long to save, and a server whose CORS keeps extensions out. The server is the local
 * stack behind a proxy the test steers.
 */

/** The tests' build gives up on a send after this, where the shipped build waits 20 s. */
const SEND_TIMEOUT_MS = 1_500;

const ARTICLE = `<!doctype html><html lang="en"><head><title>Retries and keys</title></head>
<body><p id="quote">An idempotency key turns a retry into a replay.</p></body></html>`;
const QUOTE = 'An idempotency key turns a retry into a replay.';

type Fault = 'drop-answer' | 'hold';

/** A proxy in front of the local stack that can lose the answer to a save, or never give it. */
async function startFaultyProxy(target: string) {
  const faults: Fault[] = [];
  const saves: { key: string | undefined; body: unknown; status: number }[] = [];
  const held: ServerResponse[] = [];
  let onHeld = () => {};
  const read = async (stream: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  const server = createServer(async (request, response) => {
    const body = await read(request);
    const upstream = await new Promise<IncomingMessage>((resolve, reject) => {
      const forwarded = httpRequest(
        new URL(request.url!, target),
        { method: request.method, headers: { ...request.headers, host: new URL(target).host } },
        resolve,
      );
      forwarded.on('error', reject).end(body);
    });
    const answer = await read(upstream);
    if (request.method === 'POST') {
      saves.push({
        key: request.headers['idempotency-key'] as string | undefined,
        body: JSON.parse(body.toString()),
        status: upstream.statusCode!,
      });
      const fault = faults.shift();
      // The server did the work; only its answer goes missing.
      if (fault === 'drop-answer') return request.socket.destroy();
      if (fault === 'hold') {
        held.push(response);
        return onHeld();
      }
    }
    // One request per connection: Chromium sends a request again by itself when a reused connection
    // closes without an answer, which would hide the lost answer from the extension.
    response.writeHead(upstream.statusCode!, { ...upstream.headers, connection: 'close' }).end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: ungrantedAddress(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    saves,
    /** The next save's answer is lost (`drop-answer`) or never comes (`hold`). */
    failNext(fault: Fault, whenHeld = () => {}) {
      faults.push(fault);
      onHeld = whenHeld;
    },
    close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A server that answers a save but sends no CORS headers, as one configured for other origins does. */
async function startServerWithoutCors() {
  const server = createServer((_, response) =>
    response.writeHead(422, { 'Content-Type': 'application/json' }).end('{"detail":[]}'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: ungrantedAddress(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    close: () => server.close(),
  };
}

/** A save crosses the browser, CORS and the local stack: on a busy machine that takes more than a second. */
const SLOW = { timeout: 10_000 };

describe.skipIf(!chromiumAvailable())('the browser extension when saves go wrong', () => {
  let t: TestStack;
  let token: string;
  let proxy: Awaited<ReturnType<typeof startFaultyProxy>>;
  let site: Awaited<ReturnType<typeof serveHtmlPage>>;
  let siteUrl: string;
  let context: BrowserContext;
  let extensionId: string;
  /** An extension page kept open: it reads storage whichever worker is running. */
  let extensionPage: Page;

  beforeAll(async () => {
    t = await startTestStack();
    ({ token } = await t.createUser());
    proxy = await startFaultyProxy(t.stack.baseUrl);
    site = await serveHtmlPage(ARTICLE);
    siteUrl = `http://127.0.0.1:${site.port}`;
    ({ context, extensionId } = await launchWithExtension(
      await extensionTestBuild({ sendTimeoutMs: SEND_TIMEOUT_MS }),
    ));
    // The options page the extension opens on install serves to read and write its storage.
    const optionsUrl = `chrome-extension://${extensionId}/options.html`;
    extensionPage = await openedPage(context, optionsUrl);
    await extensionPage.evaluate((settings) => chrome.storage.local.set({ settings }), {
      serverUrl: proxy.address,
      token,
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    proxy?.close();
    site?.close();
    await t?.stop();
  });

  /** An article with its text selected, open in a tab; a distinct path per test gives a distinct note. */
  async function openArticle(path: string): Promise<{ page: Page; tabId: number }> {
    const page = await context.newPage();
    await page.goto(`${siteUrl}${path}`);
    await page.evaluate(() => {
      const range = document.createRange();
      range.selectNodeContents(document.getElementById('quote')!);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
    });
    await page.bringToFront();
    const tabId = await extensionPage.evaluate(async (url) => (await chrome.tabs.query({ url }))[0]!.id!, page.url());
    return { page, tabId };
  }

  const openPopup = async (tabId: number) => {
    const popup = await context.newPage();
    await popup.setViewportSize({ width: 360, height: 560 });
    await popup.goto(`chrome-extension://${extensionId}/popup.html?tab=${tabId}`);
    await expect.poll(() => popup.getByLabel('Selection').inputValue()).toBe(QUOTE);
    return popup;
  };

  /** The note saved for a page: it quotes the selection exactly once. */
  async function expectSavedOnce(url: string) {
    const saves = proxy.saves.filter((save) => (save.body as { url: string }).url === url);
    // Every send was the same request under the same key, and the server took each (the first did
    // the work, the retry got its answer replayed).
    expect(saves.length).toBeGreaterThanOrEqual(2);
    expect(new Set(saves.map((save) => save.key)).size).toBe(1);
    for (const save of saves) expect(save).toEqual({ ...saves[0], status: 200 });
    const noteId = (await t.save(token, { url }).then((response) => response.json())).note_id as string;
    const body = (await t.bookmarks.getNote(noteId))!.body;
    expect(body.split(QUOTE)).toHaveLength(2);
  }

  it('sends a save whose answer was lost again as the same request, and shows it saved', async () => {
    const { page, tabId } = await openArticle('/lost-answer');
    const popup = await openPopup(tabId);
    proxy.failNext('drop-answer');
    await popup.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => popup.getByRole('status').textContent(), { timeout: 10_000 })
      .toContain('Queued: Server unreachable');

    await popup.getByRole('button', { name: 'Retry now' }).click();
    await expect.poll(() => popup.getByRole('status').textContent(), SLOW).toBe('Saved');
    expect(await popup.locator('#queue').isHidden()).toBe(true);
    await expectSavedOnce(page.url());
    await Promise.all([popup.close(), page.close()]);
  });

  it('gives up on a send that does not answer in time and retries it as the same request', async () => {
    const { page, tabId } = await openArticle('/no-answer');
    proxy.failNext('hold');
    const started = Date.now();
    const delivery = await pressSaveCommand(context, tabId);
    expect(delivery).toMatchObject({ kind: 'queued', reason: expect.stringContaining('timed out') });
    expect(Date.now() - started).toBeGreaterThanOrEqual(SEND_TIMEOUT_MS);

    await (await currentWorker(context)).evaluate(() =>
      (globalThis as unknown as { gleanerWorker: WorkerHandle }).gleanerWorker.outbox.retryNow(),
    );
    expect((await storedOutbox(extensionPage))?.items).toEqual([]);
    await expectSavedOnce(page.url());
    await page.close();
  });

  it('sends a save again when the browser stopped the worker mid-send', async () => {
    const { page, tabId } = await openArticle('/stopped-worker');
    const held = new Promise<void>((resolve) => proxy.failNext('hold', resolve));
    const saving = pressSaveCommand(context, tabId).catch(() => null); // its worker is stopped under it
    await held;
    await stopServiceWorkers(extensionPage);
    await saving;

    // Nothing but the alarm set before the send wakes the worker to send the save again.
    await expect.poll(async () => (await storedOutbox(extensionPage))?.items, { timeout: 20_000 }).toEqual([]);
    await expectSavedOnce(page.url());
    await page.close();
  });

  it('shows a failure inside the worker in the popup and in a notification, never dropping it silently', async () => {
    const { page, tabId } = await openArticle('/storage-full');
    const worker = await currentWorker(context);
    await worker.evaluate(() => {
      const local = chrome.storage.local as unknown as Record<string, unknown>;
      local.workingSet = local.set;
      local.set = () => Promise.reject(new Error('QUOTA_BYTES quota exceeded'));
    });
    const popup = await openPopup(tabId);
    try {
      await popup.getByRole('button', { name: 'Save' }).click();
      await expect
        .poll(() => popup.getByRole('status').textContent(), SLOW)
        .toBe(
          'Not saved: The browser’s storage for Gleaner is full, so the save could not be kept for sending (QUOTA_BYTES quota exceeded). Free space or discard waiting saves.',
        );
      expect(await popup.getByRole('button', { name: 'Save' }).isEnabled()).toBe(true);

      expect(await pressSaveCommand(context, tabId)).toBeNull();
      const notified = async () => Object.keys(await worker.evaluate(() => chrome.notifications.getAll()));
      await expect.poll(notified).toContainEqual(expect.stringMatching(/^failed-/));
    } finally {
      await worker.evaluate(() => {
        const local = chrome.storage.local as unknown as Record<string, unknown>;
        local.set = local.workingSet;
      });
    }
    await popup.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => popup.getByRole('status').textContent(), SLOW).toBe('Saved');
    await Promise.all([popup.close(), page.close()]);
  });

  it('clips a long address in the popup and saves the page without its query string', async () => {
    const { page, tabId } = await openArticle(`/long?q=${'x'.repeat(3_000)}`);
    const popup = await openPopup(tabId);
    const warning = popup.locator('#url-too-long');
    expect(await warning.textContent()).toContain('Without its query string it fits');
    const save = popup.getByRole('button', { name: 'Save without the query string' });
    const box = (await save.boundingBox())!;
    expect(box.y + box.height).toBeLessThan(560);
    expect((await popup.locator('#page-url').boundingBox())!.height).toBeLessThan(30);

    await save.click();
    await expect.poll(() => popup.getByRole('status').textContent(), SLOW).toBe('Saved');
    expect((proxy.saves.at(-1)!.body as { url: string }).url).toBe(`${siteUrl}/long`);
    await Promise.all([popup.close(), page.close()]);
  });

  it('asks for access to the server only when its CORS keeps the extension out, and not again after a refusal', async () => {
    const closedServer = await startServerWithoutCors();
    const options = await context.newPage();
    await options.goto(`chrome-extension://${extensionId}/options.html`);
    // Automation cannot answer the browser's prompt: this page's answer is "no", and the asks are counted.
    await options.evaluate(() => {
      const counted = globalThis as unknown as { asked: string[][] };
      counted.asked = [];
      chrome.permissions.request = (async (request: chrome.permissions.Permissions) => {
        counted.asked.push(request.origins ?? []);
        return false;
      }) as typeof chrome.permissions.request;
    });
    const asked = () => options.evaluate(() => (globalThis as unknown as { asked: string[][] }).asked);
    const status = options.getByRole('status');
    const test = options.getByRole('button', { name: 'Test connection' });

    await options.getByLabel('Personal access token').fill(token);
    await options.getByLabel('Server address').fill(proxy.address);
    await test.click();
    await expect.poll(() => status.textContent(), SLOW).toContain('Token accepted');
    expect(await asked()).toEqual([]);

    await options.getByLabel('Server address').fill(closedServer.address);
    await test.click();
    await expect.poll(() => status.textContent(), SLOW).toContain('does not let browser extensions call it (CORS)');
    expect(await asked()).toEqual([['http://localhost/*']]);
    await test.click();
    await expect.poll(() => status.textContent(), SLOW).toContain('Saves wait until you allow it');
    await options.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => status.textContent(), SLOW).toMatch(/^Saved\. The server at localhost:\d+ does not let/);
    expect(await asked()).toHaveLength(1);

    await options.getByRole('button', { name: 'Allow access to the server' }).click();
    await expect.poll(() => status.textContent(), SLOW).toContain('was declined');
    expect(await asked()).toHaveLength(2);
    await options.close();
    closedServer.close();
  });
});
