/**
 * The published-feed model: which notes a feed shows, in what order, and the JSON representation
 * (`PublishedFeed` in spec/interface.md). Pure: no AWS, no I/O.
 *
 * Sibling modules:
 * - `feed-rss.ts`: `renderRss` (RSS 2.0 representation)
 * - `text.ts`: `sanitizeText` (what every representation does to user text)
 * - `feed-conditional-get.ts`: `feedValidators`, `isNotModified` (ETag / Last-Modified / 304)
 * - `markdown-text.ts`: `markdownToPlainText` (note body → entry text)
 *
 * Exports (types `Feed`, `FeedNote`, `TagFilter`; `FeedEntry` and `PublishedFeed` are in contract.ts):
 * - `noteMatchesFilter(noteTags, filter): boolean`
 * - `sortNewestFirst(notes): FeedNote[]` (by `updated`, undated last, ties by id)
 * - `selectFeedEntries(notes, filter, max): FeedNote[]` (filter, order, keep the newest `max`)
 * - `buildPublishedFeed(feed, notes, { rssUrl }): PublishedFeed`; `toFeedEntry(note): FeedEntry`
 * - `toRfc822(iso): string` (throws RangeError on an unparseable date), `formatRfc822(ms): string`
 * - `parseInstant(iso): number | null`, `lastChangedAt(notes, feedUpdated): number | null`
 *
 * Typical handler flow: `selectFeedEntries` → `feedValidators` → `isNotModified` ? 304 :
 * `buildPublishedFeed` / `renderRss`, all fed the same selected notes.
 */
import type { FeedEntry, PublishedFeed } from './contract';
import { markdownToPlainText } from './markdown-text';
import type { FeedRecord } from './model';
import { sanitizeText } from './text';

export type TagMatch = 'any' | 'all';
export type FeedSharing = 'public' | 'link' | 'private';

export interface TagFilter {
  readonly tags: readonly string[];
  readonly match: TagMatch;
}

export interface Feed extends TagFilter {
  readonly id: string;
  readonly title: string;
  readonly description: string | null;
  /** Owner's display name; may be empty. */
  readonly author: string;
  readonly sharing: FeedSharing;
}

/** A note as a feed sees it. */
export interface FeedNote {
  readonly id: string;
  readonly title: string;
  /** Markdown, as built by the save path. */
  readonly body: string;
  readonly tags: readonly string[];
  /** The bookmarked URL, when the note backs a bookmark. */
  readonly url: string | null;
  /** ISO 8601 with offset; null only on legacy notes. */
  readonly updated: string | null;
  readonly created: string;
}

/** Reading a published feed (the port; DynamoDB implements it with the per-tag index). */
export interface PublishedFeedStore {
  getFeed(feedId: string): Promise<FeedRecord | null>;
  /** The feed owner's notes that match its tag filter, newest first, at most `max`. */
  matchingNotes(feed: FeedRecord, max: number): Promise<FeedNote[]>;
}


/**
 * Tags compare case-insensitively. A filter without tags matches nothing, so a feed whose filter
 * was never set up cannot publish the whole workspace.
 */
export function noteMatchesFilter(noteTags: readonly string[], filter: TagFilter): boolean {
  if (filter.tags.length === 0) return false;
  const tags = new Set(noteTags.map((tag) => tag.toLowerCase()));
  const wanted = filter.tags.map((tag) => tag.toLowerCase());
  return filter.match === 'all' ? wanted.every((tag) => tags.has(tag)) : wanted.some((tag) => tags.has(tag));
}

/** Epoch milliseconds of an ISO date, or null when absent or unparseable. */
export function parseInstant(iso: string | null | undefined): number | null {
  if (iso == null) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}

/** Newest `updated` first; undated (legacy) notes last; equal dates by id so output is stable. */
export function sortNewestFirst(notes: readonly FeedNote[]): FeedNote[] {
  const keyed = notes.map((note) => ({ note, ms: parseInstant(note.updated) }));
  keyed.sort((a, b) => {
    if (a.ms !== b.ms) {
      if (a.ms === null) return 1;
      if (b.ms === null) return -1;
      return b.ms - a.ms;
    }
    return a.note.id < b.note.id ? -1 : a.note.id > b.note.id ? 1 : 0;
  });
  return keyed.map(({ note }) => note);
}

/** The notes a feed publishes: those matching its filter, newest first, at most `max`. */
export function selectFeedEntries(notes: readonly FeedNote[], filter: TagFilter, max: number): FeedNote[] {
  const matching = notes.filter((note) => noteMatchesFilter(note.tags, filter));
  return sortNewestFirst(matching).slice(0, Math.max(0, max));
}

export function toFeedEntry(note: FeedNote): FeedEntry {
  return { id: note.id, title: sanitizeText(note.title), text: sanitizeText(markdownToPlainText(note.body)), updated: note.updated };
}

/** The JSON representation; `notes` are already selected (see `selectFeedEntries`). */
export function buildPublishedFeed(
  feed: Feed,
  notes: readonly FeedNote[],
  options: { rssUrl: string },
): PublishedFeed {
  return {
    id: feed.id,
    title: sanitizeText(feed.title),
    description: feed.description === null ? null : sanitizeText(feed.description),
    author: sanitizeText(feed.author),
    rss_url: options.rssUrl,
    entries: sortNewestFirst(notes).map(toFeedEntry),
  };
}

/**
 * The newest change among the entries and the feed itself. The feed's own time counts even when
 * entries exist: renaming a feed changes the output without touching any note.
 */
export function lastChangedAt(notes: readonly FeedNote[], feedUpdated?: string | null): number | null {
  return [feedUpdated, ...notes.map((note) => note.updated)]
    .map(parseInstant)
    .reduce<number | null>((newest, ms) => (ms !== null && (newest === null || ms > newest) ? ms : newest), null);
}

/**
 * RFC 822 date in UTC, e.g. `Sat, 21 Nov 2026 10:00:00 GMT`: the RFC 1123 four-digit-year form
 * RSS 2.0 recommends, and also a valid HTTP-date (IMF-fixdate) for `Last-Modified`.
 */
export function formatRfc822(ms: number): string {
  return new Date(ms).toUTCString();
}

/** `formatRfc822` of an ISO 8601 date; throws RangeError when it does not parse. */
export function toRfc822(iso: string): string {
  const ms = parseInstant(iso);
  if (ms === null) throw new RangeError(`Not a date: ${JSON.stringify(iso)}`);
  return formatRfc822(ms);
}
