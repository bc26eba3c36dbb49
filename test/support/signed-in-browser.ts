import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Environment } from '../../functions/platform/env';
import { launchChromium, signedInPhonePage } from './browser';
import { startTestStack } from './local-stack';
import { signedInUser } from './owner';

/**
 * Where a browser test starts: a local stack of its own (`env` and `options` as startTestStack takes
 * them; `searchIndex` puts a search index in a fresh folder) and Chromium. `stop` closes Chromium,
 * stops the stack and removes the folder; should a step fail to start, what had started is stopped
 * before the error is thrown.
 */
export async function startBrowserStack(
  env: Environment = {},
  options: Parameters<typeof startTestStack>[1] & { readonly searchIndex?: boolean } = {},
) {
  const { searchIndex, ...stackOptions } = options;
  const folder = searchIndex ? mkdtempSync(join(tmpdir(), 'gleaner-browser-')) : null;
  const started: (() => Promise<void> | void)[] = [];
  const stop = async () => {
    for (const step of [...started].reverse()) await step();
    if (folder) rmSync(folder, { recursive: true, force: true });
  };
  return stoppedOnFailure(stop, async () => {
    const t = await startTestStack(
      env,
      folder ? { ...stackOptions, searchIndexUri: join(folder, 'index') } : stackOptions,
    );
    started.push(() => t.stop());
    const browser = await launchChromium();
    started.push(() => browser.close());
    return { t, browser, stop };
  });
}

/**
 * Where a browser test of the web app starts: startBrowserStack's stack and Chromium, a signed-in
 * owner, and the owner's page on a phone-sized screen in dark mode with `checkPage` (signedInPhonePage).
 */
export async function startSignedInBrowser(...args: Parameters<typeof startBrowserStack>) {
  const started = await startBrowserStack(...args);
  return stoppedOnFailure(started.stop, async () => {
    const owner = await signedInUser(started.t);
    // The session sign-in would have set (see test/browser/accounts.test.ts for signing in itself).
    const { page, checkPage } = await signedInPhonePage(started.browser, started.t.stack.webBaseUrl, owner.cookie);
    return { ...started, owner, page, checkPage };
  });
}

export type SignedInBrowser = Awaited<ReturnType<typeof startSignedInBrowser>>;
export type BrowserStack = Awaited<ReturnType<typeof startBrowserStack>>;

/** What `start` answers; when it fails, `stop` runs (stopping what had started) before the error is thrown. */
async function stoppedOnFailure<T>(stop: () => Promise<void>, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    await stop();
    throw error;
  }
}
