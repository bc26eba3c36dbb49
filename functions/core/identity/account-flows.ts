import type { RateLimiter, RateLimitPolicy } from '../contract/rate-limit';
import type { User } from '../model';
import { webPaths } from '../web/paths';
import { displayNameOf, newUser } from '../workspace/accounts';
import { normalizeEmail } from './email';
import type { Login, OneTimeLink, OneTimePurpose, Passkey, WebAuthnChallenge } from './identity';
import { oneTimeLinkLive } from './identity';
import { NO_ACCOUNT, requestPasswordReset, sendOneTimeLink } from './links';
import { alreadyRegisteredMail, type Mailer } from './mail';
import { hashPassword, passwordProblem, verifyPassword } from './password';
import { hashSecret, newSession, type Session } from './session';
import { checkSignIn, throttle } from './sign-in';

/**
 * The account flows of the web app as use cases: sign-up, email verification, sign-in and sign-out,
 * password reset and invitations (a one-time link that sets the password), and the Account page's
 * changes (email, password, display name). They run on ports (the identity store, the user records,
 * the authorization server's logins, the sign-in quota, the mailer), which the DynamoDB adapters
 * implement and the tests hold in memory; the handler (functions/web-account) turns forms into calls
 * and outcomes into pages.
 */

/** An address already has a login: sign-up and an email change refuse it. */
export class EmailTakenError extends Error {}

/** Logins, sessions and one-time links, as the flows use them (functions/adapters/dynamo/identity-store.ts). */
export interface IdentityStore {
  /** A new user with an email login, at once; EmailTakenError when the address has a login. */
  createUserWithLogin(user: User, login: Login): Promise<void>;
  getLogin(email: string): Promise<Login | null>;
  getLoginOfUser(userId: string): Promise<Login | null>;
  setPassword(email: string, passwordHash: string, markVerified: boolean): Promise<void>;
  /** Marks the address verified if it is still the user's; false when the login moved on. */
  markVerified(email: string, userId: string): Promise<boolean>;
  /** Moves a login to a new address, unverified; EmailTakenError when the address has a login. */
  changeEmail(current: Login, newEmail: string): Promise<void>;
  putSession(session: Session): Promise<void>;
  getSession(idHash: string): Promise<Session | null>;
  deleteSession(idHash: string): Promise<void>;
  /** Ends every session of the user but `keepIdHash`'s. */
  deleteSessionsOf(userId: string, keepIdHash?: string): Promise<number>;
  putOneTimeLink(link: OneTimeLink): Promise<void>;
  getOneTimeLink(tokenHash: string): Promise<OneTimeLink | null>;
  /** Deletes the link and answers it, or null when it was already used; every reset link of the account goes with a reset's. */
  consumeOneTimeLink(tokenHash: string): Promise<OneTimeLink | null>;
  listPasskeys(userId: string): Promise<Passkey[]>;
  getPasskey(userId: string, credentialId: string): Promise<Passkey | null>;
  putPasskey(passkey: Passkey): Promise<void>;
  recordPasskeyUse(passkey: Passkey, counter: number, now: Date): Promise<void>;
  deletePasskey(userId: string, credentialId: string): Promise<void>;
  putChallenge(challenge: WebAuthnChallenge): Promise<void>;
  /** Deletes the challenge and answers it when it was live; null when unknown, used or expired. */
  consumeChallenge(challenge: string, now: Date): Promise<WebAuthnChallenge | null>;
}

/** An OAuth client's grant of a user's data, as Connected apps lists it. */
export interface ConnectedGrant {
  readonly grantId: string;
  readonly clientId: string;
  /** Scopes per resource indicator, and the OpenID scopes. */
  readonly scopes: readonly string[];
  /** ISO time the grant was made, when known. */
  readonly granted: string | null;
}

/** The authorization server's records of a user (functions/adapters/dynamo/oauth-adapter.ts's DynamoOAuthGrants). */
export interface AuthorizationGrants {
  listGrants(userId: string): Promise<ConnectedGrant[]>;
  clientName(clientId: string): Promise<string | null>;
  /** Revokes the user's own grant (and its tokens); false when the user has no such grant. */
  revokeGrant(userId: string, grantId: string): Promise<boolean>;
  /** Ends the server's own logins of the account (its Session records), with the account's sessions. */
  endLogins(userId: string): Promise<void>;
}

export interface AccountFlowPorts {
  readonly identities: IdentityStore;
  readonly accounts: {
    getUser(userId: string): Promise<Pick<User, 'displayName'> | null>;
    setDisplayName(userId: string, displayName: string): Promise<unknown>;
    /** The user's kept pages: how many, and their bytes with their images. */
    articleUsage(userId: string): Promise<{ articles: number; bytes: number }>;
  };
  readonly grants: AuthorizationGrants;
  readonly limiter: RateLimiter;
  readonly accountPolicy: RateLimitPolicy;
  readonly addressPolicy: RateLimitPolicy;
  readonly mailer: Mailer;
  readonly now: () => Date;
  readonly newId: () => string;
}

/** Where a request came from and went to: the client's address (for the quota) and the site's (for links). */
export interface RequestOrigin {
  readonly clientAddress: string;
  readonly baseUrl: string;
}

export type Throttled = { readonly kind: 'throttled'; readonly retryAfterSeconds: number };
export type Refused = { readonly kind: 'refused'; readonly problem: string };

const ENTER_EMAIL = 'Enter an email address like name@example.com.';
const WRONG_PASSWORD = 'Your current password is not right.';

/**
 * Sign-up: a new user with an unverified login and a confirmation link mailed. A taken address
 * answers as a new one does (`sent`); only its owner learns of it, by mail. The display name is the
 * person's own choice, never taken from the address.
 */
export async function signUp(
  ports: AccountFlowPorts,
  form: { email: string; password: string; displayName: string },
  origin: RequestOrigin,
): Promise<{ kind: 'sent' } | Refused | Throttled> {
  const email = normalizeEmail(form.email);
  const displayName = displayNameOf(form.displayName);
  if (!email) return { kind: 'refused', problem: ENTER_EMAIL };
  if (!displayName.ok) return { kind: 'refused', problem: displayName.problem };
  const problem = passwordProblem(form.password);
  if (problem) return { kind: 'refused', problem };
  const throttled = await throttle(ports, email, origin.clientAddress);
  if (throttled) return throttled;
  const now = ports.now();
  const user = newUser({ id: ports.newId(), name: '', displayName: displayName.value, now });
  const login: Login = {
    email,
    userId: user.id,
    passwordHash: await hashPassword(form.password),
    verified: false,
    created: now.toISOString(),
  };
  try {
    await ports.identities.createUserWithLogin(user, login);
    await mailLink(ports, origin.baseUrl, 'verify-email', login);
  } catch (error) {
    if (!(error instanceof EmailTakenError)) throw error;
    await ports.mailer.send(alreadyRegisteredMail(email, `${origin.baseUrl}${webPaths.signIn}`));
  }
  return { kind: 'sent' };
}

/**
 * Sign-in with a password: a new session (a new id every time: no fixation) replacing the previous
 * one, or why not. An unverified address gets a new confirmation link.
 */
export async function signIn(
  ports: AccountFlowPorts,
  form: { email: string; password: string },
  origin: RequestOrigin,
  /** The session the browser had, read only on success (it is replaced). */
  previous: () => Promise<Session | null>,
): Promise<{ kind: 'signed-in'; cookieValue: string } | { kind: 'refused' | 'unverified' } | Throttled> {
  const outcome = await checkSignIn(
    { ...ports, logins: ports.identities },
    { email: normalizeEmail(form.email), password: form.password, clientAddress: origin.clientAddress },
  );
  switch (outcome.kind) {
    case 'throttled':
    case 'refused':
      return outcome;
    case 'unverified':
      await mailLink(ports, origin.baseUrl, 'verify-email', outcome.login);
      return { kind: 'unverified' };
    case 'signed-in':
      return { kind: 'signed-in', cookieValue: await startSession(ports, outcome.login.userId, await previous()) };
  }
}

/** A fresh session of `userId` (a password or a passkey proved who it is), replacing `previous`; its cookie value. */
export async function startSession(
  ports: Pick<AccountFlowPorts, 'identities' | 'now'>,
  userId: string,
  previous: Session | null,
): Promise<string> {
  if (previous) await ports.identities.deleteSession(previous.idHash);
  const { session, cookieValue } = newSession(userId, ports.now());
  await ports.identities.putSession(session);
  return cookieValue;
}

/**
 * Sign-out of this session, or of every session of the account; the authorization server's logins
 * of the account end too (a browser still signed in would be signed in to it again without a prompt).
 */
export async function signOut(ports: AccountFlowPorts, session: Session, everywhere: boolean): Promise<void> {
  if (everywhere) await ports.identities.deleteSessionsOf(session.userId);
  else await ports.identities.deleteSession(session.idHash);
  await ports.grants.endLogins(session.userId);
}

/** Follows a confirmation link: true when it confirmed the address it was sent to (once, in time, still the account's). */
export async function verifyEmail(ports: AccountFlowPorts, token: string | null): Promise<boolean> {
  const link = token ? await ports.identities.consumeOneTimeLink(hashSecret(token)) : null;
  if (link?.purpose !== 'verify-email' || !oneTimeLinkLive(link, ports.now())) return false;
  // A link sent to an address the account has since left verifies nothing.
  return ports.identities.markVerified(link.email, link.userId);
}

/** A reset asked for an address: the same work and answer whether it has an account or not (see requestPasswordReset). */
export async function forgotPassword(
  ports: AccountFlowPorts,
  typedEmail: string,
  origin: RequestOrigin,
): Promise<{ kind: 'sent' } | Refused | Throttled> {
  const email = normalizeEmail(typedEmail);
  if (!email) return { kind: 'refused', problem: ENTER_EMAIL };
  const throttled = await throttle(ports, email, origin.clientAddress);
  if (throttled) return throttled;
  await requestPasswordReset(
    { logins: ports.identities, links: ports.identities, mailer: ports.mailer, now: ports.now },
    origin.baseUrl,
    email,
  );
  return { kind: 'sent' };
}

/** The live reset or invitation link a token opens, for an account; null otherwise. */
export async function passwordLink(ports: AccountFlowPorts, token: string | null): Promise<OneTimeLink | null> {
  const link = token ? await ports.identities.getOneTimeLink(hashSecret(token)) : null;
  const usable =
    link &&
    link.userId !== NO_ACCOUNT &&
    (link.purpose === 'reset-password' || link.purpose === 'invite') &&
    oneTimeLinkLive(link, ports.now());
  return usable ? link : null;
}

/**
 * Sets a password through a reset or invitation link. The link is used up before the password
 * changes (a second submission finds nothing); it proves the mailbox, so it confirms the address too;
 * every session and authorization-server login of the account ends.
 */
export async function setPasswordWithLink(
  ports: AccountFlowPorts,
  token: string | null,
  password: string,
): Promise<{ kind: 'expired' } | (Refused & { link: OneTimeLink }) | { kind: 'set' }> {
  const link = await passwordLink(ports, token);
  if (!link) return { kind: 'expired' };
  const problem = passwordProblem(password);
  if (problem) return { kind: 'refused', problem, link };
  if (!(await ports.identities.consumeOneTimeLink(link.tokenHash))) return { kind: 'expired' };
  await ports.identities.setPassword(link.email, await hashPassword(password), true);
  await ports.identities.deleteSessionsOf(link.userId);
  await ports.grants.endLogins(link.userId);
  return { kind: 'set' };
}

/** What the Account page shows of a user. */
export async function accountOverview(ports: AccountFlowPorts, userId: string) {
  const [login, passkeys, user, storage] = await Promise.all([
    ports.identities.getLoginOfUser(userId),
    ports.identities.listPasskeys(userId),
    ports.accounts.getUser(userId),
    ports.accounts.articleUsage(userId),
  ]);
  return {
    email: login?.email ?? null,
    verified: login?.verified ?? false,
    displayName: user?.displayName ?? '',
    passkeys,
    storage,
  };
}

/** A refusal of an Account form, with the status its page answers. */
export type AccountRefusal = Refused & { readonly status: 403 | 409 | 422 };

/** Moves the login to a new address (current password required), unverified, and mails its confirmation link. */
export async function changeEmail(
  ports: AccountFlowPorts,
  userId: string,
  form: { email: string; currentPassword: string },
  baseUrl: string,
): Promise<{ kind: 'changed' } | AccountRefusal> {
  const email = normalizeEmail(form.email);
  if (!email) return { kind: 'refused', problem: ENTER_EMAIL, status: 422 };
  const login = await ports.identities.getLoginOfUser(userId);
  if (!login?.passwordHash || !(await verifyPassword(form.currentPassword, login.passwordHash)))
    return { kind: 'refused', problem: WRONG_PASSWORD, status: 403 };
  if (email === login.email) return { kind: 'changed' };
  try {
    await ports.identities.changeEmail(login, email);
  } catch (error) {
    if (!(error instanceof EmailTakenError)) throw error;
    return { kind: 'refused', problem: 'That address belongs to another account.', status: 409 };
  }
  await mailLink(ports, baseUrl, 'verify-email', { ...login, email, verified: false });
  return { kind: 'changed' };
}

/** Changes the password (current one required); every other session and the authorization server's logins end. */
export async function changePassword(
  ports: AccountFlowPorts,
  session: Session,
  form: { currentPassword: string; newPassword: string },
): Promise<{ kind: 'changed' } | AccountRefusal> {
  const login = await ports.identities.getLoginOfUser(session.userId);
  if (!login?.passwordHash || !(await verifyPassword(form.currentPassword, login.passwordHash)))
    return { kind: 'refused', problem: WRONG_PASSWORD, status: 403 };
  const problem = passwordProblem(form.newPassword);
  if (problem) return { kind: 'refused', problem, status: 422 };
  await ports.identities.setPassword(login.email, await hashPassword(form.newPassword), false);
  await ports.identities.deleteSessionsOf(session.userId, session.idHash);
  await ports.grants.endLogins(session.userId);
  return { kind: 'changed' };
}

/** Sets the display name the person chose (empty clears it). */
export async function changeDisplayName(
  ports: AccountFlowPorts,
  userId: string,
  typed: string,
): Promise<{ kind: 'changed' } | AccountRefusal> {
  const displayName = displayNameOf(typed);
  if (!displayName.ok) return { kind: 'refused', problem: displayName.problem, status: 422 };
  await ports.accounts.setDisplayName(userId, displayName.value);
  return { kind: 'changed' };
}

/** Makes a one-time link of `purpose` for `login` and mails it. */
function mailLink(ports: AccountFlowPorts, baseUrl: string, purpose: OneTimePurpose, login: Login): Promise<string> {
  return sendOneTimeLink({ links: ports.identities, mailer: ports.mailer, now: ports.now }, baseUrl, purpose, login);
}
