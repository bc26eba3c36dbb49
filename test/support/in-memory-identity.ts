import { expect } from 'vitest';
import * as flows from '../../functions/core/identity/account-flows';
import {
  type AccountFlowPorts,
  type AuthorizationGrants,
  type ConnectedGrant,
  EmailTakenError,
  type IdentityStore,
} from '../../functions/core/identity/account-flows';
import type { Login, OneTimeLink, Passkey, WebAuthnChallenge } from '../../functions/core/identity/identity';
import type { Mail } from '../../functions/core/identity/mail';
import { hashSecret, type Session } from '../../functions/core/identity/session';
import type { User } from '../../functions/core/model';

/**
 * The identity store in memory, as the DynamoDB one behaves (functions/adapters/dynamo/identity-store.ts):
 * one login per address, sessions and one-time links by hash, a used password link ending the user's
 * other password links.
 */
class InMemoryIdentityStore implements IdentityStore {
  readonly users = new Map<string, User & { email?: string }>();
  readonly logins = new Map<string, Login>();
  readonly sessions = new Map<string, Session>();
  readonly links = new Map<string, OneTimeLink>();
  readonly passkeys = new Map<string, Passkey>();
  readonly challenges = new Map<string, WebAuthnChallenge>();

  async createUserWithLogin(user: User, login: Login) {
    if (this.logins.has(login.email)) throw new EmailTakenError(login.email);
    this.users.set(user.id, { ...user, email: login.email });
    this.logins.set(login.email, login);
  }
  async getLogin(email: string) {
    return this.logins.get(email) ?? null;
  }
  async getLoginOfUser(userId: string) {
    const email = this.users.get(userId)?.email;
    return email ? (this.logins.get(email) ?? null) : null;
  }
  async setPassword(email: string, passwordHash: string, markVerified: boolean) {
    const login = this.logins.get(email);
    if (!login) throw new Error(`No login ${email}`);
    this.logins.set(email, { ...login, passwordHash, verified: markVerified || login.verified });
  }
  async markVerified(email: string, userId: string) {
    const login = this.logins.get(email);
    if (login?.userId !== userId) return false;
    this.logins.set(email, { ...login, verified: true });
    return true;
  }
  async changeEmail(current: Login, newEmail: string) {
    if (this.logins.has(newEmail)) throw new EmailTakenError(newEmail);
    this.logins.delete(current.email);
    this.logins.set(newEmail, { ...current, email: newEmail, verified: false });
    this.users.set(current.userId, { ...this.users.get(current.userId)!, email: newEmail });
  }
  async putSession(session: Session) {
    this.sessions.set(session.idHash, session);
  }
  async getSession(idHash: string) {
    return this.sessions.get(idHash) ?? null;
  }
  async deleteSession(idHash: string) {
    this.sessions.delete(idHash);
  }
  async deleteSessionsOf(userId: string, keepIdHash?: string) {
    const ended = [...this.sessions.values()].filter((s) => s.userId === userId && s.idHash !== keepIdHash);
    for (const session of ended) this.sessions.delete(session.idHash);
    return ended.length;
  }
  async putOneTimeLink(link: OneTimeLink) {
    this.links.set(link.tokenHash, link);
  }
  async getOneTimeLink(tokenHash: string) {
    return this.links.get(tokenHash) ?? null;
  }
  async consumeOneTimeLink(tokenHash: string) {
    const link = this.links.get(tokenHash);
    if (!link) return null;
    this.links.delete(tokenHash);
    if (link.purpose !== 'verify-email')
      for (const other of [...this.links.values()])
        if (other.userId === link.userId && other.purpose !== 'verify-email') this.links.delete(other.tokenHash);
    return link;
  }
  async listPasskeys(userId: string) {
    return [...this.passkeys.values()].filter((passkey) => passkey.userId === userId);
  }
  async getPasskey(userId: string, credentialId: string) {
    const passkey = this.passkeys.get(credentialId);
    return passkey?.userId === userId ? passkey : null;
  }
  async putPasskey(passkey: Passkey) {
    this.passkeys.set(passkey.credentialId, passkey);
  }
  async recordPasskeyUse(passkey: Passkey, counter: number, now: Date) {
    this.passkeys.set(passkey.credentialId, { ...passkey, counter, lastUsed: now.toISOString() });
  }
  async deletePasskey(userId: string, credentialId: string) {
    if (this.passkeys.get(credentialId)?.userId === userId) this.passkeys.delete(credentialId);
  }
  async putChallenge(challenge: WebAuthnChallenge) {
    this.challenges.set(challenge.challenge, challenge);
  }
  async consumeChallenge(challenge: string, now: Date) {
    const stored = this.challenges.get(challenge);
    this.challenges.delete(challenge);
    return stored && stored.expiresAt > now.getTime() / 1000 ? stored : null;
  }
}

/**
 * The authorization server's records of users in memory, as DynamoOAuthGrants reads them
 * (functions/adapters/dynamo/oauth-adapter.ts): grants by id with their user, clients by id.
 */
class InMemoryGrants implements AuthorizationGrants {
  readonly grants = new Map<string, ConnectedGrant & { userId: string }>();
  readonly clients = new Map<string, string>();
  /** Whose logins ended, in order. */
  readonly endedLogins: string[] = [];

  /** The user allows the client: a new grant of `scopes`. */
  grant(userId: string, clientId: string, scopes: readonly string[]): string {
    const grantId = `grant-${this.grants.size + 1}`;
    this.grants.set(grantId, { grantId, clientId, scopes, granted: '2026-11-28T09:00:00.000Z', userId });
    return grantId;
  }
  async listGrants(userId: string) {
    return [...this.grants.values()].filter((grant) => grant.userId === userId).map(({ userId: _, ...grant }) => grant);
  }
  async clientName(clientId: string) {
    return this.clients.get(clientId) ?? null;
  }
  async revokeGrant(userId: string, grantId: string) {
    if (this.grants.get(grantId)?.userId !== userId) return false;
    this.grants.delete(grantId);
    return true;
  }
  async endLogins(userId: string) {
    this.endedLogins.push(userId);
  }
}

/** The account flows' ports in memory: the store, the grants, a counting quota, the mails sent, and whose OAuth logins ended. */
export function inMemoryAccountPorts(options: { quota?: number; now?: () => Date } = {}) {
  const identities = new InMemoryIdentityStore();
  const grants = new InMemoryGrants();
  const mails: Mail[] = [];
  const hits = new Map<string, number>();
  let ids = 0;
  const ports: AccountFlowPorts = {
    identities,
    accounts: {
      getUser: async (userId) => identities.users.get(userId) ?? null,
      setDisplayName: async (userId, displayName) => {
        identities.users.set(userId, { ...identities.users.get(userId)!, displayName });
      },
      articleUsage: async () => ({ articles: 0, bytes: 0 }),
    },
    grants,
    limiter: {
      hit: async (subject, policy) => {
        const count = (hits.get(subject) ?? 0) + 1;
        hits.set(subject, count);
        const allowed = count <= (options.quota ?? 100);
        return { allowed, policy, remaining: Math.max(0, policy.limit - count), resetSeconds: 60 };
      },
    },
    accountPolicy: { limit: 100, windowSeconds: 60 },
    addressPolicy: { limit: 100, windowSeconds: 60 },
    mailer: {
      send: async (mail) => {
        mails.push(mail);
      },
    },
    now: options.now ?? (() => new Date('2026-11-28T10:00:00Z')),
    newId: () => `user-${++ids}`,
  };
  return { ports, identities, grants, mails, endedLogins: grants.endedLogins };
}

export const origin = { clientAddress: '203.0.113.7', baseUrl: 'https://gleaner.test' };
export const PASSWORD = 'correct horse battery';
export const tokenOf = (link: string) => new URL(link).searchParams.get('token');

/** Ada and Grace, signed up and confirmed through the flows; each signed in once (their session cookies). */
export async function twoPeople(options: Parameters<typeof inMemoryAccountPorts>[0] = {}) {
  const world = inMemoryAccountPorts(options);
  const cookies: Record<string, string> = {};
  for (const email of ['ada@example.com', 'grace@example.com']) {
    expect(await flows.signUp(world.ports, { email, password: PASSWORD, displayName: '' }, origin)).toEqual({
      kind: 'sent',
    });
    const confirmation = world.mails.findLast((mail) => mail.to === email)!;
    expect(await flows.verifyEmail(world.ports, tokenOf(confirmation.link))).toBe(true);
    const signedIn = await flows.signIn(world.ports, { email, password: PASSWORD }, origin, async () => null);
    if (signedIn.kind !== 'signed-in') throw new Error(`${email} did not sign in: ${signedIn.kind}`);
    cookies[email] = signedIn.cookieValue;
  }
  const userOf = async (email: string) => (await world.identities.getLogin(email))!.userId;
  const sessionOf = (email: string) => world.identities.sessions.get(hashSecret(cookies[email]!))!;
  return { ...world, cookies, userOf, sessionOf };
}
