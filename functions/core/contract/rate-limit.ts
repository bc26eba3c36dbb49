import ipaddr from 'ipaddr.js';

/**
 * Fixed-window rate limiting in the header form of draft-ietf-httpapi-ratelimit-headers-06:
 * RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset and RateLimit-Policy (`120;w=60`).
 */

export interface RateLimitPolicy {
  readonly limit: number;
  readonly windowSeconds: number;
}

export interface RateLimitWindow {
  /** Epoch seconds at which the current window started; part of the counter's key. */
  readonly start: number;
  /** Seconds until the window resets (at least 1). */
  readonly resetSeconds: number;
}

export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly policy: RateLimitPolicy;
  readonly remaining: number;
  readonly resetSeconds: number;
}

/** Counts requests against quotas (the port; DynamoDB implements it). */
export interface RateLimiter {
  /** Counts one request by `subject` against `policy`; over quota it counts nothing and denies. */
  hit(subject: string, policy: RateLimitPolicy): Promise<RateLimitDecision>;
}

/** Parses `120;w=60` (quota 120 requests per 60-second window). */
export function parseRateLimitPolicy(value: string): RateLimitPolicy {
  const match = /^\s*(\d+)\s*;\s*w\s*=\s*(\d+)\s*$/.exec(value);
  const limit = Number(match?.[1]);
  const windowSeconds = Number(match?.[2]);
  if (!match || limit < 1 || windowSeconds < 1) {
    throw new Error(`Invalid rate limit policy "${value}"; expected the form "120;w=60"`);
  }
  return { limit, windowSeconds };
}

export function currentWindow(policy: RateLimitPolicy, nowMs: number): RateLimitWindow {
  const now = Math.floor(nowMs / 1000);
  const start = now - (now % policy.windowSeconds);
  return { start, resetSeconds: start + policy.windowSeconds - now };
}

/** The state of a window nobody has used yet: what an answer reports when the limiter could not say. */
export function fullQuota(policy: RateLimitPolicy, nowMs: number): RateLimitDecision {
  return { allowed: true, policy, remaining: policy.limit, resetSeconds: currentWindow(policy, nowMs).resetSeconds };
}

export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.policy.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
    'RateLimit-Policy': `${decision.policy.limit};w=${decision.policy.windowSeconds}`,
  };
}

/**
 * The quota key of a client address. One IPv6 subscriber gets a whole /64 and may rotate through it
 * at will, so IPv6 addresses count by their /64 prefix; IPv4 addresses, and IPv4-mapped IPv6 ones
 * (`::ffff:203.0.113.7`), count by the IPv4 address. Anything unparsable counts as itself.
 */
export function clientQuotaKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...prefix, 0, 0, 0, 0]).toString()}/64`;
}
