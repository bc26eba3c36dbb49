import { describe, expect, it } from 'vitest';
import type { AccessToken } from '../../functions/core/model';
import {
  expiryAfterRotation,
  lastUseDue,
  parseDuration,
  replacementExpiry,
  tokenAccepted,
  userAgentFamily,
} from '../../functions/core/token/lifecycle';

const token = (fields: Partial<AccessToken> = {}): AccessToken => ({
  id: 't',
  userId: 'u',
  label: null,
  revoked: false,
  created: '2026-01-01T00:00:00.000+00:00',
  expires: null,
  lastUsed: null,
  lastUsedAgent: null,
  ...fields,
});
const at = (iso: string) => new Date(iso);

describe('token lifecycle rules', () => {
  it.each([
    ['90d', 90 * 86_400_000],
    ['24h', 86_400_000],
    [' 30m ', 1_800_000],
    ['0h', 0],
  ])('parses the duration %j', (text, ms) => expect(parseDuration(text, '--x')).toBe(ms));

  it.each(['', '3 weeks', '1.5h', '-1d', '10s', 'd'])('refuses the duration %j', (text) =>
    expect(() => parseDuration(text, '--grace')).toThrow(/--grace takes a duration/),
  );

  it('accepts a token until its expiry, never a revoked one', () => {
    const expiring = token({ expires: '2026-02-01T00:00:00.000Z' });
    expect(tokenAccepted(expiring, at('2026-01-31T23:59:59.999Z'))).toBe(true);
    expect(tokenAccepted(expiring, at('2026-02-01T00:00:00.000Z'))).toBe(false);
    expect(tokenAccepted(token(), at('2099-01-01T00:00:00Z'))).toBe(true);
    expect(tokenAccepted(token({ revoked: true }), at('2026-01-01T00:00:00Z'))).toBe(false);
  });

  it('records a use when none was recorded within the hour', () => {
    expect(lastUseDue(token(), at('2026-01-01T00:00:00Z'))).toBe(true);
    const used = token({ lastUsed: '2026-01-01T10:00:00.000Z' });
    expect(lastUseDue(used, at('2026-01-01T10:59:59Z'))).toBe(false);
    expect(lastUseDue(used, at('2026-01-01T11:00:00Z'))).toBe(true);
  });

  it('ends a rotated token at the end of the grace period, or sooner when it expires sooner', () => {
    const now = at('2026-01-01T00:00:00.000Z');
    expect(expiryAfterRotation(token(), now, 3_600_000)).toMatch(/^2026-01-01T01:00:00/);
    expect(expiryAfterRotation(token({ expires: '2026-01-01T00:30:00.000Z' }), now, 3_600_000)).toBe(
      '2026-01-01T00:30:00.000Z',
    );
  });

  it("gives a rotated token's replacement the lifetime it had, or the one asked for, or none", () => {
    const now = at('2026-03-01T12:00:00.000Z');
    const ninetyDays = token({ created: '2026-01-01T00:00:00.000+00:00', expires: '2026-04-01T00:00:00.000+00:00' });
    expect(replacementExpiry(ninetyDays, now, undefined)).toBe('2026-05-30T12:00:00.000+00:00');
    expect(replacementExpiry(ninetyDays, now, 86_400_000)).toBe('2026-03-02T12:00:00.000+00:00');
    expect(replacementExpiry(token(), now, undefined)).toBeNull();
    expect(replacementExpiry(token(), now, 3_600_000)).toBe('2026-03-01T13:00:00.000+00:00');
  });

  it.each([
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      'Chrome',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
      'Edge',
    ],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox'],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
      'Safari',
    ],
    ['curl/8.5.0', 'curl'],
    ['python-requests/2.32.3', 'python-requests'],
    ['', null],
    [undefined, null],
  ])('names the client family of %j', (userAgent, family) => expect(userAgentFamily(userAgent)).toBe(family));
});
