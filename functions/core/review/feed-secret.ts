/**
 * The private review feed's address secret: `<userId>.<43 base64url characters>` (256 random bits).
 * The user id part says whose feed to look up; only the secret's SHA-256 is stored, compared in
 * constant time. Re-issuing replaces the stored hash, so the old address stops working.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_BYTES = 32;
const FEED_SECRET = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/;

export function mintFeedSecret(userId: string): string {
  return `${userId}.${randomBytes(SECRET_BYTES).toString('base64url')}`;
}

export function hashFeedSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The user a well-formed secret names (not yet checked against the stored hash); null for anything else. */
export function feedSecretUser(secret: string): string | null {
  return FEED_SECRET.exec(secret)?.[1] ?? null;
}

/** Whether `secret` is the one whose hash is `storedHash`. */
export function feedSecretMatches(secret: string, storedHash: string | null): boolean {
  if (!storedHash) return false;
  const given = Buffer.from(hashFeedSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}
