import { type Highlight, type HighlightAnchor, mergeTags, type Note } from '../model';
import { highlightsOfBody } from '../save/highlights';
import { derivedId } from '../save/idempotency';
import { appendHighlight, NoteBody, NoteTooLargeError, sameHighlight } from '../save/note-body';
import type { BookmarkStore, NoteStore } from '../save/save-bookmark';
import { SAVE_LIMITS } from '../save/save-request';
import { isoTimestamp, truncate } from '../text/text';
import { inSavedOrder } from '../workspace/restored-highlights';
import { type ImportedBook, orderedHighlights, type RowPlace, titleKey } from './items';

/**
 * What an export holds that names no page, imported as notes without a bookmark: one note per book
 * of Readwise highlights that match no document, a Karakeep text bookmark, a Gleaner export's note
 * without a page. Each note's id is named after the user and what names it (a book by its title), so
 * running the import again, a chunk run again after a crash, or a later export's highlights of the
 * same book find the note already there: a book's new highlights are appended to it, nothing twice.
 */

/** A note without a page as the import writes it (times as ISO, so a prepared import keeps as JSON). */
export interface ImportNote extends RowPlace {
  /** What names it (see ImportedBook.kind): its id is derived from this and the user's. */
  readonly key: string;
  readonly title: string;
  readonly tags: readonly string[];
  readonly created: string;
  readonly updated: string;
  /** The body of a new note: its text, then its highlights. */
  readonly body: string;
  readonly comment: string | null;
  /** In the order of their times, each strictly later than the one before. */
  readonly highlights: readonly ImportNoteHighlight[];
  readonly archived: string | null;
  readonly starred: string | null;
}

interface ImportNoteHighlight {
  readonly quote: string;
  readonly comment: string | null;
  readonly saved: string;
  readonly anchor?: HighlightAnchor;
}

/** What the report lists of each note without a page: its title and how many highlights it carries. */
export interface ListedNote {
  readonly file?: string;
  readonly row: number;
  readonly title: string;
  readonly highlights: number;
}

export const listedNote = (note: ImportNote): ListedNote => ({
  ...(note.file ? { file: note.file } : {}),
  row: note.row,
  title: note.title,
  highlights: note.highlights.length,
});

/**
 * A book, text note or exported note as its note: `now` (the import's start) stands for the times
 * the export does not give, so the same export prepared again gives the same note.
 */
export function prepareNote(book: ImportedBook, now: Date): ImportNote {
  const title = truncate(book.title.replace(/\s+/g, ' ').trim() || 'Untitled', SAVE_LIMITS.title);
  const restored = book.note ?? null;
  const fallback = book.added ?? restored?.updated ?? now;
  // A restored note's highlights are as it had them (the same quote twice too); a book's each once.
  const highlights = restored
    ? inSavedOrder(
        restored.highlights ?? highlightsOfBody(restored.body).map((found) => ({ ...found, saved: fallback })),
      )
    : orderedHighlights(book.highlights.map((highlight) => ({ ...highlight, saved: highlight.saved ?? fallback })));
  const created = book.added ?? highlights[0]?.saved ?? now;
  const times = [created, restored?.updated, ...highlights.map((highlight) => highlight.saved)].flatMap((time) =>
    time ? [time.getTime()] : [],
  );
  const updated = new Date(Math.max(...times));
  const since = (state: Date | boolean | null | undefined) =>
    state ? isoTimestamp(state instanceof Date ? state : updated) : null;
  const key =
    book.kind === 'book'
      ? `book\n${titleKey(title)}`
      : book.kind === 'text'
        ? `text\n${title}\n${book.text ?? ''}`
        : `note\n${title}\n${isoTimestamp(created)}`;
  const lead = [book.author ? `By ${book.author}` : null, book.text].filter(Boolean).join('\n\n');
  // A book's highlights as far as a note holds them (NoteBody's limits): a note too big to store is never written.
  let body = restored?.body ?? lead;
  const kept = restored ? highlights : [];
  for (const highlight of restored ? [] : highlights) {
    const next = appendHighlight(body, { selection: highlight.quote, comment: highlight.comment });
    const fields = {
      body: next,
      title,
      url: null,
      comment: book.comment ?? null,
      tags: book.tags,
      lastHighlight: highlight.quote,
    };
    if (NoteBody.of({ ...fields, body: '' }).refusal(fields)) break;
    body = next;
    kept.push(highlight);
  }
  return {
    file: book.file,
    row: book.row,
    key,
    title,
    tags: book.tags,
    created: isoTimestamp(created),
    updated: isoTimestamp(updated),
    body,
    comment: book.comment ? truncate(book.comment, SAVE_LIMITS.comment) : null,
    highlights: kept.map((highlight) => ({ ...highlight, saved: isoTimestamp(highlight.saved) })),
    archived: since(book.archived),
    starred: since(book.starred),
  };
}

export interface ImportNotePorts {
  readonly store: NoteStore & Pick<BookmarkStore, 'restoreNote'>;
  readonly now: () => Date;
}

export type NoteOutcome = { kind: 'notes' | 'merged'; highlights: number } | { limit: number };

/**
 * A note without a page written for `userId`: created (under the note cap) unless a note of its id
 * is there, and then the highlights it does not hold yet are appended to it, with its tags. A note of
 * the book in the Trash is taken back first, as a save of a trashed page takes its note back.
 */
export async function importNote(ports: ImportNotePorts, userId: string, imported: ImportNote): Promise<NoteOutcome> {
  const id = derivedId(`import-note\n${userId}\n${imported.key}`);
  const highlights: Highlight[] = imported.highlights.map((highlight) => highlightOf(id, userId, highlight));
  const note: Note = {
    id,
    userId,
    bookmarkId: null,
    url: null,
    title: imported.title,
    body: imported.body,
    ...(imported.comment ? { comment: imported.comment } : {}),
    tags: imported.tags,
    lastHighlight: highlights.at(-1)?.quote ?? null,
    created: imported.created,
    updated: imported.updated,
    version: 1,
    archivedAt: imported.archived,
    starredAt: imported.starred,
  };
  const outcome = await ports.store.createNote(note, highlights);
  if (outcome.kind === 'created') return { kind: 'notes', highlights: highlights.length };
  if (outcome.kind === 'note-limit') return { limit: outcome.limit };
  if (outcome.note.trashedAt) {
    const restored = await ports.store.restoreNote(id);
    if (restored.kind === 'note-limit') return { limit: restored.limit };
  }
  return { kind: 'merged', highlights: await mergeInto(ports, id, userId, imported) };
}

/** The note's id and its quote's time name a highlight: written again, it is the same record. */
function highlightOf(noteId: string, userId: string, highlight: ImportNoteHighlight): Highlight {
  const quote = highlight.quote.trim();
  return {
    id: derivedId(`import-note-highlight\n${noteId}\n${highlight.saved}\n${quote}`),
    noteId,
    userId,
    quote,
    comment: highlight.comment?.trim() || null,
    saved: highlight.saved,
    ...(highlight.anchor ? { anchor: highlight.anchor } : {}),
  };
}

/** The tags and highlights the note does not hold yet; how many highlights were appended. */
async function mergeInto(ports: ImportNotePorts, noteId: string, userId: string, imported: ImportNote) {
  const now = isoTimestamp(ports.now());
  await ports.store.updateNote(
    noteId,
    (note) => {
      const tags = mergeTags(note.tags, imported.tags);
      return tags.length === note.tags.length ? null : { body: note.body, tags, lastHighlight: note.lastHighlight };
    },
    now,
  );
  return appendNewHighlights(ports.store, noteId, imported.highlights, now, (highlight) =>
    highlightOf(noteId, userId, highlight),
  );
}

/**
 * The highlights a note does not hold yet, appended one by one, each as `record` makes it (with its
 * own time); how many were. A highlight the note has no room for is left out.
 */
export async function appendNewHighlights<H extends { quote: string; comment: string | null }>(
  store: Pick<NoteStore, 'updateNote'>,
  noteId: string,
  highlights: readonly H[],
  updated: string,
  record: (highlight: H) => Highlight,
): Promise<number> {
  let appended = 0;
  for (const highlight of highlights) {
    const update = await store
      .updateNote(
        noteId,
        (note) => {
          if (highlightsOfBody(note.body).some((kept) => sameHighlight(kept.quote, highlight.quote))) return null;
          const body = appendHighlight(note.body, { selection: highlight.quote, comment: highlight.comment });
          if (NoteBody.of(note).refusal({ ...note, body, lastHighlight: highlight.quote })) return null;
          const made = record(highlight);
          return { body, tags: note.tags, lastHighlight: made.quote, highlight: made };
        },
        updated,
      )
      .catch((error: unknown) => {
        // The note is full (DynamoDB refused its size after all): the rest cannot fit either.
        if (error instanceof NoteTooLargeError) return null;
        throw error;
      });
    if (update?.kind === 'updated') appended++;
  }
  return appended;
}
