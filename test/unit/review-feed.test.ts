import { parseFeed } from '@rowanmanning/feed-parser';
import { describe, expect, it } from 'vitest';
import { renderReviewFeed } from '../../functions/core/review/feed';

describe('the private review feed', () => {
  it("has one item per day with that day's highlights, newest day first", () => {
    const xml = renderReviewFeed(
      'user-a',
      [
        {
          date: '2026-03-01',
          created: '2026-03-01T07:00:00.000Z',
          highlights: [
            {
              quote: 'Queues absorb bursts.',
              comment: 'Why #queues',
              noteTitle: 'Queues',
              noteUrl: 'https://example.com/q',
            },
          ],
        },
        {
          date: '2026-03-02',
          created: '2026-03-02T07:00:00.000Z',
          highlights: [
            { quote: 'A dead-letter queue keeps what failed.', comment: null, noteTitle: 'DLQ <b>', noteUrl: null },
            { quote: 'Second & last.', comment: null, noteTitle: 'Other', noteUrl: 'https://example.com/o' },
          ],
        },
        { date: '2026-03-03', created: '2026-03-03T07:00:00.000Z', highlights: [] },
      ],
      { selfUrl: 'https://gleaner.test/review-feed/secret', reviewPageUrl: 'https://gleaner.test/review' },
    );
    const feed = parseFeed(xml);
    expect(feed.title).toBe('Daily review');
    expect(feed.items.map((item) => item.title)).toEqual([
      'Review for Monday, 2 March 2026',
      'Review for Sunday, 1 March 2026',
    ]);
    expect(feed.items.map((item) => item.id)).toEqual(['review:user-a:2026-03-02', 'review:user-a:2026-03-01']);
    const [second, first] = feed.items;
    expect(second!.content).toContain('A dead-letter queue keeps what failed.');
    expect(second!.content).toContain('Second & last.');
    // Titles are text: the note title's `<b>` is escaped in the item's HTML.
    expect(xml).toContain('DLQ &lt;b&gt;');
    expect(second!.content).toContain('<a href="https://gleaner.test/review">DLQ');
    expect(first!.content).toContain('https://example.com/q#:~:text=Queues%20absorb%20bursts.');
    expect(first!.url).toBe('https://gleaner.test/review');
  });
});
