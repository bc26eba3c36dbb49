import type { AccessToken } from '../model';
import { isoTimestamp } from '../text/text';

/** Token expiry, rotation and "last used" (`gleaner tokens create --expires-in`, `tokens rotate`, `tokens list`). */

/** "Last used" is written at most this often per token, so busy clients add almost no writes. */
export const LAST_USE_INTERVAL_MS = 60 * 60 * 1000;
/** How long a rotated token keeps working unless `--grace` says otherwise. */
export const DEFAULT_ROTATION_GRACE = '24h';

export class InvalidDurationError extends Error {}

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `90d`, `24h`, `30m` in milliseconds (`0h` too: a rotation without grace). */
export function parseDuration(text: string, option: string): number {
  const match = /^(\d{1,6})([mhd])$/.exec(text.trim());
  if (!match) throw new InvalidDurationError(`${option} takes a duration such as 90d, 24h or 30m`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** A token authenticates while it is neither revoked nor past its expiry. */
export function tokenAccepted(token: AccessToken, now: Date): boolean {
  return !token.revoked && (token.expires === null || now.getTime() < Date.parse(token.expires));
}

/** True when the token's last recorded use is older than the interval (or was never recorded). */
export function lastUseDue(token: AccessToken, now: Date): boolean {
  return token.lastUsed === null || now.getTime() - Date.parse(token.lastUsed) >= LAST_USE_INTERVAL_MS;
}

/** The expiry a token gets `afterMs` from now, or null for none. */
export function expiryAfter(now: Date, afterMs: number | undefined): string | null {
  return afterMs === undefined ? null : isoTimestamp(new Date(now.getTime() + afterMs));
}

/** The rotated token's new expiry: the end of the grace period, unless it expires sooner anyway. */
export function expiryAfterRotation(token: AccessToken, now: Date, graceMs: number): string {
  const graceEnd = expiryAfter(now, graceMs)!;
  return token.expires !== null && Date.parse(token.expires) < Date.parse(graceEnd) ? token.expires : graceEnd;
}

/**
 * The expiry of a rotated token's replacement: `expiresInMs` from now when given, else the lifetime
 * the old token was created with (from its creation to its expiry) from now; null when it had none.
 */
export function replacementExpiry(token: AccessToken, now: Date, expiresInMs: number | undefined): string | null {
  if (expiresInMs !== undefined || token.expires === null) return expiryAfter(now, expiresInMs);
  return expiryAfter(now, Date.parse(token.expires) - Date.parse(token.created));
}

const FAMILIES: readonly [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\//, 'Opera'],
  [/\bFirefox\//, 'Firefox'],
  [/\b(?:Chrome|Chromium|CriOS)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/^curl\//, 'curl'],
];

/**
 * The client's family from its User-Agent, as `tokens list` shows it: a browser's name, or else the
 * first product token (`python-requests`), cut short; null without a header.
 */
export function userAgentFamily(userAgent: string | null | undefined): string | null {
  if (!userAgent?.trim()) return null;
  const known = FAMILIES.find(([pattern]) => pattern.test(userAgent));
  if (known) return known[1];
  return userAgent.trim().split(/[\s/]/)[0]!.slice(0, 40) || null;
}
