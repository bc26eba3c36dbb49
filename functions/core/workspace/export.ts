import type { ArticleRecord, ArticleStore } from '../article/article';
import { articleResource } from '../article/resource';
import type { Bookmark, Highlight, Note } from '../model';
import type { ArticleResource } from '../owner/api';
import { escapeHtml } from '../text/escape';
import { MAX_PAGE_SIZE, type Page, type PageRequest } from './listing';
import type { BookmarkFileEntry } from './netscape-bookmarks';
import { inSavedOrder } from './restored-highlights';

/** `gleaner export`: a user's whole workspace, for another tool or for `gleaner import`. */

export interface WorkspaceReader {
  listNotes(userId: string, filter: { tag?: string }, page: PageRequest): Promise<Page<Note>>;
  /** The bookmarks, each with its kept article's row data when it has one. */
  getBookmarks(ids: readonly string[]): Promise<(Bookmark & { article?: ArticleRecord | null })[]>;
}

export interface HighlightReader {
  /** The highlights of these notes, each note's in the order they were saved. */
  highlightsOf(noteIds: readonly string[]): Promise<Highlight[]>;
}

/** A note without a bookmark (an imported book's highlights, a text note), as the JSON export writes it. */
export interface ExportedNote {
  readonly title: string;
  readonly created: string;
  readonly updated: string;
  readonly tags: readonly string[];
  /** The note's Markdown: its text, highlights and comments. */
  readonly note: string;
  /** The note's highlights in the order they were saved, with their exact times. */
  readonly highlights: readonly ExportedHighlight[];
  /** The owner's own comment on the note, when it has one. */
  readonly comment?: string;
  /** Done reading (out of the inbox), since `archived_at`. */
  readonly archived: boolean;
  readonly archived_at: string | null;
  readonly starred: boolean;
  readonly starred_at: string | null;
}

/** One bookmark with its note, as the JSON export writes it. */
export interface ExportedBookmark extends ExportedNote {
  readonly url: string;
  /** The kept page, its text and readable HTML with its metadata, when one is stored. */
  readonly article?: ArticleResource;
}

interface ExportedHighlight {
  readonly quote: string;
  readonly comment: string | null;
  readonly saved: string;
  /** Where it stands in the kept page, for a highlight made while reading (a W3C TextQuoteSelector). */
  readonly selector?: {
    readonly type: 'TextQuoteSelector';
    readonly exact: string;
    readonly prefix: string;
    readonly suffix: string;
  };
}

/** The user's workspace: every bookmark with its note, and every note without a bookmark, oldest first (the order browsers write their files in). */
export async function exportWorkspace(
  readers: { notes: WorkspaceReader; highlights: HighlightReader; articles?: Pick<ArticleStore, 'getContent'> | null },
  userId: string,
): Promise<{ bookmarks: ExportedBookmark[]; notes: ExportedNote[] }> {
  const bookmarks: ExportedBookmark[] = [];
  const notes: ExportedNote[] = [];
  let cursor: string | undefined;
  do {
    const page = await readers.notes.listNotes(userId, {}, { limit: MAX_PAGE_SIZE, cursor });
    const [bookmarkList, highlightList] = await Promise.all([
      readers.notes.getBookmarks(page.items.flatMap((note) => note.bookmarkId ?? [])),
      readers.highlights.highlightsOf(page.items.map((note) => note.id)),
    ]);
    const byId = new Map(bookmarkList.map((bookmark) => [bookmark.id, bookmark]));
    const articles = await keptArticles(readers.articles, bookmarkList);
    for (const note of page.items) {
      const exported: ExportedNote = {
        title: note.title,
        created: note.created,
        updated: note.updated ?? note.created,
        tags: note.tags,
        note: note.body,
        highlights: highlightList
          .filter((highlight) => highlight.noteId === note.id)
          .map(({ quote, comment, saved, anchor }) => ({
            quote,
            comment,
            saved,
            ...(anchor ? { selector: { type: 'TextQuoteSelector' as const, exact: quote, ...anchor } } : {}),
          })),
        ...(note.comment ? { comment: note.comment } : {}),
        archived: note.archivedAt != null,
        archived_at: note.archivedAt ?? null,
        starred: note.starredAt != null,
        starred_at: note.starredAt ?? null,
      };
      if (!note.bookmarkId) {
        notes.push(exported);
        continue;
      }
      const bookmark = byId.get(note.bookmarkId);
      const article = bookmark && articles.get(bookmark.id);
      if (bookmark)
        bookmarks.push({
          url: bookmark.url,
          ...exported,
          title: bookmark.title,
          created: bookmark.created,
          updated: bookmark.updated,
          ...(article ? { article } : {}),
        });
    }
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return {
    bookmarks: bookmarks.sort((a, b) => a.created.localeCompare(b.created) || a.url.localeCompare(b.url)),
    notes: notes.sort((a, b) => a.created.localeCompare(b.created) || a.title.localeCompare(b.title)),
  };
}

/** The stored articles of these bookmarks (a few read at a time), by bookmark id. */
async function keptArticles(
  store: Pick<ArticleStore, 'getContent'> | null | undefined,
  bookmarks: readonly (Bookmark & { article?: ArticleRecord | null })[],
): Promise<Map<string, ArticleResource>> {
  const kept = new Map<string, ArticleResource>();
  const stored = store ? bookmarks.filter((bookmark) => bookmark.article?.hash) : [];
  for (let start = 0; start < stored.length; start += ARTICLE_READS) {
    await Promise.all(
      stored.slice(start, start + ARTICLE_READS).map(async (bookmark) => {
        const content = await store!.getContent(bookmark.id);
        if (content) kept.set(bookmark.id, articleResource(bookmark.article ?? null, content));
      }),
    );
  }
  return kept;
}

/** Articles read from the store at once while exporting. */
const ARTICLE_READS = 8;

/** The export as bookmark file entries: links, titles, tags and dates, and each note whole (in `<DD>`). */
export function bookmarkFileEntries(exported: readonly ExportedBookmark[]): BookmarkFileEntry[] {
  return exported.map((bookmark) => ({
    url: bookmark.url,
    title: bookmark.title,
    tags: [...bookmark.tags],
    added: new Date(bookmark.created),
    description: null,
    note: {
      body: bookmark.note,
      updated: new Date(bookmark.updated),
      highlights: restoredHighlights(bookmark.highlights),
    },
  }));
}

/** An exported note's highlights as the import restores them; null for none (as a note not yet migrated has). */
function restoredHighlights(highlights: readonly ExportedHighlight[]) {
  if (highlights.length === 0) return null;
  return inSavedOrder(
    highlights.map(({ quote, comment, saved, selector }) => ({
      quote,
      comment,
      saved: new Date(saved),
      ...(selector ? { anchor: { prefix: selector.prefix, suffix: selector.suffix } } : {}),
    })),
  );
}

/** A note without a bookmark of a JSON export, as `gleaner import` restores it. */
export interface RestoredNote {
  readonly title: string;
  readonly tags: string[];
  readonly added: Date;
  readonly comment: string | null;
  readonly note: NonNullable<BookmarkFileEntry['note']>;
  readonly archived: Date | null;
  readonly starred: Date | null;
}

/**
 * A JSON export (`gleaner export --format json`) read back for `gleaner import`: its bookmarks, and
 * its notes without a bookmark (none in an export from before they were exported); throws InvalidExportError.
 */
export function parseWorkspaceExport(json: string): {
  bookmarks: (BookmarkFileEntry & { comment: string | null })[];
  notes: RestoredNote[];
} {
  let document: unknown;
  try {
    document = JSON.parse(json);
  } catch (error) {
    throw new InvalidExportError(`not JSON: ${(error as Error).message}`);
  }
  const { bookmarks, notes = [] } = (document ?? {}) as { bookmarks?: unknown; notes?: unknown };
  if (!Array.isArray(bookmarks)) throw new InvalidExportError('no "bookmarks" list');
  if (!Array.isArray(notes)) throw new InvalidExportError('"notes" is not a list');
  return {
    bookmarks: bookmarks.map((bookmark, index) => {
      const { url, title, tags, added, comment, note, archived, starred } = restoredNote(
        bookmark,
        `bookmarks[${index}]`,
      );
      return { url: url as string, title, tags, added, description: null, comment, note, archived, starred };
    }),
    notes: notes.map((note, index) => {
      const { url: _none, ...restored } = restoredNote(note, `notes[${index}]`, false);
      return restored;
    }),
  };
}

/** An exported note (a bookmark's, with its `url`) as restored; InvalidExportError naming the first field missing or of the wrong type. */
function restoredNote(entry: unknown, at: string, withUrl = true) {
  const { url, title, created, updated, tags, note, highlights, comment, archived, archived_at, starred, starred_at } =
    (entry ?? {}) as Partial<Record<keyof ExportedBookmark, unknown>>;
  const problem =
    withUrl && typeof url !== 'string'
      ? 'url'
      : typeof title !== 'string'
        ? 'title'
        : !isDate(created)
          ? 'created'
          : !isDate(updated)
            ? 'updated'
            : !isStringList(tags)
              ? 'tags'
              : typeof note !== 'string'
                ? 'note'
                : highlights !== undefined && !isHighlightList(highlights)
                  ? 'highlights'
                  : !isState(archived, archived_at)
                    ? 'archived'
                    : !isState(starred, starred_at)
                      ? 'starred'
                      : null;
  if (problem) throw new InvalidExportError(`${at}.${problem} is missing or of the wrong type`);
  return {
    url,
    title: title as string,
    tags: [...(tags as string[])],
    added: new Date(created as string),
    comment: typeof comment === 'string' ? comment : null,
    note: {
      body: note as string,
      updated: new Date(updated as string),
      // An export from before highlights were exported has none: they then take the note's time.
      highlights: restoredHighlights((highlights ?? []) as ExportedHighlight[]),
    },
    // An export from before reading states has none: every note lands in the inbox.
    archived: stateSince(archived, archived_at, updated as string),
    starred: stateSince(starred, starred_at, updated as string),
  };
}

/** A reading state as exported: absent (older exports), or a boolean and its time (null when not set). */
function isState(flag: unknown, since: unknown): boolean {
  return (
    (flag === undefined && since === undefined) ||
    (typeof flag === 'boolean' && (since === null || since === undefined || isDate(since)))
  );
}

/** When the state was set; a state without its time takes the note's last update. */
function stateSince(flag: unknown, since: unknown, updated: string): Date | null {
  if (flag !== true) return null;
  return new Date(typeof since === 'string' ? since : updated);
}

/**
 * An exported kept page as a page to keep again on import (the way other exports' readable copies
 * are kept: extracted, sanitized, stored): its readable HTML under its title, with its byline, site
 * name, time and language where the extraction reads them. Null when the entry carries none.
 */
export function exportedArticlePage(article: unknown): string | null {
  const { html, title, byline, site_name, published, language, direction } = (article ?? {}) as Partial<
    Record<keyof ArticleResource, unknown>
  >;
  if (typeof html !== 'string' || !html.trim()) return null;
  const text = (value: unknown) => (typeof value === 'string' ? escapeHtml(value) : null);
  const meta = (attribute: string, name: string, value: unknown) =>
    text(value) ? `<meta ${attribute}="${name}" content="${text(value)}">` : '';
  const lang = text(language) ? ` lang="${text(language)}"` : '';
  const dir = direction === 'rtl' || direction === 'ltr' ? ` dir="${direction}"` : '';
  return [
    `<!DOCTYPE html><html${lang}${dir}><head><meta charset="utf-8"><title>${text(title) ?? ''}</title>`,
    meta('name', 'author', byline),
    meta('property', 'og:site_name', site_name),
    meta('property', 'article:published_time', published),
    `</head><body><article>${html}</article></body></html>`,
  ].join('');
}

export class InvalidExportError extends Error {}

function isDate(value: unknown): boolean {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value));
}

function isHighlightList(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.every(
      (item) =>
        typeof item?.quote === 'string' &&
        (item.comment === null || typeof item.comment === 'string') &&
        isDate(item.saved) &&
        (item.selector === undefined ||
          (typeof item.selector?.prefix === 'string' && typeof item.selector?.suffix === 'string')),
    )
  );
}

function isStringList(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
