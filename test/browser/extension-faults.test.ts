import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NO_ANSWER } from '../../extension/src/queue';
import {
  axeViolations,
  chromiumAvailable,
  launchWithExtension,
  screenshotFolder,
  serveHtmlPage,
} from '../support/browser';
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
const SEND_TIMEOUT_MS = 3_000;
/** The tests' build retries after a second or so, where the shipped build waits 30 s at least. */
const RETRY_BASE_MS = 1_000;

const ARTICLE = `<!doctype html><html lang="en"><head><title>Retries and keys</title></head>
<body><p id="quote">An idempotency key turns a retry into a replay.</p>
<p id="more">Saves of one page keep their order.</p></body></html>`;
const QUOTE = 'An idempotency key turns a retry into a replay.';
const MORE = 'Saves of one page keep their order.';

/**
 * What the proxy does to a save of one page: lose the answer the server gave (`drop-answer`), never
 * give it (`hold`), give it late (`slow`), or answer itself without the server (a 503 or a 429 with
 * Retry-After).
 */
type Fault =
  | { readonly kind: 'drop-answer' | 'hold' }
  | { readonly kind: 'slow'; readonly ms: number }
  | { readonly kind: 'refuse'; readonly status: 503 | 429; readonly retryAfter: number };

/** One save as it reached the proxy. */
interface SeenSave {
  readonly key: string | undefined;
  readonly body: { url: string; selection?: string | null };
  /** The status the server answered (0 when the proxy answered itself). */
  readonly status: number;
  readonly at: number;
}

/** A proxy in front of the local stack that applies faults to the saves of chosen pages. */
async function startFaultyProxy(target: string) {
  const faults = new Map<string, Fault[]>();
  const saves: SeenSave[] = [];
  const held: ServerResponse[] = [];
  let onHeld = () => {};
  const read = async (stream: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  const forward = (request: IncomingMessage, body: Buffer) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const forwarded = httpRequest(
        new URL(request.url!, target),
        { method: request.method, headers: { ...request.headers, host: new URL(target).host } },
        resolve,
      );
      forwarded.on('error', reject).end(body);
    });
  const server = createServer(async (request, response) => {
    const at = Date.now();
    const body = await read(request);
    const save = request.method === 'POST' ? (JSON.parse(body.toString()) as SeenSave['body']) : null;
    const fault = save ? faults.get(save.url)?.shift() : undefined;
    const key = request.headers['idempotency-key'] as string | undefined;
    if (save && fault?.kind === 'refuse') {
      saves.push({ key, body: save, status: 0, at });
      const limited = fault.status === 429;
      const detail = limited
        ? { code: 'rate_limited', message: 'Rate limit exceeded', retry_after: fault.retryAfter }
        : 'Service Unavailable';
      const rateLimit = {
        'RateLimit-Limit': '10',
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': String(fault.retryAfter),
        'RateLimit-Policy': '10;w=60',
      };
      return response
        .writeHead(fault.status, {
          'Content-Type': 'application/json',
          'Retry-After': String(fault.retryAfter),
          ...(limited ? rateLimit : {}),
          // As Gleaner's own answers do: a browser shows an extension only the headers named here.
          'Access-Control-Allow-Origin': '*',
          'Access-Control-Expose-Headers': ['Retry-After', ...Object.keys(rateLimit)].join(', '),
          connection: 'close',
        })
        .end(JSON.stringify({ detail }));
    }
    const upstream = await forward(request, body);
    const answer = await read(upstream);
    if (save) {
      saves.push({ key, body: save, status: upstream.statusCode!, at });
      // The server did the work; only its answer goes missing, or comes late.
      if (fault?.kind === 'drop-answer') return request.socket.destroy();
      if (fault?.kind === 'hold') {
        held.push(response);
        return onHeld();
      }
      if (fault?.kind === 'slow') await new Promise((wake) => setTimeout(wake, fault.ms));
    }
    // One request per connection: Chromium sends a request again by itself when a reused connection
    // closes without an answer, which would hide the lost answer from the extension.
    response.writeHead(upstream.statusCode!, { ...upstream.headers, connection: 'close' }).end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: ungrantedAddress(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    saves,
    /** The saves of `url` that reached the proxy, in the order they came. */
    savesOf: (url: string) => saves.filter((save) => save.body.url === url),
    /** The next saves of `url` meet these faults, one each. */
    fail(url: string, ...next: Fault[]) {
      faults.set(url, [...(faults.get(url) ?? []), ...next]);
    },
    /** Runs when a held save arrives. */
    whenHeld(callback: () => void) {
      onHeld = callback;
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
/** A save retried by itself: a wait or two, and the send. */
const CONFIRMED = { timeout: 30_000 };

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
  const screenshots = screenshotFolder();

  beforeAll(async () => {
    t = await startTestStack();
    ({ token } = await t.createUser());
    proxy = await startFaultyProxy(t.stack.baseUrl);
    site = await serveHtmlPage(ARTICLE);
    siteUrl = `http://127.0.0.1:${site.port}`;
    ({ context, extensionId } = await launchWithExtension(
      await extensionTestBuild({ sendTimeoutMs: SEND_TIMEOUT_MS, retryBaseMs: RETRY_BASE_MS }),
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

  /** Every test leaves the outbox empty: what it saved was confirmed by itself. */
  afterEach(async () => {
    await expect.poll(async () => (await storedOutbox(extensionPage))?.items ?? [], CONFIRMED).toEqual([]);
  });

  /** Selects the text of the element `id` on the page. */
  const select = (page: Page, id: string) =>
    page.evaluate((target) => {
      const range = document.createRange();
      range.selectNodeContents(document.getElementById(target)!);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
    }, id);

  /** An article with its text selected, open in a tab; a distinct path per test gives a distinct note. */
  async function openArticle(path: string): Promise<{ page: Page; tabId: number; url: string }> {
    const page = await context.newPage();
    await page.goto(`${siteUrl}${path}`);
    await select(page, 'quote');
    await page.bringToFront();
    const tabId = await extensionPage.evaluate(async (url) => (await chrome.tabs.query({ url }))[0]!.id!, page.url());
    return { page, tabId, url: page.url() };
  }

  const openPopup = async (tabId: number) => {
    const popup = await context.newPage();
    await popup.setViewportSize({ width: 360, height: 560 });
    await popup.goto(`chrome-extension://${extensionId}/popup.html?tab=${tabId}`);
    await expect.poll(() => popup.getByLabel('Selection').inputValue()).toBe(QUOTE);
    return popup;
  };

  const statusOf = (popup: Page) => popup.getByRole('status').textContent();
  const badge = async () => (await currentWorker(context)).evaluate(() => chrome.action.getBadgeText({}));

  /** The note saved for a page: it quotes the selection exactly once. */
  async function expectSavedOnce(url: string) {
    const saves = proxy.savesOf(url);
    // Every send was the same request under the same key, and the server took each (the first did
    // the work, the retry got its answer replayed).
    expect(saves.length).toBeGreaterThanOrEqual(2);
    expect(new Set(saves.map((save) => save.key)).size).toBe(1);
    for (const save of saves) expect(save).toEqual({ ...saves[0], status: 200, at: save.at });
    const body = await noteBody(url);
    expect(body.split(QUOTE)).toHaveLength(2);
  }

  async function noteBody(url: string): Promise<string> {
    const noteId = (await t.save(token, { url }).then((response) => response.json())).note_id as string;
    return (await t.bookmarks.getNote(noteId))!.body;
  }

  it('says a lost answer will be confirmed by itself, and the open popup shows it saved once it is', async () => {
    const { page, tabId, url } = await openArticle('/lost-answer');
    const popup = await openPopup(tabId);
    // The answer is lost, and the retry's answer does not come in time: a while without an answer.
    proxy.fail(url, { kind: 'drop-answer' }, { kind: 'hold' });
    await popup.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => statusOf(popup), SLOW).toBe(NO_ANSWER);
    expect(await popup.getByRole('listitem').textContent()).toContain(NO_ANSWER);
    await popup.locator('main').screenshot({ path: join(screenshots, 'extension-popup-no-answer.png') });
    expect(await axeViolations(popup)).toEqual([]);
    await popup.emulateMedia({ colorScheme: 'dark' });
    expect(await axeViolations(popup)).toEqual([]);
    await popup.emulateMedia({ colorScheme: 'light' });

    // Nobody clicks anything: the retry gets the first answer replayed, and the popup follows.
    await expect.poll(() => statusOf(popup), CONFIRMED).toBe('Saved');
    await expect.poll(() => popup.locator('#queue').isHidden()).toBe(true);
    await popup.locator('main').screenshot({ path: join(screenshots, 'extension-popup-confirmed.png') });
    await expectSavedOnce(url);
    await Promise.all([popup.close(), page.close()]);
  });

  it('tells a popup opened again what became of a slow save made from it', async () => {
    const { page, tabId, url } = await openArticle('/slow-answer');
    let popup = await openPopup(tabId);
    // The server stores the save at once, but its answer comes after the extension stopped waiting.
    proxy.fail(url, { kind: 'slow', ms: SEND_TIMEOUT_MS + 2_000 });
    await popup.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => statusOf(popup), SLOW).toBe(NO_ANSWER);
    await popup.close();
    await expect.poll(async () => (await storedOutbox(extensionPage))?.items ?? [], CONFIRMED).toEqual([]);

    popup = await openPopup(tabId);
    await expect.poll(() => statusOf(popup)).toBe('Saved');
    expect(await popup.locator('#queue').isHidden()).toBe(true);
    await expectSavedOnce(url);
    await Promise.all([popup.close(), page.close()]);
  });

  it('gives up on a send that does not answer in time and retries it by itself as the same request', async () => {
    const { page, tabId, url } = await openArticle('/no-answer');
    proxy.fail(url, { kind: 'hold' });
    const started = Date.now();
    expect(await pressSaveCommand(context, tabId)).toMatchObject({ kind: 'queued', reason: NO_ANSWER });
    expect(Date.now() - started).toBeGreaterThanOrEqual(SEND_TIMEOUT_MS);
    await expect.poll(async () => (await storedOutbox(extensionPage))?.items, CONFIRMED).toEqual([]);
    await expectSavedOnce(url);
    await page.close();
  });

  it('keeps a page whose save gets a 503 waiting its Retry-After, its highlight behind it, and lets other pages go ahead', async () => {
    const busy = await openArticle('/busy');
    // Long enough for the steps below on a busy machine.
    proxy.fail(busy.url, { kind: 'refuse', status: 503, retryAfter: 8 });
    expect(await pressSaveCommand(context, busy.tabId)).toMatchObject({
      kind: 'queued',
      reason: 'Server error 503: Service Unavailable; the server asked to wait 8 s',
    });
    await expect.poll(badge).toBe('1');

    const other = await openArticle('/not-busy');
    expect(await pressSaveCommand(context, other.tabId)).toMatchObject({ kind: 'saved' });

    await select(busy.page, 'more');
    expect(await pressSaveCommand(context, busy.tabId)).toMatchObject({
      kind: 'queued',
      reason: 'Waiting behind an earlier save of this page',
    });
    await expect.poll(badge).toBe('2');
    const popup = await openPopup(other.tabId);
    await expect
      .poll(() => popup.getByRole('listitem').allTextContents())
      .toEqual([
        expect.stringContaining('Server error 503'),
        expect.stringContaining('Waiting behind an earlier save of this page'),
      ]);
    await popup.locator('main').screenshot({ path: join(screenshots, 'extension-popup-waiting.png') });

    await expect.poll(async () => (await storedOutbox(extensionPage))?.items, CONFIRMED).toEqual([]);
    const sends = proxy.savesOf(busy.url);
    // The first save, refused; then again (more than once should an answer come late on a busy
    // machine) under its key; only then the highlight, under its own.
    const firstOfHighlight = sends.findIndex((send) => send.body.selection === MORE);
    expect(firstOfHighlight).toBeGreaterThanOrEqual(2);
    expect(sends.slice(0, firstOfHighlight).map((send) => [send.key, send.body.selection])).toEqual(
      Array(firstOfHighlight).fill([sends[0]!.key, QUOTE]),
    );
    expect(sends.slice(firstOfHighlight).every((send) => send.body.selection === MORE)).toBe(true);
    expect(sends[0]!.status).toBe(0);
    expect(sends[1]!.at - sends[0]!.at).toBeGreaterThanOrEqual(8_000);
    expect(proxy.savesOf(other.url)[0]!.at).toBeLessThan(sends[1]!.at);
    // The note was created by the first save; the highlight came after it.
    const body = await noteBody(busy.url);
    expect(body.indexOf(QUOTE)).toBeGreaterThan(-1);
    expect(body.indexOf(MORE)).toBeGreaterThan(body.indexOf(QUOTE));
    await expect.poll(() => popup.locator('#queue').isHidden()).toBe(true);
    await Promise.all([popup.close(), busy.page.close(), other.page.close()]);
  });

  it('sends nothing before the Retry-After of a 429', async () => {
    const limited = await openArticle('/rate-limited');
    proxy.fail(limited.url, { kind: 'refuse', status: 429, retryAfter: 6 });
    expect(await pressSaveCommand(context, limited.tabId)).toMatchObject({
      kind: 'queued',
      reason: 'Rate limited: sending again in 6 s',
    });
    const next = await openArticle('/after-the-limit');
    expect(await pressSaveCommand(context, next.tabId)).toMatchObject({
      kind: 'queued',
      reason: 'Waiting for the rate limit to reset',
    });
    await expect.poll(async () => (await storedOutbox(extensionPage))?.items, CONFIRMED).toEqual([]);
    const [refused, retried] = proxy.savesOf(limited.url);
    expect(retried!.at - refused!.at).toBeGreaterThanOrEqual(6_000);
    expect(proxy.savesOf(next.url)[0]!.at - refused!.at).toBeGreaterThanOrEqual(6_000);
    await Promise.all([limited.page.close(), next.page.close()]);
  });

  it('shows a save made with Alt+Shift+S on the badge at once, while a popup save waits for its answer', async () => {
    const worker = await currentWorker(context);
    expect(await worker.evaluate(() => chrome.commands.getAll())).toContainEqual(
      expect.objectContaining({ name: 'save-page', shortcut: 'Alt+Shift+S' }),
    );
    // Every text the badge is given, in order.
    await worker.evaluate(() => {
      const seen: string[] = [];
      const setBadgeText = chrome.action.setBadgeText.bind(chrome.action);
      Object.assign(globalThis, { badgeTexts: seen });
      chrome.action.setBadgeText = ((details: chrome.action.BadgeTextDetails) => {
        seen.push(details.text ?? '');
        return setBadgeText(details);
      }) as typeof chrome.action.setBadgeText;
    });
    const badgeTexts = () => worker.evaluate(() => (globalThis as unknown as { badgeTexts: string[] }).badgeTexts);

    const slow = await openArticle('/popup-save');
    const popup = await openPopup(slow.tabId);
    proxy.fail(slow.url, { kind: 'slow', ms: SEND_TIMEOUT_MS + 2_000 });
    await popup.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(async () => (await storedOutbox(extensionPage))?.items[0]?.sendingSince ?? null).not.toBeNull();
    const before = (await badgeTexts()).length;

    const quick = await openArticle('/command-meanwhile');
    expect(await pressSaveCommand(context, quick.tabId)).toMatchObject({ kind: 'saved' });
    await expect.poll(() => statusOf(popup), CONFIRMED).toBe('Saved');
    await expect.poll(async () => (await badgeTexts()).slice(before)).toContain('✓');
    const texts = (await badgeTexts()).slice(before);
    // The command's save showed at once (2 pending), and the badge was never blank before the ✓.
    expect(texts).toContain('2');
    expect(texts.slice(0, texts.indexOf('✓'))).not.toContain('');
    await expect.poll(badge).toBe('');
    await Promise.all([popup.close(), slow.page.close(), quick.page.close()]);
  });

  it('sends a save again when the browser stopped the worker mid-send', async () => {
    const { page, tabId, url } = await openArticle('/stopped-worker');
    const held = new Promise<void>((resolve) => proxy.whenHeld(resolve));
    proxy.fail(url, { kind: 'hold' });
    const saving = pressSaveCommand(context, tabId).catch(() => null); // its worker is stopped under it
    await held;
    await stopServiceWorkers(extensionPage);
    await saving;

    // Nothing but the alarm set before the send wakes the worker to send the save again.
    await expect.poll(async () => (await storedOutbox(extensionPage))?.items, { timeout: 20_000 }).toEqual([]);
    await expectSavedOnce(url);
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
      await popup.getByRole('button', { name: 'Save', exact: true }).click();
      await expect
        .poll(() => popup.getByRole('status').textContent(), SLOW)
        .toBe(
          'Not saved: The browser’s storage for Gleaner is full, so the save could not be kept for sending (QUOTA_BYTES quota exceeded). Free space or discard waiting saves.',
        );
      expect(await popup.getByRole('button', { name: 'Save', exact: true }).isEnabled()).toBe(true);

      expect(await pressSaveCommand(context, tabId)).toBeNull();
      const notified = async () => Object.keys(await worker.evaluate(() => chrome.notifications.getAll()));
      await expect.poll(notified).toContainEqual(expect.stringMatching(/^failed-/));
    } finally {
      await worker.evaluate(() => {
        const local = chrome.storage.local as unknown as Record<string, unknown>;
        local.set = local.workingSet;
      });
    }
    await popup.getByRole('button', { name: 'Save', exact: true }).click();
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
    await options.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => status.textContent(), SLOW).toMatch(/^Saved\. The server at localhost:\d+ does not let/);
    expect(await asked()).toHaveLength(1);

    await options.getByRole('button', { name: 'Allow access to the server' }).click();
    await expect.poll(() => status.textContent(), SLOW).toContain('was declined');
    expect(await asked()).toHaveLength(2);
    await options.close();
    closedServer.close();
  });
});
