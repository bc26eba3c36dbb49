import type { ArticleRecord } from '../../core/article/article';
import type { Bookmark, Highlight, Note } from '../../core/model';
import { withAppended } from '../../core/save/note-body';
import { keys } from './keys';

/** Table items as the domain's records, shared by every store that reads them. */

export function toBookmark(
  item: Record<string, unknown>,
): Bookmark & { pageStatus: string | null; article: ArticleRecord | null } {
  return {
    pageStatus: (item.pageStatus as string | undefined) ?? null,
    article: (item.article as ArticleRecord | undefined) ?? null,
    id: item.id as string,
    userId: item.userId as string,
    noteId: item.noteId as string,
    title: item.title as string,
    url: item.url as string,
    normalizedUrl: item.normalizedUrl as string,
    icon: (item.icon as string | undefined) ?? null,
    created: item.created as string,
    updated: item.updated as string,
  };
}

export function toNote(item: Record<string, unknown>): Note {
  return {
    id: item.id as string,
    userId: item.userId as string,
    bookmarkId: (item.bookmarkId as string | undefined) ?? null,
    url: (item.url as string | undefined) ?? null,
    title: item.title as string,
    // What appends added since the body was last written whole (see DynamoBookmarkStore.appendToNote).
    body: withAppended(
      (item.body as string | undefined) ?? '',
      ((item.appended as { text: string }[] | undefined) ?? []).map((entry) => entry.text),
    ),
    comment: (item.comment as string | undefined) ?? null,
    tags: (item.tags as string[] | undefined) ?? [],
    lastHighlight: (item.lastHighlight as string | undefined) ?? null,
    created: item.created as string,
    updated: (item.updated as string | undefined) ?? null,
    version: Number(item.version ?? 0),
    archivedAt: (item.archivedAt as string | null | undefined) ?? null,
    starredAt: (item.starredAt as string | null | undefined) ?? null,
    // Only on a note in the Trash (see Note.trashedAt).
    ...(item.trashedAt ? { trashedAt: item.trashedAt as string } : {}),
  };
}

/** A highlight's item, in its note's partition and in its user's highlights index. */
export function highlightItem(highlight: Highlight) {
  return {
    ...keys.highlight(highlight.noteId, highlight.saved, highlight.id),
    ...keys.userHighlightsIndex(highlight.userId, highlight.id),
    type: 'Highlight',
    ...highlight,
  };
}

export function toHighlight(item: Record<string, unknown>): Highlight {
  return {
    id: item.id as string,
    noteId: item.noteId as string,
    userId: item.userId as string,
    quote: item.quote as string,
    comment: (item.comment as string | null | undefined) ?? null,
    saved: item.saved as string,
  };
}
