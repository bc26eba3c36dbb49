/**
 * The private review feed: RSS 2.0 with one item per day, holding that day's highlights, for people
 * who review in their feed reader. Rendered by the published feeds' RSS renderer (feed/rss.ts), each
 * day being a note-like entry whose body quotes the highlights. Pure: no AWS, no I/O.
 */
import type { Feed, FeedNote } from '../feed/feed';
import { renderRss } from '../feed/rss';
import { textFragmentUrl } from '../save/highlights';
import { quote, sourceLine } from '../save/note-body';

/** A day's review as the feed shows it. */
export interface ReviewFeedDay {
  /** The user's calendar day (`YYYY-MM-DD`). */
  readonly date: string;
  /** When that day's review was built (ISO 8601): the item's date. */
  readonly created: string;
  readonly highlights: readonly {
    readonly quote: string;
    readonly comment: string | null;
    readonly noteTitle: string;
    readonly noteUrl: string | null;
  }[];
}

export interface ReviewFeedOptions {
  /** This feed's own (secret) address. */
  readonly selfUrl: string;
  /** The web app's review page. */
  readonly reviewPageUrl: string;
}

const REVIEW_FEED: Omit<Feed, 'id'> = {
  title: 'Daily review',
  description: 'The highlights of each day’s review',
  author: '',
  tags: [],
  match: 'any',
  sharing: 'private',
  updated: null,
};

/** `2026-03-02` → `Monday, 2 March 2026` (the date is a calendar day: no time zone shifts it). */
function dayTitle(date: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(new Date(`${date}T00:00:00Z`));
}

/**
 * One day as a feed entry: each highlight quoted, then its comment, then its note's title linking to
 * the quote's place on the page (or, for a note without a page, to the review page).
 */
function dayEntry(day: ReviewFeedDay, userId: string, options: ReviewFeedOptions): FeedNote {
  const body = day.highlights
    .map((highlight) => {
      const link = highlight.noteUrl ? textFragmentUrl(highlight.noteUrl, highlight.quote) : options.reviewPageUrl;
      return [quote(highlight.quote), highlight.comment, sourceLine(highlight.noteTitle, link)]
        .filter(Boolean)
        .join('\n\n');
    })
    .join('\n\n');
  return {
    id: `review:${userId}:${day.date}`,
    title: `Review for ${dayTitle(day.date)}`,
    body,
    tags: [],
    url: null,
    updated: day.created,
    created: day.created,
  };
}

/** The RSS document of a user's review feed, newest day first. */
export function renderReviewFeed(userId: string, days: readonly ReviewFeedDay[], options: ReviewFeedOptions): string {
  return renderRss(
    { ...REVIEW_FEED, id: `review:${userId}` },
    days.filter((day) => day.highlights.length > 0).map((day) => dayEntry(day, userId, options)),
    { selfUrl: options.selfUrl, siteUrl: options.reviewPageUrl, entryLink: () => options.reviewPageUrl },
  );
}
