import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, chromiumAvailable, lastMailTo, screenshotFolder } from '../support/browser';
import { type BrowserStack, startBrowserStack } from '../support/signed-in-browser';

/**
 * Accounts in real Chromium, through the local stack: sign up, confirm the address from the local
 * mail folder, sign out and back in, add a passkey with Chromium's virtual authenticator and sign in
 * with it alone, then grant an OAuth client on the consent page and see it in Connected apps. Every
 * page visited has no axe-core violation, on a phone and in dark mode too; `npm run screenshots`
 * (GLEANER_SCREENSHOTS=docs) writes the account pages' screenshots into docs/.
 */

const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery staple';

describe.skipIf(!chromiumAvailable())('accounts in Chromium', () => {
  let session: BrowserStack;
  let { t, browser } = {} as BrowserStack;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  const pagesChecked: string[] = [];
  const cspErrors: string[] = [];
  const screenshots = screenshotFolder();

  beforeAll(async () => {
    session = await startBrowserStack();
    ({ t, browser } = session);
    context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
    // A sign-in hashes with scrypt at OWASP's settings (an unknown address against a decoy, made on
    // first use): at a load average near 30 the deleted account's sign-in was answered past playwright's
    // default 30 s for an action, so actions here wait up to 90 s.
    context.setDefaultTimeout(90_000);
    page = await context.newPage();
    // The CSP forbids inline scripts and styles: a page that had one would log the refusal.
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|Refused/.test(message.text()))
        cspErrors.push(`${page.url()}: ${message.text()}`);
    });
    cdp = await context.newCDPSession(page);
  }, 120_000);

  afterAll(() => session?.stop());

  /** Checks the page (axe-core, no sideways scrolling) and, given a file name, writes its screenshot. */
  async function expectAccessible(screenshot?: string): Promise<void> {
    expect(await axeViolations(page), page.url()).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    pagesChecked.push(new URL(page.url()).pathname.replace(/\/oauth\/interaction\/[\w-]+$/, '/oauth/interaction'));
    if (screenshot) await page.screenshot({ path: join(screenshots, screenshot), fullPage: true });
  }

  async function signInWithPassword(): Promise<void> {
    await page.goto(`${t.stack.webBaseUrl}/signin`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  it('signs up, confirms the address from the mail folder, and signs in', async () => {
    await page.goto(t.stack.webBaseUrl);
    await expectAccessible();
    await page.getByRole('link', { name: 'Sign up' }).first().click();
    await expectAccessible('web-signup.png');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Check your email');
    await expectAccessible();

    // Not confirmed yet: the password is right, but the address must be confirmed first.
    await signInWithPassword();
    expect(await page.getByRole('alert').textContent()).toContain('Confirm your email address first');

    const mail = lastMailTo(t.stack.mailFolder, EMAIL);
    expect(mail?.subject).toBe('Confirm your email address for Gleaner');
    await page.goto(mail!.link);
    expect(await page.getByRole('status').textContent()).toContain('Your address is confirmed');
    await expectAccessible();

    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/library$/);
    const cookies = await context.cookies();
    const session = cookies.find((cookie) => cookie.name === 'gleaner_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
  });

  it('signs out on the server and back in with a new session id', async () => {
    const before = (await context.cookies()).find((cookie) => cookie.name === 'gleaner_session')!.value;
    await page.goto(`${t.stack.webBaseUrl}/account`);
    await expectAccessible();
    await page.getByRole('button', { name: 'Sign out', exact: true }).first().click();
    await page.waitForURL(/\/signin\?notice=signed-out$/);
    await expectAccessible('web-signin.png');
    // The old cookie, replayed, opens nothing.
    const replay = await fetch(`${t.stack.webBaseUrl}/account`, {
      headers: { Cookie: `gleaner_session=${before}` },
      redirect: 'manual',
    });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/signin?next=%2Faccount');

    await signInWithPassword();
    await page.waitForURL(/\/library$/);
    const after = (await context.cookies()).find((cookie) => cookie.name === 'gleaner_session')!.value;
    expect(after).not.toBe(before);
  });

  it('adds a passkey on the Account page and signs in with it alone', async () => {
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    await page.goto(`${t.stack.webBaseUrl}/account`);
    await page.getByLabel('Name for the new passkey').fill('This laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await expect.poll(() => page.getByText('This laptop').count()).toBeGreaterThan(0);
    await expectAccessible('web-account.png');

    await page.getByRole('button', { name: 'Sign out', exact: true }).first().click();
    await page.waitForURL(/\/signin/);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(/\/library$/);
    expect((await context.cookies()).some((cookie) => cookie.name === 'gleaner_session')).toBe(true);
  });

  it('grants an OAuth client on the consent page, then lists it in Settings › Connected apps', async () => {
    const redirectUri = 'http://127.0.0.1:9/callback';
    const registered = await fetch(`${t.stack.webBaseUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Reading app',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${t.stack.webBaseUrl}/oauth/authorize`);
    for (const [name, value] of Object.entries({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'notes:read notes:write feeds:read offline_access',
      resource: `${t.stack.webBaseUrl}/api/v2/me`,
      state: 'state-1',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }))
      authorize.searchParams.set(name, value);
    // The client's redirect URI is answered here: nothing listens on it.
    await page.route(`${redirectUri}**`, (route) => route.fulfill({ body: 'callback' }));
    await page.goto(authorize.toString());
    await page.waitForURL(/\/oauth\/interaction\//);
    expect(await page.locator('main').textContent()).toContain('Reading app');
    await expectAccessible('web-consent.png');
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.waitForURL((url) => url.toString().startsWith(redirectUri));
    expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();

    await page.goto(`${t.stack.webBaseUrl}/settings/apps`);
    expect(await page.locator('main').textContent()).toContain('Reading app');
    await expectAccessible('web-connected-apps.png');
  });

  it('downloads the account’s data, then deletes the account after the typed confirmation', async () => {
    await page.goto(`${t.stack.webBaseUrl}/account`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download my data' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('gleaner-export.json');
    const exported = JSON.parse(
      await new Promise<string>((resolve, reject) =>
        download
          .createReadStream()
          .then((stream) => {
            let text = '';
            stream.on('data', (chunk) => (text += chunk)).on('end', () => resolve(text));
          })
          .catch(reject),
      ),
    );
    expect(exported).toHaveProperty('bookmarks');

    const confirm = page.getByLabel('To confirm, type delete my account');
    await confirm.fill('delete my acount');
    // The browser's own check holds it back first; past it, the API's 422 is said in words.
    await confirm.evaluate((input: HTMLInputElement) => input.removeAttribute('pattern'));
    await page.getByRole('button', { name: 'Delete account' }).click();
    await expect.poll(() => page.locator('[data-account-delete-error]').textContent()).toContain('Type the words');
    await expectAccessible('web-account-delete.png');
    await confirm.fill('delete my account');
    await page.getByRole('button', { name: 'Delete account' }).click();
    await page.waitForURL(/\/signin$/);

    // The account is gone: its password signs nobody in.
    await signInWithPassword();
    expect(await page.getByRole('alert').textContent()).toContain('do not match an account');
  });

  it('puts each form’s submit button on a line of its own on a desktop too, under the last field', async () => {
    const desktop = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await desktop.goto(`${t.stack.webBaseUrl}/forgot-password`);
      const field = (await desktop.getByLabel('Email').boundingBox())!;
      const button = (await desktop.getByRole('button', { name: 'Send the link' }).boundingBox())!;
      expect(button.y).toBeGreaterThanOrEqual(field.y + field.height);
    } finally {
      await desktop.close();
    }
  });

  it('checked every page it visited for accessibility, and no page broke the CSP', () => {
    expect(new Set(pagesChecked)).toEqual(
      new Set(['/', '/signup', '/signin', '/account', '/oauth/interaction', '/settings/apps']),
    );
    expect(cspErrors).toEqual([]);
  });
});
