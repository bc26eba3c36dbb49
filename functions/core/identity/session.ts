import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Browser sessions of the web app: an opaque random id in an HttpOnly, SameSite=Lax cookie (Secure,
 * and `__Host-` prefixed, over HTTPS); only the id's SHA-256 is stored, with the user, the session's
 * CSRF token (a synchronizer token sent back in every state-changing form or `X-CSRF-Token` header)
 * and an expiry the table's TTL also reads. A sign-in always makes a new id (no fixation).
 */

const SESSION_LIFETIME_SECONDS = 30 * 24 * 3600;

export interface Session {
  /** SHA-256 of the cookie's id: the storage key. */
  readonly idHash: string;
  readonly userId: string;
  readonly csrfToken: string;
  readonly created: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

/** A new session for `userId`: the record to store and the id to put in the cookie (never stored). */
export function newSession(userId: string, now: Date): { session: Session; cookieValue: string } {
  const cookieValue = randomSecret();
  return {
    cookieValue,
    session: {
      idHash: hashSecret(cookieValue),
      userId,
      csrfToken: randomSecret(),
      created: now.toISOString(),
      expiresAt: Math.floor(now.getTime() / 1000) + SESSION_LIFETIME_SECONDS,
    },
  };
}

export function sessionLive(session: Session, now: Date): boolean {
  return session.expiresAt > now.getTime() / 1000;
}

/** 256 random bits, base64url: session ids, CSRF tokens, one-time link tokens. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The session cookie's name: `__Host-` over HTTPS, where browsers then insist on Secure, Path=/ and no Domain. */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-gleaner_session' : 'gleaner_session';
}

export function sessionCookie(cookieValue: string, secure: boolean): string {
  return [
    `${sessionCookieName(secure)}=${cookieValue}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${SESSION_LIFETIME_SECONDS}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return [
    `${sessionCookieName(secure)}=`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    'Max-Age=0',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** The session id a request's `Cookie` headers carry, or null. */
export function sessionIdFromCookies(cookieHeaders: readonly string[], secure: boolean): string | null {
  const name = sessionCookieName(secure);
  for (const headerValue of cookieHeaders) {
    for (const pair of headerValue.split(';')) {
      const separator = pair.indexOf('=');
      if (separator > 0 && pair.slice(0, separator).trim() === name) {
        const value = pair.slice(separator + 1).trim();
        if (/^[A-Za-z0-9_-]{20,100}$/.test(value)) return value;
      }
    }
  }
  return null;
}

/** Compares a submitted CSRF token with the session's in constant time. */
export function csrfTokenMatches(session: Pick<Session, 'csrfToken'>, submitted: string | null | undefined): boolean {
  if (!submitted) return false;
  const expected = Buffer.from(session.csrfToken);
  const given = Buffer.from(submitted);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
