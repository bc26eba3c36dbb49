/**
 * The JSON Feed 1.1 (https://jsonfeed.org/version/1.1) representation of a published feed. Pure: no
 * AWS, no I/O. Same entries, same order, as the contract's JSON.
 */

import { noteHtml } from '../text/note-html';
import { sanitizeText } from '../text/text';
import { type Feed, type FeedNote, formatRfc3339, parseInstant, sortNewestFirst, toFeedEntry } from './feed';

export const JSON_FEED_VERSION = 'https://jsonfeed.org/version/1.1';

export interface JsonFeedOptions {
  /** Address of this document (`feed_url`). */
  readonly selfUrl: string;
  /** The page of older items (`next_url`), when there is one. */
  readonly nextUrl?: string | null;
  /** The feed's page for people (`home_page_url`). */
  readonly pageUrl: string;
  /** Page for a note that bookmarks no URL. */
  readonly entryLink: (note: FeedNote) => string;
}

export interface JsonFeedItem {
  readonly id: string;
  readonly url: string;
  readonly title: string;
  readonly content_html: string;
  readonly content_text: string;
  readonly date_published?: string;
  readonly date_modified?: string;
  readonly tags?: readonly string[];
}

export interface JsonFeed {
  readonly version: typeof JSON_FEED_VERSION;
  readonly title: string;
  readonly home_page_url: string;
  readonly feed_url: string;
  readonly next_url?: string;
  readonly description?: string;
  readonly authors?: readonly { readonly name: string }[];
  readonly language: string;
  readonly items: readonly JsonFeedItem[];
}

export function buildJsonFeed(feed: Feed, notes: readonly FeedNote[], options: JsonFeedOptions): JsonFeed {
  const author = sanitizeText(feed.author).trim();
  const description = feed.description === null ? '' : sanitizeText(feed.description).trim();
  return {
    version: JSON_FEED_VERSION,
    title: sanitizeText(feed.title),
    home_page_url: options.pageUrl,
    feed_url: options.selfUrl,
    ...(options.nextUrl ? { next_url: options.nextUrl } : {}),
    ...(description ? { description } : {}),
    ...(author ? { authors: [{ name: author }] } : {}),
    language: 'en',
    items: sortNewestFirst(notes).map((note) => jsonFeedItem(note, options)),
  };
}

function jsonFeedItem(note: FeedNote, options: JsonFeedOptions): JsonFeedItem {
  const { id, title, text } = toFeedEntry(note);
  const published = rfc3339(note.created);
  const modified = rfc3339(note.updated);
  return {
    id,
    url: note.url ?? options.entryLink(note),
    title,
    content_html: noteHtml(note.body),
    content_text: text,
    ...(published ? { date_published: published } : {}),
    ...(modified ? { date_modified: modified } : {}),
    ...(note.tags.length ? { tags: note.tags.map(sanitizeText) } : {}),
  };
}

function rfc3339(iso: string | null): string | null {
  const ms = parseInstant(iso);
  return ms === null ? null : formatRfc3339(ms);
}
