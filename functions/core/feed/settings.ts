import type { FeedItems, FeedRecord, FeedSharing, TagMatch } from '../model';
import { normalizeTag } from '../save/hashtags';
import { isoTimestamp } from '../text/text';

/** A feed's settings (title, tag filter, sharing), as the `gleaner feeds` commands manage them; reading a feed is feed.ts. */

/** A feed filters on at most this many tags (each is one indexed query when the feed is read). */
export const FEED_MAX_TAGS = 10;
export const FEED_TITLE_MAX_LENGTH = 200;
export const FEED_DESCRIPTION_MAX_LENGTH = 1000;

export interface FeedSettings {
  readonly title?: string;
  readonly description?: string | null;
  readonly tags?: readonly string[];
  readonly match?: TagMatch;
  readonly sharing?: FeedSharing;
  readonly items?: FeedItems;
}

export class InvalidFeedSettingsError extends Error {}

const MATCHES: readonly TagMatch[] = ['any', 'all'];
const SHARING: readonly FeedSharing[] = ['public', 'link', 'private'];
const ITEMS: readonly FeedItems[] = ['notes', 'highlights'];

/** `"Reading, #AWS"` → `['reading', 'aws']`. */
export function parseTagList(value: string): string[] {
  const tags: string[] = [];
  for (const raw of value
    .split(',')
    .map((part) => part.trim().replace(/^#/, ''))
    .filter(Boolean)) {
    const tag = normalizeTag(raw);
    if (!tag || !/^[\p{L}\p{N}\p{M}_-]+$/u.test(tag)) throw new InvalidFeedSettingsError(`"${raw}" is not a valid tag`);
    if (!tags.includes(tag)) tags.push(tag);
  }
  return tags;
}

export function parseMatch(value: string): TagMatch {
  if (!MATCHES.includes(value as TagMatch)) throw new InvalidFeedSettingsError('match must be any or all');
  return value as TagMatch;
}

export function parseSharing(value: string): FeedSharing {
  if (!SHARING.includes(value as FeedSharing))
    throw new InvalidFeedSettingsError('sharing must be public, link or private');
  return value as FeedSharing;
}

export function parseItems(value: string): FeedItems {
  if (!ITEMS.includes(value as FeedItems)) throw new InvalidFeedSettingsError('items must be notes or highlights');
  return value as FeedItems;
}

export function newFeedRecord(input: {
  id: string;
  userId: string;
  settings: FeedSettings & { title: string };
  now: Date;
}): FeedRecord {
  const now = isoTimestamp(input.now);
  return checked({
    id: input.id,
    userId: input.userId,
    title: input.settings.title,
    description: input.settings.description ?? null,
    tags: input.settings.tags ?? [],
    match: input.settings.match ?? 'any',
    sharing: input.settings.sharing ?? 'private',
    items: input.settings.items ?? 'notes',
    created: now,
    updated: now,
  });
}

export function updateFeedRecord(feed: FeedRecord, settings: FeedSettings, now: Date): FeedRecord {
  const defined = Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
  return checked({ ...feed, ...defined, updated: isoTimestamp(now) });
}

function checked(feed: FeedRecord): FeedRecord {
  const title = feed.title.trim();
  if (!title) throw new InvalidFeedSettingsError('a feed needs a title');
  if (title.length > FEED_TITLE_MAX_LENGTH)
    throw new InvalidFeedSettingsError(`the title may have at most ${FEED_TITLE_MAX_LENGTH} characters`);
  if ((feed.description?.length ?? 0) > FEED_DESCRIPTION_MAX_LENGTH) {
    throw new InvalidFeedSettingsError(`the description may have at most ${FEED_DESCRIPTION_MAX_LENGTH} characters`);
  }
  // A feed lists the notes carrying its tags: without one it could never show anything.
  if (feed.tags.length === 0) throw new InvalidFeedSettingsError('a feed needs at least one tag');
  if (feed.tags.length > FEED_MAX_TAGS)
    throw new InvalidFeedSettingsError(`a feed filters on at most ${FEED_MAX_TAGS} tags`);
  return { ...feed, title, description: feed.description?.trim() || null };
}

/** Whether a feed that shows notes by `feed.tags` (all of them, or any) shows a note with `noteTags`. */
export function feedShowsNote(feed: Pick<FeedRecord, 'match' | 'tags'>, noteTags: readonly string[]): boolean {
  return feed.match === 'all'
    ? feed.tags.every((name) => noteTags.includes(name))
    : feed.tags.some((name) => noteTags.includes(name));
}

/** What a feed shows, in words: `#a or #b` (any), `#a and #b` (all). */
export function feedTagsText(feed: Pick<FeedRecord, 'match' | 'tags'>): string {
  return feed.tags.map((name) => `#${name}`).join(feed.match === 'all' ? ' and ' : ' or ');
}

/**
 * The tags a note needs to appear in a feed: none when it shows already; every tag it lacks of a feed
 * that needs all; else the feed's first tag.
 */
export function tagsToJoinFeed(feed: Pick<FeedRecord, 'match' | 'tags'>, noteTags: readonly string[]): string[] {
  if (feedShowsNote(feed, noteTags)) return [];
  return feed.match === 'all' ? feed.tags.filter((name) => !noteTags.includes(name)) : feed.tags.slice(0, 1);
}
