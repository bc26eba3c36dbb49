import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { type AccountFlowPorts, startSession } from './account-flows';
import { type Passkey, WEBAUTHN_CHALLENGE_SECONDS, type WebAuthnChallenge } from './identity';
import type { Session } from './session';

/**
 * The passkey flows of the web app as use cases: adding a passkey to the signed-in account, signing in
 * with a passkey alone, and removing one (the Account page lists them, see accountOverview). They run on
 * the identity store's port, as account-flows.ts's do; the WebAuthn ceremonies themselves are
 * @simplewebauthn/server's (passkeys.ts), loaded on first use so that a cold start of the account pages
 * does not carry it. Every challenge is stored with a 5-minute life and used once, whatever the answer.
 */

type PasskeyPorts = Pick<AccountFlowPorts, 'identities' | 'now'>;

/** passkeys.ts and @simplewebauthn/server (with its ASN.1 libraries), only when a passkey flow runs. */
const webauthn = () => import('./passkeys');

/** Stores a challenge just handed to the browser, to be used once within its life. */
function storeChallenge(ports: PasskeyPorts, challenge: Omit<WebAuthnChallenge, 'expiresAt'>): Promise<void> {
  return ports.identities.putChallenge({
    ...challenge,
    expiresAt: Math.floor(ports.now().getTime() / 1000) + WEBAUTHN_CHALLENGE_SECONDS,
  });
}

/** Uses up the stored challenge a browser's response answers: null when it names none live. */
async function consumeChallengeOf<Response>(
  ports: PasskeyPorts,
  challengeOf: (response: Response) => string | null,
  response: Response | undefined,
): Promise<WebAuthnChallenge | null> {
  const challenge = response ? challengeOf(response) : null;
  return challenge ? ports.identities.consumeChallenge(challenge, ports.now()) : null;
}

/** The options for the browser to create a passkey of the signed-in user; not one it already has. */
export async function passkeyRegistrationOptions(ports: PasskeyPorts, userId: string, baseUrl: string) {
  const passkeys = await webauthn();
  const [login, existing] = await Promise.all([
    ports.identities.getLoginOfUser(userId),
    ports.identities.listPasskeys(userId),
  ]);
  const options = await passkeys.registrationOptions(
    passkeys.relyingParty(baseUrl),
    { id: userId, email: login?.email ?? userId },
    existing,
  );
  await storeChallenge(ports, { challenge: options.challenge, purpose: 'register', userId });
  return options;
}

/** The name a passkey is listed by: the one typed (trimmed, at most 60 characters), else "Passkey". */
function passkeyLabel(typed: unknown): string {
  return typeof typed === 'string' && typed.trim() ? typed.trim().slice(0, 60) : 'Passkey';
}

/**
 * Adds the passkey the browser created: `expired` unless the response answers a live registration
 * challenge this user was given, `unverified` when the authenticator's answer does not verify.
 */
export async function registerPasskey(
  ports: PasskeyPorts,
  userId: string,
  form: { response: RegistrationResponseJSON | undefined; label: unknown },
  baseUrl: string,
): Promise<{ kind: 'registered'; passkey: Passkey } | { kind: 'expired' } | { kind: 'unverified' }> {
  const passkeys = await webauthn();
  const { response } = form;
  const stored = await consumeChallengeOf(ports, passkeys.responseChallenge, response);
  if (!response || !stored || stored.purpose !== 'register' || stored.userId !== userId) return { kind: 'expired' };
  const passkey = await passkeys.verifyRegistration(passkeys.relyingParty(baseUrl), {
    userId,
    label: passkeyLabel(form.label),
    response,
    challenge: stored.challenge,
    now: ports.now(),
  });
  if (!passkey) return { kind: 'unverified' };
  await ports.identities.putPasskey(passkey);
  return { kind: 'registered', passkey };
}

/** Removes one of the user's passkeys; another user's credential id names nothing (the store is keyed by user). */
export async function removePasskey(ports: PasskeyPorts, userId: string, credentialId: string | null): Promise<void> {
  if (credentialId) await ports.identities.deletePasskey(userId, credentialId);
}

/** The options for the browser to sign in with any passkey of this site (discoverable: no email asked). */
export async function passkeySignInOptions(ports: PasskeyPorts, baseUrl: string) {
  const passkeys = await webauthn();
  const options = await passkeys.signInOptions(passkeys.relyingParty(baseUrl));
  await storeChallenge(ports, { challenge: options.challenge, purpose: 'sign-in', userId: null });
  return options;
}

/**
 * Signs in with a passkey: the response must answer a live sign-in challenge and verify against the
 * passkey its user handle and credential id name together. A new session replaces the browser's
 * previous one, and the passkey's counter and last use are recorded.
 */
export async function signInWithPasskey(
  ports: PasskeyPorts,
  response: AuthenticationResponseJSON | undefined,
  baseUrl: string,
  /** The session the browser had, read only on success (it is replaced). */
  previous: () => Promise<Session | null>,
): Promise<{ kind: 'signed-in'; cookieValue: string } | { kind: 'refused' }> {
  const passkeys = await webauthn();
  const stored = await consumeChallengeOf(ports, passkeys.responseChallenge, response);
  const userId = response ? passkeys.responseUserId(response) : null;
  const passkey = userId && response?.id ? await ports.identities.getPasskey(userId, response.id) : null;
  const counter =
    response && stored?.purpose === 'sign-in' && passkey
      ? await passkeys.verifySignIn(passkeys.relyingParty(baseUrl), { passkey, response, challenge: stored.challenge })
      : null;
  if (counter === null || !passkey) return { kind: 'refused' };
  await ports.identities.recordPasskeyUse(passkey, counter, ports.now());
  return { kind: 'signed-in', cookieValue: await startSession(ports, passkey.userId, await previous()) };
}
