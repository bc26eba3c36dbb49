import { describe, expect, it } from 'vitest';
import * as flows from '../../functions/core/identity/account-flows';
import { WEBAUTHN_CHALLENGE_SECONDS } from '../../functions/core/identity/identity';
import * as passkeys from '../../functions/core/identity/passkey-flows';
import { origin, PASSWORD, twoPeople } from '../support/in-memory-identity';
import { SoftwareAuthenticator } from '../support/software-authenticator';

/**
 * The passkey flows (core/identity/passkey-flows.ts) over in-memory ports, with a software
 * authenticator whose signatures @simplewebauthn/server verifies: adding, signing in with and removing
 * passkeys, for two people at once, and every challenge used once. test/browser/accounts.test.ts runs
 * the same flows in Chromium with its virtual authenticator, over DynamoDB Local. Signing the two people
 * up hashes passwords with scrypt: hence the long timeout.
 */
const slow = { timeout: 120_000 };
const { baseUrl } = origin;

/** Ada and Grace, each with a passkey of her own on one authenticator; a clock the test moves. */
async function withPasskeys() {
  let clock = new Date('2026-11-28T10:00:00Z');
  const world = await twoPeople({ now: () => clock });
  const authenticator = new SoftwareAuthenticator(new URL(baseUrl).origin);
  const [ada, grace] = [await world.userOf('ada@example.com'), await world.userOf('grace@example.com')];
  const add = async (userId: string, label: unknown = 'This laptop') => {
    const options = await passkeys.passkeyRegistrationOptions(world.ports, userId, baseUrl);
    const response = authenticator.create(options);
    return { response, outcome: await passkeys.registerPasskey(world.ports, userId, { response, label }, baseUrl) };
  };
  const credentialOf = async (userId: string) => {
    const { response, outcome } = await add(userId);
    expect(outcome.kind).toBe('registered');
    return response.id;
  };
  const [adaKey, graceKey] = [await credentialOf(ada), await credentialOf(grace)];
  /** The browser's answer to a fresh sign-in challenge, with the passkey `id`. */
  const assertion = async (id: string) =>
    authenticator.get(await passkeys.passkeySignInOptions(world.ports, baseUrl), id);
  const signIn = (response: Awaited<ReturnType<typeof assertion>>) =>
    passkeys.signInWithPasskey(world.ports, response, baseUrl, async () => null);
  const listed = async (userId: string) =>
    (await flows.accountOverview(world.ports, userId)).passkeys.map((passkey) => passkey.credentialId);
  const advance = (seconds: number) => {
    clock = new Date(clock.getTime() + seconds * 1000);
  };
  return { ...world, authenticator, ada, grace, adaKey, graceKey, add, assertion, signIn, listed, advance };
}

describe('adding a passkey', slow, () => {
  it("lists each person's passkey on that person's Account page only, under the name given", async () => {
    const { ada, grace, adaKey, graceKey, listed, add, ports } = await withPasskeys();
    expect(await listed(ada)).toEqual([adaKey]);
    expect(await listed(grace)).toEqual([graceKey]);
    const { outcome } = await add(ada, `  ${'x'.repeat(70)} `);
    expect(outcome).toMatchObject({ kind: 'registered', passkey: { userId: ada, label: 'x'.repeat(60) } });
    expect((await add(ada, '   ')).outcome).toMatchObject({ passkey: { label: 'Passkey' } });
    expect((await add(ada, 42)).outcome).toMatchObject({ passkey: { label: 'Passkey' } });
    expect(await listed(ada)).toHaveLength(4);
    expect(await listed(grace)).toEqual([graceKey]);
    // The options exclude the passkeys Ada has, so one authenticator does not make her a second.
    const options = await passkeys.passkeyRegistrationOptions(ports, ada, baseUrl);
    expect(options.excludeCredentials?.map((credential) => credential.id)).toContain(adaKey);
    expect(options.excludeCredentials?.map((credential) => credential.id)).not.toContain(graceKey);
    expect(options.user.name).toBe('ada@example.com');
  });

  it('uses a registration challenge once, for the person it was given to, within its five minutes', async () => {
    const { ada, grace, ports, authenticator, advance, listed, identities } = await withPasskeys();
    const register = (userId: string, response: ReturnType<typeof authenticator.create>) =>
      passkeys.registerPasskey(ports, userId, { response, label: 'Key' }, baseUrl);

    const options = await passkeys.passkeyRegistrationOptions(ports, ada, baseUrl);
    const response = authenticator.create(options);
    // Grace cannot add a passkey on Ada's challenge; the attempt uses it up, so Ada cannot either.
    expect(await register(grace, response)).toEqual({ kind: 'expired' });
    expect(await register(ada, response)).toEqual({ kind: 'expired' });

    const again = authenticator.create(await passkeys.passkeyRegistrationOptions(ports, ada, baseUrl));
    expect((await register(ada, again)).kind).toBe('registered');
    expect(await register(ada, again)).toEqual({ kind: 'expired' });

    const late = authenticator.create(await passkeys.passkeyRegistrationOptions(ports, ada, baseUrl));
    advance(WEBAUTHN_CHALLENGE_SECONDS + 1);
    expect(await register(ada, late)).toEqual({ kind: 'expired' });

    // A sign-in challenge does not register, nor does an answer without one or a made-up one.
    const signInChallenge = await passkeys.passkeySignInOptions(ports, baseUrl);
    const offPurpose = authenticator.create({
      ...(await passkeys.passkeyRegistrationOptions(ports, ada, baseUrl)),
      challenge: signInChallenge.challenge,
    });
    expect(await register(ada, offPurpose)).toEqual({ kind: 'expired' });
    expect(await passkeys.registerPasskey(ports, ada, { response: undefined, label: 'Key' }, baseUrl)).toEqual({
      kind: 'expired',
    });
    expect(await listed(grace)).toHaveLength(1);
    expect(await listed(ada)).toHaveLength(2);
    expect(identities.challenges.size).toBe(1); // the last registration options', never answered
  });

  it('refuses an answer that does not verify, adding nothing', async () => {
    const { ada, ports, authenticator, listed } = await withPasskeys();
    const response = authenticator.create(await passkeys.passkeyRegistrationOptions(ports, ada, baseUrl));
    // An answer made for another site does not verify here.
    const elsewhere = new SoftwareAuthenticator('https://evil.example').create({
      ...(await passkeys.passkeyRegistrationOptions(ports, ada, baseUrl)),
      rp: { id: 'evil.example', name: 'Evil' },
    });
    expect(await passkeys.registerPasskey(ports, ada, { response: elsewhere, label: 'Key' }, baseUrl)).toEqual({
      kind: 'unverified',
    });
    const tampered = { ...response, response: { ...response.response, attestationObject: 'AAAA' } };
    expect(await passkeys.registerPasskey(ports, ada, { response: tampered, label: 'Key' }, baseUrl)).toEqual({
      kind: 'unverified',
    });
    expect(await listed(ada)).toHaveLength(1);
  });
});

describe('signing in with a passkey', slow, () => {
  it('signs the passkey’s owner in, replacing the previous session, and records the use', async () => {
    const { ada, adaKey, ports, identities, assertion, sessionOf } = await withPasskeys();
    const previous = sessionOf('ada@example.com');
    const outcome = await passkeys.signInWithPasskey(ports, await assertion(adaKey), baseUrl, async () => previous);
    if (outcome.kind !== 'signed-in') throw new Error(`not signed in: ${outcome.kind}`);
    const [session] = [...identities.sessions.values()].filter((s) => s.userId === ada);
    expect(session!.idHash).not.toBe(previous.idHash);
    expect(identities.sessions.has(previous.idHash)).toBe(false);
    expect(await identities.getPasskey(ada, adaKey)).toMatchObject({
      counter: 1,
      lastUsed: '2026-11-28T10:00:00.000Z',
    });
    expect(identities.sessions.has(sessionOf('grace@example.com').idHash)).toBe(true);
  });

  it('refuses a replayed answer, a late one, and one answering a registration challenge', async () => {
    const { ada, adaKey, graceKey, ports, authenticator, assertion, signIn, advance, identities } =
      await withPasskeys();
    const answer = await assertion(adaKey);
    expect((await signIn(answer)).kind).toBe('signed-in');
    const sessions = identities.sessions.size;
    expect(await signIn(answer)).toEqual({ kind: 'refused' });

    const late = await assertion(graceKey);
    advance(WEBAUTHN_CHALLENGE_SECONDS + 1);
    expect(await signIn(late)).toEqual({ kind: 'refused' });

    const registration = await passkeys.passkeyRegistrationOptions(ports, ada, baseUrl);
    expect(await signIn(authenticator.get({ challenge: registration.challenge }, adaKey))).toEqual({ kind: 'refused' });
    expect(await signIn(undefined as never)).toEqual({ kind: 'refused' });
    expect(identities.sessions.size).toBe(sessions);
    expect(identities.challenges.size).toBe(0);
  });

  it("refuses a passkey presented as another person's, and a signature that does not verify", async () => {
    const { ada, grace, adaKey, graceKey, assertion, signIn, identities } = await withPasskeys();
    const handleOf = (userId: string) => Buffer.from(userId).toString('base64url');
    // Ada's credential id under Grace's user handle names no passkey of Grace.
    const asGrace = await assertion(adaKey);
    expect(await signIn({ ...asGrace, response: { ...asGrace.response, userHandle: handleOf(grace) } })).toEqual({
      kind: 'refused',
    });
    // Grace's credential id under Ada's handle neither.
    const swapped = await assertion(graceKey);
    expect(await signIn({ ...swapped, response: { ...swapped.response, userHandle: handleOf(ada) } })).toEqual({
      kind: 'refused',
    });
    // Grace's signature over Ada's challenge answer does not verify against Ada's key.
    const adas = await assertion(adaKey);
    const graces = await assertion(graceKey);
    expect(await signIn({ ...adas, response: { ...adas.response, signature: graces.response.signature } })).toEqual({
      kind: 'refused',
    });
    expect(await identities.getPasskey(ada, adaKey)).toMatchObject({ counter: 0, lastUsed: null });
    expect(await identities.getPasskey(grace, graceKey)).toMatchObject({ counter: 0, lastUsed: null });
  });
});

describe('removing a passkey', slow, () => {
  it("removes the person's own passkey, never another's, and (as today) even the last one, the password staying", async () => {
    const { ada, grace, adaKey, graceKey, ports, listed, assertion, signIn } = await withPasskeys();
    await passkeys.removePasskey(ports, grace, adaKey);
    await passkeys.removePasskey(ports, grace, null);
    expect(await listed(ada)).toEqual([adaKey]);
    const answer = await assertion(adaKey);
    await passkeys.removePasskey(ports, ada, adaKey);
    expect(await listed(ada)).toEqual([]);
    expect(await listed(grace)).toEqual([graceKey]);
    // A removed passkey signs nobody in; the password still does.
    expect(await signIn(answer)).toEqual({ kind: 'refused' });
    expect(
      (await flows.signIn(ports, { email: 'ada@example.com', password: PASSWORD }, origin, async () => null)).kind,
    ).toBe('signed-in');
  });
});
