import { describe, expect, it } from 'vitest';
import { contractProblems } from '../support/contract';

const save = 'http://127.0.0.1:3000/api/v1/bookmarks/save';
const feed = 'http://127.0.0.1:3000/api/v2/publisher/feeds/0b6f1f9e-2f4c-4f5e-9a3b-1c2d3e4f5a6b/public';
const rateLimit = {
  'RateLimit-Limit': '120',
  'RateLimit-Remaining': '119',
  'RateLimit-Reset': '60',
  'RateLimit-Policy': '120;w=60',
};
const json = { 'Content-Type': 'application/json' };
const answer = (status: number, headers: Record<string, string>, body: unknown = '') => ({
  status,
  headers: new Headers(headers),
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const unauthorized = { detail: 'Not authenticated' };

describe('the openapi.json answer check the HTTP tests use', () => {
  it('accepts a documented answer', () => {
    expect(
      contractProblems(
        'POST',
        save,
        answer(401, { ...rateLimit, ...json, 'WWW-Authenticate': 'Bearer realm="gleaner"' }, unauthorized),
      ),
    ).toEqual([]);
  });

  it('names a missing or malformed header', () => {
    const { 'RateLimit-Policy': _policy, ...threeHeaders } = rateLimit;
    expect(
      contractProblems(
        'POST',
        save,
        answer(401, { ...threeHeaders, ...json, 'WWW-Authenticate': 'Bearer' }, unauthorized),
      ),
    ).toEqual(['header RateLimit-Policy is missing']);
    expect(
      contractProblems(
        'POST',
        save,
        answer(
          401,
          { ...rateLimit, 'RateLimit-Remaining': 'many', ...json, 'WWW-Authenticate': 'Bearer' },
          unauthorized,
        ),
      ),
    ).toEqual([expect.stringMatching(/^header RateLimit-Remaining: "many" .*integer/)]);
  });

  it('names a body that does not match the schema, an undocumented status and a wrong media type', () => {
    const headers = { ...rateLimit, ...json, 'WWW-Authenticate': 'Bearer' };
    expect(contractProblems('POST', save, answer(401, headers, { detail: 42 }))).toEqual([
      expect.stringMatching(/^body: /),
    ]);
    expect(contractProblems('POST', save, answer(418, headers, unauthorized))).toEqual([
      'status 418 is not documented for saveBookmark',
    ]);
    expect(
      contractProblems('POST', save, answer(401, { ...headers, 'Content-Type': 'text/plain' }, unauthorized)),
    ).toEqual(['Content-Type text/plain is not one of application/json']);
  });

  it('checks the headers of a HEAD or 304 answer and that it has no body', () => {
    const cached = { ...rateLimit, ETag: '"abc"', 'Cache-Control': 'public, max-age=300' };
    expect(contractProblems('GET', feed, answer(304, cached))).toEqual([]);
    expect(contractProblems('GET', feed, answer(304, cached, 'x'))).toEqual([
      expect.stringMatching(/^a body was sent/),
    ]);
    expect(contractProblems('HEAD', feed, answer(200, { ...cached, ...json }))).toEqual([]);
  });

  it('leaves requests the document does not describe alone', () => {
    expect(contractProblems('GET', 'http://127.0.0.1:3000/icons/a.png', answer(404, json, { detail: 'x' }))).toBeNull();
    expect(contractProblems('GET', save, answer(404, json, { detail: 'Not Found' }))).toBeNull();
  });
});
