import * as z from 'zod/mini';
import type { Note } from '../../../core/model';
import { bodyBytes, withAppended } from '../../../core/save/note-body';
import { keys } from '../keys';
import { itemBytes, itemCodec } from './codec';

/**
 * The note entity: its item (key, its entry in the user's notes index, its attributes) and the codec
 * that reads it back. A body is stored as the text last written whole (`body`) and what appends added
 * since (`appended`, see DynamoBookmarkStore.appendToNote); a note read has them joined.
 */

const NOTE_TYPE = 'Note';

/** An entry of a note's `appended` list: what one append added, and when. */
interface AppendedEntry {
  readonly id: string;
  readonly saved: string;
  readonly text: string;
}

const decodeNote = itemCodec(NOTE_TYPE, () =>
  z.object({
    id: z.string(),
    userId: z.string(),
    bookmarkId: z.nullish(z.string()),
    url: z.nullish(z.string()),
    title: z.string(),
    body: z.optional(z.string()),
    appended: z.optional(z.array(z.object({ id: z.string(), saved: z.string(), text: z.string() }))),
    appendIds: z.optional(z.set(z.string())),
    comment: z.nullish(z.string()),
    tags: z.optional(z.array(z.string())),
    lastHighlight: z.nullish(z.string()),
    created: z.string(),
    updated: z.nullish(z.string()),
    version: z.optional(z.number()),
    archivedAt: z.nullish(z.string()),
    starredAt: z.nullish(z.string()),
    articleHash: z.optional(z.string()),
    trashedAt: z.nullish(z.string()),
  }),
);

/** What a note item keeps of appends: the entries not yet folded into its body, and every append's id. */
export interface NoteAppends {
  readonly appended: readonly AppendedEntry[];
  readonly appendIds: ReadonlySet<string>;
}

/** `highlightsRecorded`: the note's highlights have records (notes from before are `gleaner migrate`'s to do). */
export function noteItem(note: Note) {
  const { storedBytes: _measured, ...fields } = note;
  return {
    ...keys.note(note.id),
    ...keys.userNotesIndex(note.userId, note.updated ?? note.created, note.id),
    type: NOTE_TYPE,
    ...fields,
    tags: [...note.tags],
    bodyBytes: bodyBytes(note.body),
    highlightsRecorded: true,
  };
}

/** A note item as the domain's note, with the bytes it takes (for NoteBody); MalformedItemError when it is not one. */
export function readNote(item: Record<string, unknown>): Note {
  return readNoteItem(item).note;
}

/** A note item as the domain's note, and what it keeps of its appends. */
export function readNoteItem(item: Record<string, unknown>): { note: Note } & NoteAppends {
  const stored = decodeNote(item);
  const appended = stored.appended ?? [];
  return {
    note: {
      id: stored.id,
      userId: stored.userId,
      bookmarkId: stored.bookmarkId ?? null,
      url: stored.url ?? null,
      title: stored.title,
      body: withAppended(
        stored.body ?? '',
        appended.map((entry) => entry.text),
      ),
      comment: stored.comment ?? null,
      tags: stored.tags ?? [],
      lastHighlight: stored.lastHighlight ?? null,
      created: stored.created,
      updated: stored.updated ?? null,
      version: stored.version ?? 0,
      archivedAt: stored.archivedAt ?? null,
      starredAt: stored.starredAt ?? null,
      ...(stored.articleHash === undefined ? {} : { articleHash: stored.articleHash }),
      // Only on a note in the Trash (see Note.trashedAt).
      ...(stored.trashedAt ? { trashedAt: stored.trashedAt } : {}),
      storedBytes: itemBytes(item),
    },
    appended,
    appendIds: stored.appendIds ?? new Set(),
  };
}
