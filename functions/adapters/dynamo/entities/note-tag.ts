import * as z from 'zod/mini';
import type { Note } from '../../../core/model';
import { keys } from '../keys';
import { itemCodec } from './codec';

/**
 * A note's tag entry: one item per tag in the note's partition, listed in the user's per-tag index
 * partition by the note's update time (feeds read a tag's notes newest first from it).
 */

export function noteTagItem(note: Note, tag: string) {
  const updated = note.updated ?? note.created;
  return {
    ...keys.noteTag(note.id, tag),
    ...keys.tagIndex(note.userId, tag, updated, note.id),
    type: 'NoteTag',
    noteId: note.id,
    tag,
    tags: [...note.tags],
    updated,
  };
}

const decodeNoteEntry = itemCodec('Note index entry', () =>
  z.object({ noteId: z.string(), gsi1sk: z.optional(z.string()) }),
);

/**
 * An entry of a note in one of the user's index partitions (a tag entry, an archived or starred
 * entry), projected to what the reader asked for: the note it names and its place in the partition.
 */
export function readNoteEntry(item: Record<string, unknown>): { noteId: string; sortKey: string } {
  const entry = decodeNoteEntry(item);
  return { noteId: entry.noteId, sortKey: entry.gsi1sk ?? '' };
}
