/** The records Gleaner keeps, as the domain sees them (storage keys live in the DynamoDB adapter). */

import type { BookmarkResource } from './contract/contract';

export type Plan = 'free' | 'pro';

/** The free plan's note cap; the 402 message states it. */
export const FREE_PLAN_NOTE_CAP = 1000;

export interface User {
  readonly id: string;
  /** The operator's label for the user (`gleaner users create --name`); never shown in public. */
  readonly name: string;
  /** The name the person chose to publish under (feed author); empty until they choose one. */
  readonly displayName: string;
  readonly plan: Plan;
  readonly noteCap: number;
  readonly noteCount: number;
  readonly created: string;
}

export interface AccessToken {
  readonly id: string;
  readonly userId: string;
  readonly label: string | null;
  readonly revoked: boolean;
  readonly created: string;
  /** Refused from this time on; null for a token that does not expire. */
  readonly expires: string | null;
  /** When it last authenticated a save (recorded at most hourly), and the client's User-Agent family. */
  readonly lastUsed: string | null;
  readonly lastUsedAgent: string | null;
}

export interface Bookmark {
  readonly id: string;
  readonly userId: string;
  readonly noteId: string;
  readonly title: string;
  readonly url: string;
  readonly normalizedUrl: string;
  /** Absolute URL of the site's favicon at the service's own address; null until enrichment sets it. */
  readonly icon: string | null;
  readonly created: string;
  readonly updated: string;
}

export interface Note {
  readonly id: string;
  readonly userId: string;
  readonly bookmarkId: string | null;
  /** The bookmarked page, for notes that back a bookmark. */
  readonly url: string | null;
  readonly title: string;
  readonly body: string;
  /** The owner's own comment on the note, edited in the web app or the per-user API (absent before it was kept). */
  readonly comment?: string | null;
  readonly tags: readonly string[];
  /** The selection most recently appended, so a client's retry does not append it twice. */
  readonly lastHighlight: string | null;
  readonly created: string;
  /** Null only on legacy notes from before update times were kept. */
  readonly updated: string | null;
  /** Incremented on every write; writes are conditional on it (optimistic concurrency). */
  readonly version: number;
  /** When the owner archived it (done reading); null (or absent) while it is in the inbox. */
  readonly archivedAt?: string | null;
  /** When the owner starred it; null (or absent) when it is not starred. */
  readonly starredAt?: string | null;
  /**
   * The SHA-256 of its kept article's content (the article's metadata is on the bookmark's row),
   * absent until the page worker keeps one: the search index reads the article's text when it is set.
   */
  readonly articleHash?: string;
  /** The bytes the note takes in storage, as measured when it was read (absent: not read from storage); see NoteBody. */
  readonly storedBytes?: number;
  /**
   * When the owner deleted it: it waits in the Trash, out of every list, search, feed, link and
   * review, until restored or TRASH_RETENTION_DAYS later, when it is deleted for good. Null (or
   * absent) for a note in the workspace.
   */
  readonly trashedAt?: string | null;
}

/** How long a deleted note waits in the Trash before it is deleted for good. */
export const TRASH_RETENTION_DAYS = 30;

/** When a note trashed at `trashedAt` is deleted for good. */
export function trashPurgeTime(trashedAt: string): Date {
  return new Date(Date.parse(trashedAt) + TRASH_RETENTION_DAYS * 86_400_000);
}

/** Whether the note is in the Trash; one past its time counts as deleted already (DynamoDB's TTL may take days to delete it). */
export function trashState(note: Pick<Note, 'trashedAt'>, now: Date): 'live' | 'trashed' | 'expired' {
  if (!note.trashedAt) return 'live';
  return trashPurgeTime(note.trashedAt).getTime() <= now.getTime() ? 'expired' : 'trashed';
}

/** A note's reading state: archived (done reading, out of the inbox) and starred, each since when. */
export interface ReadingState {
  readonly archivedAt: string | null;
  readonly starredAt: string | null;
}

/** One highlight of a note, kept as its own record beside the note's body (highlight feeds list them). */
export interface Highlight {
  readonly id: string;
  readonly noteId: string;
  readonly userId: string;
  /** The selected text, as saved. */
  readonly quote: string;
  /** The comment saved with it, if any. */
  readonly comment: string | null;
  /** When it was saved (ISO 8601). */
  readonly saved: string;
  /**
   * The text around the quote in the kept page (a TextQuoteSelector's prefix and suffix), for
   * highlights made while reading; null (or absent) for those saved from the page itself.
   */
  readonly anchor?: HighlightAnchor | null;
}

/** Where a highlight stands in its page's kept text: the text just before and just after it. */
export interface HighlightAnchor {
  readonly prefix: string;
  readonly suffix: string;
}

/** Whether a feed lists notes with any of its tags, or only those with all of them. */
export type TagMatch = 'any' | 'all';

/** Who reads a feed: anyone (listed), anyone holding its UUID, or no one (404 to all). */
export type FeedSharing = 'public' | 'link' | 'private';

/** What a feed lists: one entry per note, or one per highlight of those notes. */
export type FeedItems = 'notes' | 'highlights';

/** A published feed: the owner's notes matching a tag filter, readable by UUID unless private. */
export interface FeedRecord {
  readonly id: string;
  readonly userId: string;
  readonly title: string;
  readonly description: string | null;
  readonly tags: readonly string[];
  readonly match: TagMatch;
  readonly sharing: FeedSharing;
  /** `notes` for records written before feeds could list highlights. */
  readonly items: FeedItems;
  readonly created: string;
  readonly updated: string;
}

/** A note cannot carry more tags than this (keeps its tag index inside one DynamoDB transaction). */
export const MAX_TAGS_PER_NOTE = 50;

/** The contract's Bookmark resource. */
export function bookmarkResource(bookmark: Bookmark): BookmarkResource {
  return {
    id: bookmark.id,
    note_id: bookmark.noteId,
    title: bookmark.title,
    url: bookmark.url,
    icon: bookmark.icon,
    created: bookmark.created,
    updated: bookmark.updated,
  };
}

/** Whether an edit changes the note's text (title, comment or tags): only then does its update time move. */
export function editChangesText(
  note: Pick<Note, 'title' | 'comment' | 'tags'>,
  change: Pick<Note, 'title' | 'comment' | 'tags'>,
): boolean {
  return (
    change.title !== note.title ||
    (change.comment ?? null) !== (note.comment ?? null) ||
    change.tags.join('\n') !== note.tags.join('\n')
  );
}

export function mergeTags(existing: readonly string[], added: readonly string[]): string[] {
  const merged = [...existing];
  for (const tag of added) {
    if (merged.length >= MAX_TAGS_PER_NOTE) break;
    if (!merged.includes(tag)) merged.push(tag);
  }
  return merged;
}
