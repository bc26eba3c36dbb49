import type { EnrichmentRequest } from './enrichment';
import { extractHashtags } from './hashtags';
import { bookmarkResource, mergeTags, type Bookmark, type Note } from './model';
import { appendHighlight, bodyFits, buildNoteBody, endsWithParagraph, sameHighlight } from './note-body';
import type { SaveRequest } from './save-request';
import { isoTimestamp } from './text';
import { normalizeUrl } from './url';

/**
 * The save use case: a new page becomes a bookmark backed by exactly one note; a page already in the
 * workspace (same normalised URL) gets the selection appended to its note instead.
 */

export type CreateBookmarkOutcome =
  | { readonly kind: 'created' }
  | { readonly kind: 'exists'; readonly bookmarkId: string; readonly noteId: string }
  | { readonly kind: 'note-limit'; readonly used: number; readonly limit: number };

export interface NoteChange {
  readonly body: string;
  readonly tags: readonly string[];
  readonly lastHighlight: string | null;
}

export interface BookmarkStore {
  /**
   * Writes bookmark, note and the (user, normalised URL) marker atomically, within the user's note
   * cap. With `enrichment`, the bookmark is also recorded as awaiting it (the outbox the sweeper
   * re-publishes from, should the publish after the commit fail).
   */
  createBookmark(bookmark: Bookmark, note: Note, enrichment: EnrichmentRequest | null): Promise<CreateBookmarkOutcome>;
  /**
   * Applies `change` to the bookmark's note without losing concurrent updates (re-reading and
   * re-applying on conflict); `change` returns null when there is nothing to write.
   */
  updateSavedNote(
    ref: { bookmarkId: string; noteId: string },
    change: (note: Note) => NoteChange | null,
    updated: string,
  ): Promise<{ bookmark: Bookmark; note: Note }>;
}

export interface EnrichmentPublisher {
  publish(request: EnrichmentRequest): Promise<void>;
}

export interface SaveBookmarkPorts {
  readonly store: BookmarkStore;
  readonly enrichment: EnrichmentPublisher;
  readonly newId: () => string;
  readonly now: () => Date;
  readonly logger: { warn(message: string, extra: Record<string, unknown>): void };
}

export type SaveOutcome =
  | {
      readonly kind: 'saved';
      readonly bookmark: Bookmark;
      readonly isNewBookmark: boolean;
      readonly selectionAppended: boolean;
    }
  | { readonly kind: 'note-limit'; readonly used: number; readonly limit: number }
  | { readonly kind: 'note-full' };

export async function saveBookmark(
  ports: SaveBookmarkPorts,
  input: { userId: string; request: SaveRequest; siteIcon: string | null },
): Promise<SaveOutcome> {
  const { request, userId, siteIcon } = input;
  const now = isoTimestamp(ports.now());
  const url = request.url.href;
  const title = request.title?.trim() || url;
  const bookmark: Bookmark = {
    id: ports.newId(),
    userId,
    noteId: ports.newId(),
    title,
    url,
    normalizedUrl: normalizeUrl(request.url),
    icon: siteIcon,
    created: now,
    updated: now,
  };
  const note: Note = {
    id: bookmark.noteId,
    userId,
    bookmarkId: bookmark.id,
    url,
    title,
    body: buildNoteBody({ ...request, title, url }),
    tags: mergeTags([], extractHashtags(request.comment)),
    lastHighlight: request.selection,
    created: now,
    updated: now,
    version: 1,
  };

  const scrapeDescription = request.description === null;
  const fetchIcon = siteIcon === null;
  const enrichment: EnrichmentRequest | null =
    scrapeDescription || fetchIcon ? { bookmarkId: bookmark.id, noteId: note.id, userId, url, scrapeDescription, fetchIcon } : null;

  const created = await ports.store.createBookmark(bookmark, note, enrichment);
  switch (created.kind) {
    case 'note-limit':
      return created;
    case 'created':
      if (enrichment) await requestEnrichment(ports, enrichment);
      return { kind: 'saved', bookmark, isNewBookmark: true, selectionAppended: false };
    case 'exists':
      return appendToSavedNote(ports, created, request, now);
  }
}

async function appendToSavedNote(
  ports: SaveBookmarkPorts,
  ref: { bookmarkId: string; noteId: string },
  request: SaveRequest,
  now: string,
): Promise<SaveOutcome> {
  let selectionAppended = false;
  let full = false;
  const { bookmark } = await ports.store.updateSavedNote(
    ref,
    (note) => {
      selectionAppended = full = false;
      // Without `append: true`, the last highlight (or, without a selection, the last comment) sent
      // again is a client's retry: nothing new to add.
      const retry =
        !request.append &&
        (request.selection ? sameHighlight(note.lastHighlight, request.selection) : endsWithParagraph(note.body, request.comment));
      const highlight = retry ? { selection: null, comment: null } : request;
      const tags = mergeTags(note.tags, extractHashtags(request.comment));
      if (!highlight.selection && !highlight.comment && tags.length === note.tags.length) return null;
      const body = appendHighlight(note.body, highlight);
      if (!bodyFits(body)) {
        full = true;
        return null;
      }
      selectionAppended = highlight.selection !== null;
      return { body, tags, lastHighlight: highlight.selection ?? note.lastHighlight };
    },
    now,
  );
  if (full) return { kind: 'note-full' };
  return { kind: 'saved', bookmark, isNewBookmark: false, selectionAppended };
}

/**
 * Publishing happens after the commit, so a failure cannot undo the save; the bookmark stays in the
 * enrichment outbox and the sweeper publishes it again.
 */
async function requestEnrichment(ports: SaveBookmarkPorts, request: EnrichmentRequest): Promise<void> {
  try {
    await ports.enrichment.publish(request);
  } catch (error) {
    ports.logger.warn('Publishing the enrichment request failed; the sweeper will retry it', { error: String(error), bookmarkId: request.bookmarkId });
  }
}

/** The contract's BookmarkSaveResult. */
export function saveResult(outcome: Extract<SaveOutcome, { kind: 'saved' }>) {
  return {
    bookmark: bookmarkResource(outcome.bookmark),
    note_id: outcome.bookmark.noteId,
    is_new_bookmark: outcome.isNewBookmark,
    selection_appended: outcome.selectionAppended,
  };
}
