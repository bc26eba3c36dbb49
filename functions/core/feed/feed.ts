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
 * A read (functions/http/published-feed.ts): the store's `matchingEntries` (index entries only) →
 * `feedValidators` → `isNotModified` ? 304 : the store's `notesOf` → `buildPublishedFeed` /
 * `renderRss`. A 304 reads no note.
 */
import type { FeedEntry, PublishedFeed } from '../contract/contract';
import type { FeedItems, FeedRecord, FeedSharing, Highlight, TagMatch } from '../model';
import { markdownToPlainText } from '../text/markdown-text';
import { sanitizeText } from '../text/text';
import { feedShowsNote } from './settings';

interface TagFilter {
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
  /** One entry per note (the default) or per highlight. */
  readonly items?: FeedItems;
  /** When the feed's own settings last changed (ISO 8601); null when unknown. */
  readonly updated: string | null;
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

/** A note in a feed's tag index: enough to date the feed and validate a cached copy, without its body. */
export interface FeedIndexEntry {
  readonly noteId: string;
  /** The note's last update (ISO 8601): every change of a note moves it. */
  readonly updated: string | null;
  /** Where the entry sits in the feed's order (newest first); a later page starts below it. */
  readonly position: string;
}

/** Reading a published feed (the port; DynamoDB implements it with the per-tag index). */
export interface PublishedFeedStore {
  getFeed(feedId: string): Promise<FeedRecord | null>;
  /** The index entries of the owner's notes matching the feed's tag filter, newest first, at most `max`, below `before` when given. */
  matchingEntries(feed: FeedRecord, max: number, before?: string | null): Promise<FeedIndexEntry[]>;
  /** The notes of `entries`, in their order (a note deleted since is left out). */
  notesOf(entries: readonly FeedIndexEntry[]): Promise<FeedNote[]>;
  /** Every highlight of the notes `noteIds` (a highlight feed's entries). */
  highlightsOf(noteIds: readonly string[]): Promise<Highlight[]>;
}

/**
 * The notes the feed shows of those its store's index matched: every representation (JSON, RSS,
 * Atom, JSON Feed, the page, a highlight feed) renders these, so which notes a feed shows is
 * feedShowsNote's decision, the rule the owner's side puts notes into feeds by (tagsToJoinFeed).
 */
export function notesShown<Note extends Pick<FeedNote, 'tags'>>(feed: TagFilter, candidates: readonly Note[]): Note[] {
  return candidates.filter((note) => feedShowsNote(feed, note.tags));
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

export function toFeedEntry(note: FeedNote): FeedEntry {
  return {
    id: note.id,
    title: sanitizeText(note.title),
    text: sanitizeText(markdownToPlainText(note.body)),
    updated: note.updated,
  };
}

/** The JSON representation of the feed's notes (as the store matched them). */
export function buildPublishedFeed(feed: Feed, notes: readonly FeedNote[], options: { rssUrl: string }): PublishedFeed {
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
export function lastChangedAt(
  entries: readonly { updated: string | null }[],
  feed: Pick<Feed, 'updated'>,
): number | null {
  return [feed.updated, ...entries.map((entry) => entry.updated)]
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

/** RFC 3339 date in UTC, e.g. `2026-11-21T10:00:00.000Z`: Atom's and JSON Feed's dates. */
export function formatRfc3339(ms: number): string {
  return new Date(ms).toISOString();
}
