import { describe, expect, it } from 'vitest';
import * as flows from '../../functions/core/identity/account-flows';
import { hashSecret } from '../../functions/core/identity/session';
import { webPaths } from '../../functions/core/web/paths';
import { inMemoryAccountPorts, origin, PASSWORD, tokenOf, twoPeople } from '../support/in-memory-identity';

/**
 * The account flows (core/identity/account-flows.ts) over in-memory ports: what each does to logins,
 * sessions and links, and what it mails, for two people at once. test/http/accounts.test.ts runs the
 * same flows through the pages, over DynamoDB Local. Each test hashes and checks a few passwords with
 * scrypt at OWASP's settings, which a loaded machine takes seconds for: hence the long timeout.
 */
const slow = { timeout: 120_000 };

describe('sign-up and confirmation', slow, () => {
  it('makes an unconfirmed login, mails its link, and confirms that address only once', async () => {
    const { ports, mails, identities, userOf } = await twoPeople();
    expect(mails.map((mail) => mail.to)).toEqual(['ada@example.com', 'grace@example.com']);
    expect((await identities.getLogin('ada@example.com'))!.verified).toBe(true);
    expect(await userOf('ada@example.com')).not.toBe(await userOf('grace@example.com'));
    // A used link confirms nothing again; nor does a made-up one.
    expect(await flows.verifyEmail(ports, tokenOf(mails[0]!.link))).toBe(false);
    expect(await flows.verifyEmail(ports, 'made-up')).toBe(false);
  });

  it('answers a taken address as a new one, mailing only its owner, and changes nothing of the account', async () => {
    const { ports, mails, identities } = await twoPeople();
    const before = await identities.getLogin('ada@example.com');
    const outcome = await flows.signUp(
      ports,
      { email: 'ADA@example.com', password: 'another password', displayName: 'Mallory' },
      origin,
    );
    expect(outcome).toEqual({ kind: 'sent' });
    expect(mails.at(-1)).toMatchObject({ to: 'ada@example.com', link: `https://gleaner.test${webPaths.signIn}` });
    expect(await identities.getLogin('ada@example.com')).toEqual(before);
    expect(identities.users.size).toBe(2);
  });

  it('refuses a bad address, display name or password, and throttles before any hashing', async () => {
    const { ports } = inMemoryAccountPorts();
    const form = { email: 'new@example.com', password: PASSWORD, displayName: '' };
    expect(await flows.signUp(ports, { ...form, email: 'not an address' }, origin)).toMatchObject({ kind: 'refused' });
    expect(await flows.signUp(ports, { ...form, displayName: 'a\nb' }, origin)).toMatchObject({ kind: 'refused' });
    expect(await flows.signUp(ports, { ...form, password: 'short' }, origin)).toMatchObject({ kind: 'refused' });
    const throttled = inMemoryAccountPorts({ quota: 0 });
    expect(await flows.signUp(throttled.ports, form, origin)).toMatchObject({ kind: 'throttled' });
    expect(throttled.identities.users.size).toBe(0);
  });
});

describe('sign-in and sign-out', slow, () => {
  it('refuses a wrong password or an unknown address alike, and mails an unconfirmed login a new link', async () => {
    const { ports, mails } = inMemoryAccountPorts();
    await flows.signUp(ports, { email: 'new@example.com', password: PASSWORD, displayName: '' }, origin);
    const attempt = (email: string, password: string) =>
      flows.signIn(ports, { email, password }, origin, async () => null);
    expect(await attempt('new@example.com', 'wrong password!')).toEqual({ kind: 'refused' });
    expect(await attempt('nobody@example.com', PASSWORD)).toEqual({ kind: 'refused' });
    expect(await attempt('new@example.com', PASSWORD)).toEqual({ kind: 'unverified' });
    expect(mails.filter((mail) => mail.to === 'new@example.com')).toHaveLength(2);
  });

  it("replaces the browser's previous session and ends one session, or all of a person's, at sign-out", async () => {
    const { ports, identities, sessionOf, endedLogins, userOf } = await twoPeople();
    const ada = await userOf('ada@example.com');
    const previous = sessionOf('ada@example.com');
    const again = await flows.signIn(
      ports,
      { email: 'ada@example.com', password: PASSWORD },
      origin,
      async () => previous,
    );
    expect(again.kind).toBe('signed-in');
    expect(identities.sessions.has(previous.idHash)).toBe(false);
    const third = await flows.startSession(ports, ada, null);
    await flows.signOut(ports, identities.sessions.get(hashSecret(third))!, false);
    expect([...identities.sessions.values()].filter((s) => s.userId === ada)).toHaveLength(1);
    await flows.signOut(ports, [...identities.sessions.values()].find((s) => s.userId === ada)!, true);
    expect([...identities.sessions.values()].map((s) => s.userId)).toEqual([await userOf('grace@example.com')]);
    expect(endedLogins).toEqual([ada, ada]);
  });
});

describe('password reset and invitations', slow, () => {
  it('sets the password through the link once, confirms the address and ends that person’s sessions only', async () => {
    const { ports, mails, identities, userOf, sessionOf, endedLogins } = await twoPeople();
    const grace = sessionOf('grace@example.com');
    expect(await flows.forgotPassword(ports, 'Ada@Example.com', origin)).toEqual({ kind: 'sent' });
    expect(await flows.forgotPassword(ports, 'ada@example.com', origin)).toEqual({ kind: 'sent' });
    const [older, newer] = mails.slice(-2).map((mail) => tokenOf(mail.link));
    expect(await flows.passwordLink(ports, newer!)).toMatchObject({ email: 'ada@example.com' });
    expect(await flows.setPasswordWithLink(ports, newer!, 'short')).toMatchObject({ kind: 'refused' });
    expect(await flows.setPasswordWithLink(ports, newer!, 'a brand new password')).toEqual({ kind: 'set' });
    // Used up, and the older link of the same mailbox with it.
    expect(await flows.setPasswordWithLink(ports, newer!, 'yet another password')).toEqual({ kind: 'expired' });
    expect(await flows.setPasswordWithLink(ports, older!, 'yet another password')).toEqual({ kind: 'expired' });
    const ada = await userOf('ada@example.com');
    expect([...identities.sessions.values()].some((session) => session.userId === ada)).toBe(false);
    expect(identities.sessions.get(grace.idHash)).toEqual(grace);
    expect(endedLogins).toEqual([ada]);
    const signIn = (password: string) =>
      flows.signIn(ports, { email: 'ada@example.com', password }, origin, async () => null);
    expect((await signIn('a brand new password')).kind).toBe('signed-in');
    expect((await signIn(PASSWORD)).kind).toBe('refused');
  });

  it('gives an address without an account a link that sets nothing, and refuses an invitation link once used', async () => {
    const { ports, mails, identities } = await twoPeople();
    await flows.forgotPassword(ports, 'nobody@example.com', origin);
    expect(mails.at(-1)!.to).toBe('nobody@example.com');
    expect(identities.links.size).toBe(1);
    const [dropped] = identities.links.values();
    expect(await flows.setPasswordWithLink(ports, dropped!.tokenHash, 'a brand new password')).toEqual({
      kind: 'expired',
    });
    expect(await flows.forgotPassword(ports, '', origin)).toMatchObject({ kind: 'refused' });
  });
});

describe('the Account page', slow, () => {
  it('changes the password with the current one, keeping only this session of the person', async () => {
    const { ports, identities, sessionOf, userOf } = await twoPeople();
    const ada = sessionOf('ada@example.com');
    const other = await flows.startSession(ports, ada.userId, null);
    const change = (currentPassword: string, newPassword: string) =>
      flows.changePassword(ports, ada, { currentPassword, newPassword });
    expect(await change('wrong password!', 'a brand new password')).toMatchObject({ status: 403 });
    expect(await change(PASSWORD, 'short')).toMatchObject({ status: 422 });
    expect(await change(PASSWORD, 'a brand new password')).toEqual({ kind: 'changed' });
    expect(identities.sessions.has(ada.idHash)).toBe(true);
    expect(identities.sessions.has(hashSecret(other))).toBe(false);
    expect(identities.sessions.has(sessionOf('grace@example.com').idHash)).toBe(true);
    expect(await userOf('ada@example.com')).toBe(ada.userId);
  });

  it("moves the email to a free address, unconfirmed with its link mailed, never onto another person's", async () => {
    const { ports, identities, mails, userOf } = await twoPeople();
    const ada = await userOf('ada@example.com');
    const move = (email: string, currentPassword = PASSWORD) =>
      flows.changeEmail(ports, ada, { email, currentPassword }, origin.baseUrl);
    expect(await move('grace@example.com')).toMatchObject({ status: 409 });
    expect(await move('ada@new.example', 'wrong password!')).toMatchObject({ status: 403 });
    expect(await move('nonsense')).toMatchObject({ status: 422 });
    expect(await move('ada@new.example')).toEqual({ kind: 'changed' });
    expect(await flows.accountOverview(ports, ada)).toMatchObject({ email: 'ada@new.example', verified: false });
    expect(mails.at(-1)!.to).toBe('ada@new.example');
    expect((await identities.getLogin('grace@example.com'))!.userId).toBe(await userOf('grace@example.com'));
  });

  it('sets a display name for that person only, and refuses control characters', async () => {
    const { ports, userOf } = await twoPeople();
    const [ada, grace] = [await userOf('ada@example.com'), await userOf('grace@example.com')];
    expect(await flows.changeDisplayName(ports, ada, ' Ada Lovelace ')).toEqual({ kind: 'changed' });
    expect(await flows.changeDisplayName(ports, ada, 'Ada\u0007')).toMatchObject({ status: 422 });
    expect((await flows.accountOverview(ports, ada)).displayName).toBe('Ada Lovelace');
    expect((await flows.accountOverview(ports, grace)).displayName).toBe('');
  });
});
