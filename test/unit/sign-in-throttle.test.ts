import { describe, expect, it } from 'vitest';
import type { RateLimitDecision, RateLimiter, RateLimitPolicy } from '../../functions/core/contract/rate-limit';
import { checkSignIn } from '../../functions/core/identity/sign-in';

/** A fixed-window limiter in memory: counts per subject, denies past the policy's limit. */
function memoryLimiter(): RateLimiter {
  const counts = new Map<string, number>();
  return {
    async hit(subject: string, policy: RateLimitPolicy): Promise<RateLimitDecision> {
      const count = (counts.get(subject) ?? 0) + 1;
      const allowed = count <= policy.limit;
      if (allowed) counts.set(subject, count);
      return { allowed, policy, remaining: Math.max(0, policy.limit - count), resetSeconds: policy.windowSeconds };
    },
  };
}

describe('sign-in throttling', () => {
  it('refuses a client address that tries many accounts, before hashing anything', async () => {
    const ports = {
      logins: { getLogin: async () => null },
      limiter: memoryLimiter(),
      accountPolicy: { limit: 100, windowSeconds: 900 },
      addressPolicy: { limit: 2, windowSeconds: 900 },
    };
    const attempt = (email: string, clientAddress = '203.0.113.7') =>
      checkSignIn(ports, { email, password: 'guess', clientAddress });
    expect((await attempt('a@example.com')).kind).toBe('refused');
    expect((await attempt('b@example.com')).kind).toBe('refused');
    expect(await attempt('c@example.com')).toEqual({ kind: 'throttled', retryAfterSeconds: 900 });
    // Another address is not held back; an IPv6 client counts by its /64.
    expect((await attempt('c@example.com', '2001:db8::1')).kind).toBe('refused');
    expect((await attempt('d@example.com', '2001:db8::2')).kind).toBe('refused');
    expect((await attempt('e@example.com', '2001:db8::3')).kind).toBe('throttled');
  });
});
