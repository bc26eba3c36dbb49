import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page, Worker } from 'playwright-core';
import { buildExtension } from '../../../extension/build';
import type { Delivery, OutboxState } from '../../../extension/src/queue';
import type { WorkerHandle } from '../../../extension/src/worker';

/**
 * The tests' build of the extension (the shipped code, with the service worker started by
 * extension-test-worker.ts) and what tests do with it in Chromium.
 */

/**
 * Builds the extension for tests into a fresh folder; `sendTimeoutMs` stands in for the shipped 20 s,
 * `retryBaseMs` for the shipped 30 s shortest wait before a retry. The test pages' origin
 * (http://127.0.0.1) is granted at install in place of `activeTab`, which automation cannot grant.
 * Tests reach the Gleaner server as http://localhost:<port>, an origin not
 * granted, so the extension calls it through CORS as it does for a person.
 */
export async function extensionTestBuild(
  options: { sendTimeoutMs?: number; retryBaseMs?: number } = {},
): Promise<string> {
  const { outDir } = await buildExtension({
    outDir: mkdtempSync(join(tmpdir(), 'gleaner-extension-')),
    testWorker: {
      entry: join(import.meta.dirname, 'extension-test-worker.ts'),
      define: {
        GLEANER_TEST_SEND_TIMEOUT_MS: String(options.sendTimeoutMs ?? 20_000),
        GLEANER_TEST_RETRY_BASE_MS: String(options.retryBaseMs ?? 30_000),
      },
    },
    testHostPermissions: ['http://127.0.0.1/*'],
    zip: false,
  });
  return outDir;
}

/** The page the browser opened at `url` (the options page on install), once it is there. */
export async function openedPage(context: BrowserContext, url: string): Promise<Page> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((wake) => setTimeout(wake, 50))) {
    const page = context.pages().find((candidate) => candidate.url() === url);
    if (page) return page;
  }
  throw new Error(`${url} did not open within 10 s`);
}

/** The running service worker (a new one after the browser stopped the last). */
export async function currentWorker(context: BrowserContext): Promise<Worker> {
  const running = context.serviceWorkers();
  return running[running.length - 1] ?? (await context.waitForEvent('serviceworker'));
}

/** The keyboard command's code path, as the browser calls it for Alt+Shift+S. */
export async function pressSaveCommand(context: BrowserContext, tabId: number): Promise<Delivery | null> {
  return (await currentWorker(context)).evaluate(async (id) => {
    const { gleanerWorker } = globalThis as unknown as { gleanerWorker: WorkerHandle };
    return gleanerWorker.handleCommand('save-page', await chrome.tabs.get(id));
  }, tabId);
}

/** The outbox as stored, read from an extension page (it outlives the worker). */
export function storedOutbox(extensionPage: Page): Promise<OutboxState | undefined> {
  return extensionPage.evaluate(async () => (await chrome.storage.local.get('outbox')).outbox);
}

/** Stops every service worker, as the browser does with an idle one (or one it shuts down mid-request). */
export async function stopServiceWorkers(anyPage: Page): Promise<void> {
  const session = await anyPage.context().newCDPSession(anyPage);
  await session.send('ServiceWorker.enable');
  await session.send('ServiceWorker.stopAllWorkers');
  await session.detach();
}

/** The Gleaner server as the extension reaches it in tests: by `localhost`, whose access is not granted. */
export function ungrantedAddress(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.hostname = 'localhost';
  return url.href.replace(/\/+$/, '');
}
