import { describe, expect, it } from 'vitest';
import { feedShowsNote, tagsToJoinFeed } from '../../functions/core/feed/settings';

describe('a note in a feed', () => {
  const any = { match: 'any', tags: ['ai', 'reading'] } as const;
  const all = { match: 'all', tags: ['ai', 'reading'] } as const;

  it('shows in a feed of any tag with one of them, and in a feed of all tags only with every one', () => {
    expect(feedShowsNote(any, ['reading'])).toBe(true);
    expect(feedShowsNote(any, ['other'])).toBe(false);
    expect(feedShowsNote(all, ['reading'])).toBe(false);
    expect(feedShowsNote(all, ['reading', 'ai', 'other'])).toBe(true);
  });

  it("joins a feed by the feed's first tag when any will do, by every missing tag when all must, and by nothing when it shows already", () => {
    expect(tagsToJoinFeed(any, ['other'])).toEqual(['ai']);
    expect(tagsToJoinFeed(all, ['reading'])).toEqual(['ai']);
    expect(tagsToJoinFeed(all, [])).toEqual(['ai', 'reading']);
    expect(tagsToJoinFeed(any, ['reading'])).toEqual([]);
    expect(tagsToJoinFeed(all, ['ai', 'reading'])).toEqual([]);
  });
});
