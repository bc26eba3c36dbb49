import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Retirement } from '../../functions/core/contract/retirement';
import { type RouteDefinition, routes } from '../../functions/platform/routes';
import { startLocalStack } from '../../local/stack';
import { contractFetch } from '../support/contract';
import { startTestStack, type TestStack } from '../support/local-stack';

/** The local stack with the save route and the JSON feed route marked as retiring in its route table. */

const retirement: Retirement = {
  deprecatedAt: '2027-01-15T12:00:00Z',
  sunsetAt: '2027-07-16T00:00:00Z',
  link: 'https://docs.example/retiring',
};
const expected = {
  deprecation: '@1800014400',
  sunset: 'Fri, 16 Jul 2027 00:00:00 GMT',
  link: '<https://docs.example/retiring>; rel="deprecation", <https://docs.example/retiring>; rel="sunset"',
};
const retiring = (ids: string[], marks: Retirement): RouteDefinition[] =>
  routes.map((route) => (ids.includes(route.id) ? { ...route, retirement: marks } : route));

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack(
    { FEED_RATE_LIMIT: '4;w=60' },
    { routes: retiring(['SaveBookmark', 'GetPublishedFeed'], retirement) },
  );
});
afterAll(() => t.stop());

function expectRetirementHeaders(response: Response) {
  expect({
    deprecation: response.headers.get('Deprecation'),
    sunset: response.headers.get('Sunset'),
    link: response.headers.get('Link'),
  }).toEqual(expected);
}

const feedUrl = (id: string, variant: 'public' | 'rss') => `${t.stack.baseUrl}/api/v2/publisher/feeds/${id}/${variant}`;

describe('a retiring route', () => {
  it('announces its retirement on every answer of the save route: 200, 401, 422 and 413', async () => {
    const { token } = await t.createUser();
    const answers = [
      await t.save(token, { url: 'https://example.com/retiring' }),
      await t.save(null, { url: 'https://example.com/retiring' }),
      await t.save(token, { url: 'ftp://example.com/' }),
      await t.save(token, 'x'.repeat(10 * 1024 * 1024 + 1)),
    ];
    expect(answers.map((response) => response.status)).toEqual([200, 401, 422, 413]);
    for (const response of answers) expectRetirementHeaders(response);
  });

  it('announces it on feed answers too, HEAD and 429 included, and exposes the headers to browsers', async () => {
    const answers = [
      await contractFetch(feedUrl(randomUUID(), 'public')),
      await contractFetch(feedUrl('not-a-uuid', 'public')),
      await contractFetch(feedUrl(randomUUID(), 'public'), { method: 'HEAD' }),
      await contractFetch(feedUrl(randomUUID(), 'public')),
      await contractFetch(feedUrl(randomUUID(), 'public')),
    ];
    expect(answers.map((response) => response.status)).toEqual([404, 422, 404, 404, 429]);
    for (const response of answers) expectRetirementHeaders(response);
    expect(answers[0]!.headers.get('Access-Control-Expose-Headers')).toMatch(/Deprecation, Sunset, Link/);
  });

  it('leaves routes that are not retiring alone', async () => {
    const response = await contractFetch(feedUrl(randomUUID(), 'rss'));
    expect(response.headers.get('Deprecation')).toBeNull();
    expect(response.headers.get('Sunset')).toBeNull();
  });
});

describe('a retirement with less than six months of notice', () => {
  it('stops the local stack from starting, with a message naming the route', async () => {
    const short = { ...retirement, sunsetAt: '2027-06-01T00:00:00Z' };
    // Refused before it touches DynamoDB, so no endpoint is needed.
    const start = startLocalStack({
      dynamoEndpoint: 'http://127.0.0.1:9',
      tableName: 'unused',
      routes: retiring(['GetPublishedFeedRss'], short),
    });
    await expect(start).rejects.toThrow(
      /^Route GetPublishedFeedRss: sunsetAt 2027-06-01T00:00:00.000Z is less than 6 months after deprecatedAt/,
    );
  });
});
