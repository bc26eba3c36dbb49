import { parseFeed } from '@rowanmanning/feed-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateFeedRecord } from '../../functions/core/feed/settings';
import { routeUrl } from '../../functions/platform/routes';
import { contractFetch } from '../support/contract';
import { json, startTestStack, type TestStack } from '../support/local-stack';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t.stop());

describe('a feed of highlights', () => {
  it('lists one entry per highlight, newest first, in every format, and changes its ETag when one is added', async () => {
    const { user, token } = await t.createUser({ name: 'Quoter' });
    const notesFeed = await t.createFeed(user.id, { title: 'Quotes', tags: ['quotes'], sharing: 'public' });
    const feed = await t.createFeed(user.id, {
      title: 'Quotes',
      tags: ['quotes'],
      sharing: 'public',
      items: 'highlights',
    });
    await t.save(token, {
      url: 'https://example.com/essay',
      title: 'An essay',
      selection: 'The first-class idea, here & now.',
      comment: 'Loved it #quotes',
    });
    await t.save(token, { url: 'https://example.com/essay', selection: 'A second passage.' });
    await t.save(token, {
      url: 'https://example.com/other',
      title: 'Another',
      selection: 'Elsewhere.',
      comment: '#quotes',
    });

    const jsonUrl = routeUrl(t.stack.baseUrl, 'GetPublishedFeed', { feed_id: feed.id });
    const first = await contractFetch(jsonUrl);
    const body = await json(first);
    expect(body.entries.map((entry: { title: string; text: string }) => [entry.title, entry.text])).toEqual([
      ['Another', 'Elsewhere.\n\n#quotes'],
      ['An essay', 'A second passage.'],
      ['An essay', 'The first-class idea, here & now.\n\nLoved it #quotes'],
    ]);
    // Entry ids are the highlights' own, not the notes'.
    const noteIds = (
      await json(await contractFetch(routeUrl(t.stack.baseUrl, 'GetPublishedFeed', { feed_id: notesFeed.id })))
    ).entries.map((entry: { id: string }) => entry.id);
    expect(body.entries.map((entry: { id: string }) => entry.id).some((id: string) => noteIds.includes(id))).toBe(
      false,
    );
    expect(new Set(body.entries.map((entry: { id: string }) => entry.id)).size).toBe(3);

    const document = await json(await contractFetch(routeUrl(t.stack.baseUrl, 'GetJsonFeed', { feed_id: feed.id })));
    expect(document.items.map((item: { id: string }) => item.id)).toEqual(
      body.entries.map((entry: { id: string }) => entry.id),
    );
    expect(document.items[2].url).toBe(
      'https://example.com/essay#:~:text=The%20first%2Dclass%20idea%2C%20here%20%26%20now.',
    );
    expect(document.items[2].content_html).toContain('<blockquote>');

    const rss = parseFeed(
      await (await contractFetch(routeUrl(t.stack.baseUrl, 'GetPublishedFeedRss', { feed_id: feed.id }))).text(),
    );
    expect(rss.items.map((item) => item.id)).toEqual(body.entries.map((entry: { id: string }) => entry.id));
    expect(rss.items[1]!.url).toBe('https://example.com/essay#:~:text=A%20second%20passage.');

    const etag = first.headers.get('ETag')!;
    expect((await contractFetch(jsonUrl, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    await t.save(token, { url: 'https://example.com/other', selection: 'One more.' });
    const after = await contractFetch(jsonUrl, { headers: { 'If-None-Match': etag } });
    expect(after.status).toBe(200);
    expect((await json(after)).entries[0].text).toBe('One more.');
  });

  it('answers differently from the notes feed of the same settings, and switches with the setting', async () => {
    const { user, token } = await t.createUser();
    const feed = await t.createFeed(user.id, { title: 'Switch', tags: ['switch'], sharing: 'public' });
    await t.save(token, { url: 'https://example.com/s', selection: 'q1', comment: '#switch' });
    await t.save(token, { url: 'https://example.com/s', selection: 'q2' });
    const url = routeUrl(t.stack.baseUrl, 'GetPublishedFeed', { feed_id: feed.id });
    const asNotes = await contractFetch(url);
    expect((await json(asNotes)).entries).toHaveLength(1);
    await t.feeds.replaceFeed(feed, updateFeedRecord(feed, { items: 'highlights' }, new Date()));
    const asHighlights = await contractFetch(url, { headers: { 'If-None-Match': asNotes.headers.get('ETag')! } });
    expect(asHighlights.status).toBe(200);
    expect((await json(asHighlights)).entries).toHaveLength(2);
  });
});
