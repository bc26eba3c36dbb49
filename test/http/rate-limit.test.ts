import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestStack, type TestStack } from '../support/local-stack';

const QUOTA = 5;
let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({ SAVE_RATE_LIMIT: `${QUOTA};w=60` });
});
afterAll(() => t.stop());

describe('save rate limit', () => {
  it('lets exactly N of N+5 parallel requests through and answers the rest 429 RateLimitError', async () => {
    const { token } = await t.createUser();
    const responses = await Promise.all(
      Array.from({ length: QUOTA + 5 }, (_, i) => t.save(token, { url: `https://example.com/rl/${i}` })),
    );
    const limited = responses.filter((response) => response.status === 429);
    expect(responses.length - limited.length).toBe(QUOTA);
    for (const response of responses) {
      expect(response.headers.get('RateLimit-Limit')).toBe(String(QUOTA));
      expect(response.headers.get('RateLimit-Policy')).toBe(`${QUOTA};w=60`);
    }
    const remaining = responses
      .filter((response) => response.status === 200)
      .map((response) => Number(response.headers.get('RateLimit-Remaining')));
    expect(remaining.sort()).toEqual([0, 1, 2, 3, 4]);

    const rejected = limited[0]!;
    const body = await json(rejected);
    expect(body).toEqual({
      detail: { code: 'rate_limited', message: expect.any(String), retry_after: expect.any(Number) },
    });
    expect(rejected.headers.get('Retry-After')).toBe(String(body.detail.retry_after));
    expect(rejected.headers.get('RateLimit-Reset')).toBe(String(body.detail.retry_after));
    expect(rejected.headers.get('RateLimit-Remaining')).toBe('0');
    expect(body.detail.retry_after).toBeGreaterThan(0);
    expect(body.detail.retry_after).toBeLessThanOrEqual(60);
  });

  it('counts each token separately', async () => {
    const first = await t.createUser();
    const second = await t.createUser();
    for (let i = 0; i < QUOTA; i++) await t.save(first.token, { url: `https://example.com/a/${i}` });
    expect((await t.save(first.token, { url: 'https://example.com/a/over' })).status).toBe(429);
    expect((await t.save(second.token, { url: 'https://example.com/b/0' })).status).toBe(200);
  });

  it('limits requests without a valid token by client address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < QUOTA + 1; i++)
      statuses.push((await t.save('gln_notavalidtoken', { url: 'https://example.com' })).status);
    expect(statuses).toEqual([...Array(QUOTA).fill(401), 429]);
  });
});
