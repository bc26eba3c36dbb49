import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page, type Worker } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Debian's Chromium, driven by playwright-core (no browser download). Without it the browser tests
 * are skipped with a message naming the package, except under CI=true, where a missing browser fails.
 */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const message = `Chromium was not found at ${CHROMIUM_PATH}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH.`;
  if (process.env.CI === 'true') throw new Error(`${message} CI does not skip the browser tests.`);
  console.warn(`Skipping the browser tests. ${message}`);
  return false;
}

const CHROMIUM_ARGS = [
  '--no-sandbox',
  // This machine has no network beyond loopback: keep Chromium from trying.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** A headless Chromium without extensions, as a visitor of a web page runs it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/** A fresh headless Chromium profile with one unpacked extension loaded, and its service worker. */
export async function launchWithExtension(
  extensionDir: string,
): Promise<{ context: BrowserContext; worker: Worker; extensionId: string }> {
  const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'gleaner-chromium-')), {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, `--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`],
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  return { context, worker, extensionId: new URL(worker.url()).host };
}

/** A web site of one HTML page on a loopback port: the page a test visits, or embeds a feed in. */
export async function serveHtmlPage(html: string): Promise<{ readonly port: number; close(): void }> {
  const server = createServer((_, response) =>
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

/** Where a browser test writes its screenshots: docs/ under GLEANER_SCREENSHOTS=docs, a fresh folder otherwise. */
function screenshotFolder(): string {
  return process.env.GLEANER_SCREENSHOTS === 'docs'
    ? fileURLToPath(new URL('../../docs', import.meta.url))
    : mkdtempSync(join(tmpdir(), 'gleaner-screenshots-'));
}

const PHONE = { width: 390, height: 844 } as const;

/**
 * A page of the web app on a phone-sized screen in dark mode, signed in with a session cookie
 * (`name=value`, as sign-in sets it), and `checkPage`: what every page of the web app must pass (no
 * axe-core violation, no CSP refusal, no sideways scrolling) before its screenshot is written.
 */
export async function signedInPhonePage(
  browser: Browser,
  webBaseUrl: string,
  cookie: string,
): Promise<{ page: Page; checkPage(screenshot: string): Promise<void> }> {
  const context = await browser.newContext({ viewport: PHONE, colorScheme: 'dark' });
  const [name, value] = cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: webBaseUrl, httpOnly: true, sameSite: 'Lax' }]);
  const page = await context.newPage();
  const cspErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused/.test(message.text()))
      cspErrors.push(`${page.url()}: ${message.text()}`);
  });
  const screenshots = screenshotFolder();
  return {
    page,
    async checkPage(screenshot) {
      expect(await axeViolations(page), page.url()).toEqual([]);
      // A string: this module is type-checked without the DOM's types.
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
      expect(cspErrors).toEqual([]);
      await page.screenshot({ path: join(screenshots, screenshot), fullPage: true });
    },
  };
}

/** Every axe-core violation on the page (the web app's pages must have none), as `id: help (n nodes)`. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
  const results = await page.evaluate(() =>
    (
      globalThis as unknown as {
        axe: { run(): Promise<{ violations: { id: string; help: string; nodes: unknown[] }[] }> };
      }
    ).axe.run(),
  );
  return results.violations.map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.length} nodes)`);
}

/** The newest mail the local stack wrote to `folder` for `to`, with its link. */
export function lastMailTo(folder: string, to: string): { subject: string; link: string; text: string } | null {
  if (!existsSync(folder)) return null;
  const mails = readdirSync(folder)
    .sort()
    .map(
      (file) =>
        JSON.parse(readFileSync(join(folder, file), 'utf8')) as {
          to: string;
          subject: string;
          link: string;
          text: string;
        },
    )
    .filter((mail) => mail.to === to);
  return mails.at(-1) ?? null;
}
