import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../cli/commands';
import { DynamoIdentityStore } from '../../functions/adapters/dynamo/identity-store';
import { FolderMailer } from '../../functions/adapters/mail/folder-mailer';
import { routes } from '../../functions/platform/routes';
import { lastMailTo } from '../support/browser';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { createLoginUser, csrfTokenOf, signedIn, WebClient } from '../support/web-client';

/**
 * The account pages over HTTP, and the attacks on them: a form without its CSRF token, an open
 * redirect through `next=`, a session after sign-out, brute force on one account, and telling
 * registered addresses apart. Then `gleaner users invite`.
 */

const PASSWORD = 'a long enough password';

// Each sign-in hashes with scrypt at full cost (about a second on a busy machine).
describe('accounts over HTTP', { timeout: 90_000 }, () => {
  let t: TestStack;

  beforeAll(async () => {
    // Every request here comes from one address: its own quota is set out of the way of the per-account one.
    // Windows are fixed and start at multiples of their length: a year-long one keeps a test's attempts in
    // one window, where a 15-minute one split them across a boundary about one run in a hundred.
    t = await startTestStack({
      SIGNIN_ACCOUNT_RATE_LIMIT: '5;w=31536000',
      SIGNIN_ADDRESS_RATE_LIMIT: '1000;w=31536000',
    });
    await createLoginUser(t, 'owner@example.com', PASSWORD);
  });

  afterAll(async () => {
    await t?.stop();
  });

  it('refuses a form posted from another site on every web form route of the route table, sign-in and sign-up included (login CSRF)', async () => {
    const owner = await signedIn(t, 'owner@example.com', PASSWORD);
    const csrf = csrfTokenOf(await (await owner.request('/account')).text());
    // Every POST of the table but the APIs called cross-origin by design (bearer tokens, OAuth clients):
    // a form route added under any handler gets these posts.
    const formRoutes = routes.filter(
      (route) =>
        route.method === 'POST' && !route.path.startsWith('/api/') && !['/mcp', '/oauth/{proxy+}'].includes(route.path),
    );
    expect(formRoutes.map((route) => route.path)).toEqual(
      expect.arrayContaining(['/signin', '/signup', '/library', '/share', '/settings/apps/revoke']),
    );
    const crossSite: Record<string, string>[] = [
      { Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'same-site' },
      { Origin: 'http://evil.example' },
    ];
    for (const route of formRoutes) {
      const path = route.path.replace(/\{[^}]+\}/g, randomUUID());
      for (const headers of crossSite) {
        const stranger = new WebClient(t.stack.webBaseUrl);
        for (const client of [owner, stranger]) {
          const answer = await client.request(path, {
            method: 'POST',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
            body: new URLSearchParams({ csrf, email: 'owner@example.com', password: PASSWORD }).toString(),
          });
          expect(answer.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
        }
        expect(stranger.cookies.size, path).toBe(0);
      }
    }
    // The same sign-in from the site itself works.
    const own = new WebClient(t.stack.webBaseUrl);
    const signIn = await own.request('/signin', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: new URL(t.stack.webBaseUrl).origin,
        'Sec-Fetch-Site': 'same-origin',
      },
      body: new URLSearchParams({ email: 'owner@example.com', password: PASSWORD }).toString(),
    });
    expect(signIn.status).toBe(303);
  });

  it('refuses a state-changing form posted without its CSRF token, or with another session’s', async () => {
    const owner = await signedIn(t, 'owner@example.com', PASSWORD);
    const other = await createLoginUser(t, 'csrf-other@example.com', PASSWORD).then(() =>
      signedIn(t, 'csrf-other@example.com', PASSWORD),
    );
    const otherToken = csrfTokenOf(await (await other.request('/account')).text());
    for (const csrf of [undefined, '', otherToken]) {
      const fields: Record<string, string> = { 'password-current': PASSWORD, 'new-password': 'another long password' };
      if (csrf !== undefined) fields.csrf = csrf;
      const answer = await owner.post('/account/password', fields);
      expect(answer.status).toBe(403);
      expect((await json(answer)).detail).toContain('CSRF');
    }
    // The password did not change, and signing out without the token does not sign out either.
    expect(
      (await new WebClient(t.stack.webBaseUrl).post('/signin', { email: 'owner@example.com', password: PASSWORD }))
        .status,
    ).toBe(303);
    expect((await owner.post('/signout', {})).status).toBe(403);
    expect((await owner.request('/account')).status).toBe(200);
    // JSON endpoints want the token in X-CSRF-Token.
    const options = await owner.request('/account/passkeys/options', { method: 'POST' });
    expect(options.status).toBe(403);
  });

  it('never redirects off the site through next=', async () => {
    await createLoginUser(t, 'next@example.com', PASSWORD);
    for (const next of [
      '//evil.example/x',
      'https://evil.example/',
      '/\\evil.example',
      '\\\\evil.example',
      'javascript:alert(1)',
    ]) {
      const client = new WebClient(t.stack.webBaseUrl);
      const answer = await client.post('/signin', { email: 'next@example.com', password: PASSWORD, next });
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toBe('/library');
    }
    const client = new WebClient(t.stack.webBaseUrl);
    const answer = await client.post('/signin', {
      email: 'owner@example.com',
      password: PASSWORD,
      next: '/settings/apps?x=1',
    });
    expect(answer.headers.get('location')).toBe('/settings/apps?x=1');
  });

  it('ends the session on the server at sign-out: the copied cookie opens nothing', async () => {
    await createLoginUser(t, 'leaving@example.com', PASSWORD);
    const client = await signedIn(t, 'leaving@example.com', PASSWORD);
    const cookie = `gleaner_session=${client.cookies.get('gleaner_session')}`;
    const page = await (await client.request('/account')).text();
    const signOut = await client.post('/signout', { csrf: csrfTokenOf(page) });
    expect(signOut.status).toBe(303);
    expect(signOut.headers.get('set-cookie')).toMatch(/gleaner_session=;.*Max-Age=0/);
    const replay = await fetch(`${t.stack.webBaseUrl}/account`, { headers: { Cookie: cookie }, redirect: 'manual' });
    expect(replay.status).toBe(303);
    const api = await fetch(`${t.stack.baseUrl}/api/v2/me`, { headers: { Cookie: cookie } });
    expect(api.status).toBe(401);
  });

  it('throttles guessing one account’s password, right password included, and says the same for an unknown address', async () => {
    await createLoginUser(t, 'target@example.com', PASSWORD);
    const attempt = (email: string, password: string) =>
      new WebClient(t.stack.webBaseUrl).post('/signin', { email, password });
    for (let i = 0; i < 5; i++) expect((await attempt('target@example.com', `wrong guess ${i}`)).status).toBe(401);
    const locked = await attempt('target@example.com', PASSWORD);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    // An unknown address answers exactly as a registered one does, throttle included.
    await createLoginUser(t, 'known@example.com', PASSWORD);
    const unknown = await attempt('nobody@example.com', 'wrong guess');
    const known = await attempt('known@example.com', 'wrong guess');
    expect(unknown.status).toBe(401);
    expect(await unknown.text()).toBe(
      (await known.text()).replace('value="known@example.com"', 'value="nobody@example.com"'),
    );
    for (let i = 0; i < 5; i++) await attempt('nobody@example.com', 'wrong guess');
    expect((await attempt('nobody@example.com', 'wrong guess')).status).toBe(429);
  });

  it('answers sign-up with a taken address as with a new one, and mails only the address’s owner', async () => {
    const signUp = (email: string) =>
      new WebClient(t.stack.webBaseUrl).post('/signup', { email, password: 'brand new password' });
    await createLoginUser(t, 'taken@example.com', PASSWORD);
    const taken = await signUp('taken@example.com');
    const fresh = await signUp('newcomer@example.com');
    expect(taken.status).toBe(303);
    expect(fresh.status).toBe(303);
    expect(taken.headers.get('location')).toBe(fresh.headers.get('location'));
    expect(await taken.text()).toBe(await fresh.text());
    expect(lastMailTo(t.stack.mailFolder, 'taken@example.com')?.subject).toBe('You already have a Gleaner account');
    expect(lastMailTo(t.stack.mailFolder, 'newcomer@example.com')?.subject).toBe(
      'Confirm your email address for Gleaner',
    );
  });

  it('answers a used confirmation link with a page about confirming, not one offering a password link', async () => {
    await new WebClient(t.stack.webBaseUrl).post('/signup', { email: 'confirmer@example.com', password: PASSWORD });
    const link = new URL(lastMailTo(t.stack.mailFolder, 'confirmer@example.com')!.link);
    const client = new WebClient(t.stack.webBaseUrl);
    expect((await client.request(`${link.pathname}${link.search}`)).status).toBe(303);
    const used = await client.request(`${link.pathname}${link.search}`);
    expect(used.status).toBe(410);
    const page = await used.text();
    expect(page).not.toContain('password link');
    expect(page).toContain('signing in mails you a fresh confirmation link');
    expect((await client.request('/set-password?token=nothing')).status).toBe(410);
  });

  it('resets a password with a one-time link, which then works no more', async () => {
    await createLoginUser(t, 'forgetful@example.com', PASSWORD);
    const client = new WebClient(t.stack.webBaseUrl);
    expect((await client.post('/forgot-password', { email: 'forgetful@example.com' })).status).toBe(303);
    const link = new URL(lastMailTo(t.stack.mailFolder, 'forgetful@example.com')!.link);
    const token = link.searchParams.get('token')!;
    expect((await client.request(`${link.pathname}${link.search}`)).status).toBe(200);
    const set = await client.post('/set-password', { token, password: 'a fresh new password' });
    expect(set.headers.get('location')).toBe('/signin?notice=password-set');
    expect((await client.post('/set-password', { token, password: 'yet another password' })).status).toBe(410);
    expect(
      (await client.post('/signin', { email: 'forgetful@example.com', password: 'a fresh new password' })).status,
    ).toBe(303);
  });

  it('ends every reset link of the account when one is used: an older link left in the mailbox sets nothing', async () => {
    await createLoginUser(t, 'twice@example.com', PASSWORD);
    const client = new WebClient(t.stack.webBaseUrl);
    const linkNow = () => new URL(lastMailTo(t.stack.mailFolder, 'twice@example.com')!.link).searchParams.get('token')!;
    expect((await client.post('/forgot-password', { email: 'twice@example.com' })).status).toBe(303);
    const older = linkNow();
    expect((await client.post('/forgot-password', { email: 'twice@example.com' })).status).toBe(303);
    const newer = linkNow();
    expect(newer).not.toBe(older);
    expect((await client.post('/set-password', { token: newer, password: 'a fresh new password' })).status).toBe(303);
    expect((await client.post('/set-password', { token: older, password: 'the attacker password' })).status).toBe(410);
    expect(
      (await client.post('/signin', { email: 'twice@example.com', password: 'the attacker password' })).status,
    ).not.toBe(303);
  });

  it('answers sign-up and the reset request with a redirect to a page a reload cannot post again (no second mail)', async () => {
    await createLoginUser(t, 'reloader@example.com', PASSWORD);
    const client = new WebClient(t.stack.webBaseUrl);
    const mails = () => readdirSync(t.stack.mailFolder).length;
    for (const [path, fields] of [
      ['/forgot-password', { email: 'reloader@example.com' }],
      ['/signup', { email: 'reload.signup@example.com', password: PASSWORD }],
    ] as const) {
      const before = mails();
      const posted = await client.post(path, fields);
      expect(posted.status, path).toBe(303);
      expect(posted.headers.get('location'), path).toBe(`${path}?notice=check-email`);
      expect(mails(), path).toBe(before + 1);
      for (let reload = 0; reload < 2; reload++) {
        const page = await client.request(posted.headers.get('location')!);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('Check your email');
      }
      expect(mails(), path).toBe(before + 1);
    }
  });

  it('asks a display name at sign-up (optional), never takes one from the address, and refuses control characters', async () => {
    const identities = new DynamoIdentityStore(t.table.doc, t.table.tableName);
    const stranger = new WebClient(t.stack.webBaseUrl);
    const form = await (await stranger.request('/signup')).text();
    expect(form).toContain('name="display-name"');
    const userOf = async (email: string) => t.accounts.getUser((await identities.getLogin(email))!.userId);

    const named = await stranger.post('/signup', {
      email: 'ana.reader@example.com',
      password: PASSWORD,
      'display-name': '  Ana Reader  ',
    });
    expect(named.status).toBe(303);
    expect(await userOf('ana.reader@example.com')).toMatchObject({ displayName: 'Ana Reader', name: '' });

    expect((await stranger.post('/signup', { email: 'no.name@example.com', password: PASSWORD })).status).toBe(303);
    expect(await userOf('no.name@example.com')).toMatchObject({ displayName: '', name: '' });

    const refused = await stranger.post('/signup', {
      email: 'bell@example.com',
      password: PASSWORD,
      'display-name': 'Ring\u0007Bell',
    });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain('control characters');
    expect(await identities.getLogin('bell@example.com')).toBeNull();
  });

  it('shows and changes the display name on Account (post/redirect/get), in the API’s account answer, for that user only', async () => {
    await createLoginUser(t, 'named@example.com', PASSWORD);
    await createLoginUser(t, 'unnamed@example.com', PASSWORD);
    const owner = await signedIn(t, 'named@example.com', PASSWORD);
    const other = await signedIn(t, 'unnamed@example.com', PASSWORD);
    const page = await (await owner.request('/account')).text();
    expect(page).toContain('No display name');
    const csrf = csrfTokenOf(page);

    const saved = await owner.post('/account/name', { csrf, 'display-name': '  Named Person ' });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe('/account?notice=name-changed');
    const after = await (await owner.request(saved.headers.get('location')!)).text();
    expect(after).toContain('Your display name is saved.');
    expect(after).toContain('value="Named Person"');
    expect(await json(await owner.request('/api/v2/me'))).toMatchObject({
      display_name: 'Named Person',
      name: 'named',
    });
    expect(await json(await other.request('/api/v2/me'))).toMatchObject({ display_name: '' });

    for (const bad of ['Line\nbreak', 'x'.repeat(81)]) {
      const refused = await owner.post('/account/name', { csrf, 'display-name': bad });
      expect(refused.status).toBe(422);
      expect(await refused.text()).toMatch(/control characters|at most 80 characters/);
    }
    expect(await json(await owner.request('/api/v2/me'))).toMatchObject({ display_name: 'Named Person' });

    // Emptied, the account publishes without a name.
    expect((await owner.post('/account/name', { csrf, 'display-name': '' })).status).toBe(303);
    expect(await json(await owner.request('/api/v2/me'))).toMatchObject({ display_name: '' });
  });

  it('invites an operator-made user with `gleaner users invite`: the link sets the password', async () => {
    const { user } = await t.createUser({ name: 'Invited' });
    const mailFolder = `${t.stack.mailFolder}-cli`;
    const invocation = {
      args: [user.id],
      options: { email: 'Invited@Example.com' },
      accounts: t.accounts,
      identities: new DynamoIdentityStore(t.table.doc, t.table.tableName),
      mailer: new FolderMailer(mailFolder, () => undefined),
      webBaseUrl: t.stack.webBaseUrl,
    } as unknown as Parameters<(typeof commands)['users invite']>[0];
    const answer = (await commands['users invite']!(invocation)) as { link: string; email: string };
    expect(answer.email).toBe('invited@example.com');
    expect(readdirSync(mailFolder)).toHaveLength(1);
    expect(lastMailTo(mailFolder, 'invited@example.com')?.link).toBe(answer.link);
    const client = new WebClient(t.stack.webBaseUrl);
    const page = await client.request(new URL(answer.link).pathname + new URL(answer.link).search);
    expect(await page.text()).toContain('Choose your password');
    await client.post('/set-password', { token: new URL(answer.link).searchParams.get('token')!, password: PASSWORD });
    const session = await client.post('/signin', { email: 'invited@example.com', password: PASSWORD });
    expect(session.status).toBe(303);
    const me = await json(await client.request('/api/v2/me'));
    expect(me).toMatchObject({ id: user.id, email: 'invited@example.com', email_verified: true });
    await expect(commands['users invite']!(invocation)).rejects.toThrow(/already/);
  });
});
