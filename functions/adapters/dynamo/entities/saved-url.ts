import * as z from 'zod/mini';
import type { Bookmark } from '../../../core/model';
import { keys } from '../keys';
import { itemCodec } from './codec';

/** The (user, normalised URL) marker: it exists exactly when the page's bookmark does, and names it and its note. */
export function savedUrlItem(bookmark: Bookmark) {
  return {
    ...keys.savedUrl(bookmark.userId, bookmark.normalizedUrl),
    type: 'SavedUrl',
    bookmarkId: bookmark.id,
    noteId: bookmark.noteId,
    url: bookmark.normalizedUrl,
  };
}

const decodeSavedUrl = itemCodec('SavedUrl', () => z.object({ bookmarkId: z.string(), noteId: z.string() }));

/** The bookmark and note a marker names; MalformedItemError when it is not a marker. */
export function readSavedUrl(item: Record<string, unknown>): { bookmarkId: string; noteId: string } {
  const { bookmarkId, noteId } = decodeSavedUrl(item);
  return { bookmarkId, noteId };
}
