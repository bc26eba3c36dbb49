import { describe, expect, it } from 'vitest';
import { FEED_PAGE_LIMIT, feedPageCursor, feedPageUrl, parseFeedPage } from '../../functions/core/feed/paging';

const FEED = '0f8f8c8e-1111-4222-8333-444455556666';

describe('feed paging', () => {
  it('reads a limit from 1 to 100 (50 by default) and a cursor this feed gave out', () => {
    expect(parseFeedPage(null, FEED)).toEqual({
      ok: true,
      page: { limit: FEED_PAGE_LIMIT.default, cursor: null, before: null },
    });
    const cursor = feedPageCursor(FEED, '2026-11-21T10:00:00+00:00#n1');
    expect(parseFeedPage({ limit: '7', cursor }, FEED)).toEqual({
      ok: true,
      page: { limit: 7, cursor, before: '2026-11-21T10:00:00+00:00#n1' },
    });
    for (const limit of ['1', '100']) expect(parseFeedPage({ limit }, FEED).ok).toBe(true);
  });

  it.each([
    [{ limit: '0' }, 'greater_than_equal'],
    [{ limit: '101' }, 'less_than_equal'],
    [{ limit: 'ten' }, 'int_parsing'],
    [{ limit: '2.5' }, 'int_parsing'],
    [{ limit: '-3' }, 'int_parsing'],
    [{ limit: '' }, 'int_parsing'],
  ])('refuses the limit %j with a 422 issue at query.limit', (query, type) => {
    expect(parseFeedPage(query, FEED)).toEqual({
      ok: false,
      issues: [expect.objectContaining({ loc: ['query', 'limit'], type })],
    });
  });

  it("refuses a cursor that is malformed, empty, or another feed's", () => {
    for (const cursor of [
      'not-a-cursor',
      '',
      Buffer.from('{"f":1}').toString('base64url'),
      feedPageCursor('another-feed', 'x#y'),
      feedPageCursor(FEED, ''),
    ]) {
      expect(parseFeedPage({ cursor }, FEED)).toEqual({
        ok: false,
        issues: [expect.objectContaining({ loc: ['query', 'cursor'] })],
      });
    }
  });

  it('writes page addresses with only what differs from the first page', () => {
    expect(feedPageUrl('https://g.example/feeds/f/atom', 50, null)).toBe('https://g.example/feeds/f/atom');
    expect(feedPageUrl('https://g.example/feeds/f/atom', 3, 'abc')).toBe(
      'https://g.example/feeds/f/atom?limit=3&cursor=abc',
    );
  });
});
