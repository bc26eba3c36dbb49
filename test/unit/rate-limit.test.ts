import { describe, expect, it } from 'vitest';
import {
  clientQuotaKey,
  currentWindow,
  parseRateLimitPolicy,
  rateLimitHeaders,
} from '../../functions/core/contract/rate-limit';

describe('parseRateLimitPolicy', () => {
  it.each([
    ['120;w=60', { limit: 120, windowSeconds: 60 }],
    ['1;w=1', { limit: 1, windowSeconds: 1 }],
    [' 120 ; w = 60 ', { limit: 120, windowSeconds: 60 }],
    ['30;w=3600', { limit: 30, windowSeconds: 3600 }],
  ])('%j → %j', (value, policy) => {
    expect(parseRateLimitPolicy(value)).toEqual(policy);
  });

  it.each([
    '0;w=60',
    '120;w=0',
    'abc',
    '120',
    ';w=60',
    '120;w=',
    '120;x=60',
    '-1;w=60',
    '1.5;w=60',
    '120;w=60;burst=10',
    '',
  ])('rejects %j', (value) => {
    expect(() => parseRateLimitPolicy(value)).toThrow(/expected the form "120;w=60"/);
  });
});

describe('currentWindow', () => {
  it.each([
    [125_000, 60, 120, 55],
    [125_999, 60, 120, 55],
    [120_000, 60, 120, 60],
    [179_999, 60, 120, 1],
    [180_000, 60, 180, 60],
    [0, 60, 0, 60],
    [1_700_000_123_456, 3600, 1_699_999_200, 2677],
    [5_500, 1, 5, 1],
  ])('at %i ms with w=%i: start %i, reset in %i s', (nowMs, windowSeconds, start, resetSeconds) => {
    expect(currentWindow({ limit: 10, windowSeconds }, nowMs)).toEqual({ start, resetSeconds });
  });

  it('always starts on a window boundary at or before now and resets within 1..window seconds', () => {
    const windowSeconds = 60;
    for (let nowMs = 1_700_000_000_000; nowMs < 1_700_000_000_000 + 130_000; nowMs += 997) {
      const { start, resetSeconds } = currentWindow({ limit: 10, windowSeconds }, nowMs);
      expect(start % windowSeconds).toBe(0);
      expect(start * 1000).toBeLessThanOrEqual(nowMs);
      expect(resetSeconds).toBeGreaterThanOrEqual(1);
      expect(resetSeconds).toBeLessThanOrEqual(windowSeconds);
      expect(start + windowSeconds).toBe(Math.floor(nowMs / 1000) + resetSeconds);
    }
  });

  it('gives every request of one window the same start, and the next window a new one', () => {
    const policy = { limit: 10, windowSeconds: 60 };
    expect(currentWindow(policy, 120_000).start).toBe(currentWindow(policy, 179_999).start);
    expect(currentWindow(policy, 180_000).start).not.toBe(currentWindow(policy, 179_999).start);
  });
});

describe('rateLimitHeaders', () => {
  it('gives exactly the four RateLimit headers as integer strings', () => {
    const headers = rateLimitHeaders({
      allowed: true,
      policy: { limit: 120, windowSeconds: 60 },
      remaining: 119,
      resetSeconds: 55,
    });
    expect(headers).toEqual({
      'RateLimit-Limit': '120',
      'RateLimit-Remaining': '119',
      'RateLimit-Reset': '55',
      'RateLimit-Policy': '120;w=60',
    });
  });

  it('reports zero remaining on a refused request', () => {
    const headers = rateLimitHeaders({
      allowed: false,
      policy: { limit: 5, windowSeconds: 1 },
      remaining: 0,
      resetSeconds: 1,
    });
    expect(headers['RateLimit-Remaining']).toBe('0');
    expect(headers['RateLimit-Policy']).toBe('5;w=1');
  });

  it('writes a policy that parses back to the same policy', () => {
    const policy = parseRateLimitPolicy(' 300 ; w = 3600 ');
    const headers = rateLimitHeaders({ allowed: true, policy, remaining: 1, resetSeconds: 10 });
    expect(headers['RateLimit-Policy']).toBe('300;w=3600');
    expect(parseRateLimitPolicy(headers['RateLimit-Policy']!)).toEqual(policy);
  });
});

describe('clientQuotaKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:0000:0000:0000:0009', '2001:db8:1:2::/64'],
    ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
    ['::1', '::/64'],
    ['not an address', 'not an address'],
  ])('%s counts as %s', (address, key) => {
    expect(clientQuotaKey(address)).toBe(key);
  });
});
