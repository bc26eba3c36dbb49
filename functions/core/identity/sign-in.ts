import { createHash } from 'node:crypto';
import { clientQuotaKey, type RateLimiter, type RateLimitPolicy } from '../contract/rate-limit';
import type { Login } from './identity';
import { decoyHash, verifyPassword } from './password';

/**
 * Checking an email and password. Attempts are throttled per address (whether it is registered or
 * not, so the throttle tells nothing) and per client address before the password is hashed, and an
 * unknown address is hashed against a decoy, so its answer takes as long as a wrong password's.
 */

export interface SignInPorts {
  readonly logins: { getLogin(email: string): Promise<Login | null> };
  readonly limiter: RateLimiter;
  readonly accountPolicy: RateLimitPolicy;
  readonly addressPolicy: RateLimitPolicy;
}

export type SignInOutcome =
  | { readonly kind: 'signed-in'; readonly login: Login }
  | { readonly kind: 'unverified'; readonly login: Login }
  | { readonly kind: 'refused' }
  | { readonly kind: 'throttled'; readonly retryAfterSeconds: number };

export async function checkSignIn(
  ports: SignInPorts,
  attempt: { email: string | null; password: string; clientAddress: string },
): Promise<SignInOutcome> {
  const throttled = await throttle(ports, attempt.email ?? 'invalid', attempt.clientAddress);
  if (throttled) return throttled;
  const login = attempt.email ? await ports.logins.getLogin(attempt.email) : null;
  const matches = await verifyPassword(attempt.password, login?.passwordHash ?? (await decoyHash()));
  if (!login?.passwordHash || !matches) return { kind: 'refused' };
  return login.verified ? { kind: 'signed-in', login } : { kind: 'unverified', login };
}

/** Counts an attempt against the account's and the client address's quotas; the answer when over either. */
export async function throttle(
  ports: Pick<SignInPorts, 'limiter' | 'accountPolicy' | 'addressPolicy'>,
  email: string,
  clientAddress: string,
): Promise<{ kind: 'throttled'; retryAfterSeconds: number } | null> {
  const emailKey = createHash('sha256').update(email).digest('hex');
  const [account, address] = await Promise.all([
    ports.limiter.hit(`signin:email:${emailKey}`, ports.accountPolicy),
    ports.limiter.hit(`signin:ip:${clientQuotaKey(clientAddress)}`, ports.addressPolicy),
  ]);
  const denied = [account, address].filter((decision) => !decision.allowed);
  if (!denied.length) return null;
  return { kind: 'throttled', retryAfterSeconds: Math.max(...denied.map((decision) => decision.resetSeconds)) };
}
