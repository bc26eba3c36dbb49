import { parseFeed } from '@rowanmanning/feed-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeUrl } from '../../functions/platform/routes';
import { contractFetch } from '../support/contract';
import { jsonFeedSchemaProblems } from '../support/json-feed';
import { json, startTestStack, type TestStack } from '../support/local-stack';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t.stop());

/** A link-shared feed over `count` saved pages, tagged with both its tags, newest first. */
async function feedOf(count: number, match: 'any' | 'all' = 'any') {
  const { user, token } = await t.createUser();
  const feed = await t.createFeed(user.id, { title: 'Paged', tags: ['paged', 'more'], match, sharing: 'link' });
  for (let i = 0; i < count; i++)
    expect(
      (await t.save(token, { url: `https://example.com/${i}`, title: `page ${i}`, comment: '#paged #more' })).status,
    ).toBe(200);
  return { feed, token };
}

/** Every JSON Feed page from `url` on, following next_url. */
async function jsonFeedPages(url: string) {
  const pages: { ids: string[]; etag: string; url: string }[] = [];
  for (let next: string | undefined = url; next; ) {
    const answer = await contractFetch(next);
    expect(answer.status).toBe(200);
    const document = await json(answer);
    expect(jsonFeedSchemaProblems(document)).toEqual([]);
    pages.push({
      ids: document.items.map((item: { id: string }) => item.id),
      etag: answer.headers.get('ETag')!,
      url: next,
    });
    next = document.next_url;
  }
  return pages;
}

describe('paging the Atom and JSON Feed formats', () => {
  it('walks every entry once, newest first, through JSON Feed next_url and Atom rel="next"', async () => {
    for (const match of ['any', 'all'] as const) {
      const { feed } = await feedOf(7, match);
      const all = (
        await json(await contractFetch(routeUrl(t.stack.baseUrl, 'GetPublishedFeed', { feed_id: feed.id })))
      ).entries.map((entry: { id: string }) => entry.id);
      expect(all).toHaveLength(7);

      const pages = await jsonFeedPages(`${routeUrl(t.stack.baseUrl, 'GetJsonFeed', { feed_id: feed.id })}?limit=3`);
      expect(pages.map((page) => page.ids.length)).toEqual([3, 3, 1]);
      expect(pages.flatMap((page) => page.ids)).toEqual(all);
      expect(new Set(pages.map((page) => page.etag)).size).toBe(3);

      const atomIds: string[] = [];
      for (
        let next: string | undefined = `${routeUrl(t.stack.baseUrl, 'GetFeedAtom', { feed_id: feed.id })}?limit=3`;
        next;
      ) {
        const xml = await (await contractFetch(next)).text();
        const parsed = parseFeed(xml);
        expect(parsed.self).toBe(next);
        atomIds.push(...parsed.items.map((item) => item.id!.replace('urn:uuid:', '')));
        next = /<link rel="next" type="application\/atom\+xml" href="([^"]+)"/.exec(xml)?.[1]?.replace(/&amp;/g, '&');
      }
      expect(atomIds).toEqual(all);
    }
  });

  it('serves 50 entries by default, with no next page when there is none', async () => {
    const { feed } = await feedOf(2);
    const document = await json(await contractFetch(routeUrl(t.stack.baseUrl, 'GetJsonFeed', { feed_id: feed.id })));
    expect(document.items).toHaveLength(2);
    expect(document).not.toHaveProperty('next_url');
  });

  it('answers 304 per page, and never serves a note twice when it changes between pages', async () => {
    const { feed, token } = await feedOf(4);
    const [first, second] = await jsonFeedPages(
      `${routeUrl(t.stack.baseUrl, 'GetJsonFeed', { feed_id: feed.id })}?limit=2`,
    );
    expect((await contractFetch(second!.url, { headers: { 'If-None-Match': second!.etag } })).status).toBe(304);
    // The oldest note changes: it moves to the top, before the cursor, and leaves the second page.
    await t.save(token, { url: 'https://example.com/0', selection: 'a later highlight' });
    const again = await json(await contractFetch(second!.url));
    expect(again.items.map((item: { id: string }) => item.id)).toEqual(second!.ids.slice(0, 1));
    const top = await jsonFeedPages(`${routeUrl(t.stack.baseUrl, 'GetJsonFeed', { feed_id: feed.id })}?limit=2`);
    expect(top[0]!.ids[0]).toBe(second!.ids[1]);
    expect(top[0]!.etag).not.toBe(first!.etag);
  });

  it('refuses a limit out of range or not an integer, and a cursor it did not give out, with a 422', async () => {
    const { feed } = await feedOf(1);
    const other = await feedOf(3);
    const [, foreignPage] = await jsonFeedPages(
      `${routeUrl(t.stack.baseUrl, 'GetJsonFeed', { feed_id: other.feed.id })}?limit=2`,
    );
    const foreignCursor = new URL(foreignPage!.url).searchParams.get('cursor')!;
    for (const routeId of ['GetJsonFeed', 'GetFeedAtom']) {
      const base = routeUrl(t.stack.baseUrl, routeId, { feed_id: feed.id });
      for (const [query, loc] of [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=abc', 'limit'],
        ['cursor=garbage', 'cursor'],
        [`cursor=${foreignCursor}`, 'cursor'],
      ]) {
        const answer = await contractFetch(`${base}?${query}`);
        expect(answer.status, `${routeId}?${query}`).toBe(422);
        expect((await json(answer)).detail).toEqual([expect.objectContaining({ loc: ['query', loc] })]);
      }
    }
  });
});
