import * as z from 'zod/mini';
import type { NoteLink } from '../../../core/links/links';
import type { Note } from '../../../core/model';
import { keys } from '../keys';
import { itemCodec } from './codec';

/**
 * A note's links and the title it answers to, items in its partition. A link is listed in its user's
 * index partition of the key it links to (a note's backlinks are one query per key it answers to);
 * a name in its user's index partition of that title, oldest note first (the oldest is the target).
 */
export function noteLinkItem(note: Pick<Note, 'id' | 'userId'>, link: NoteLink) {
  return {
    ...keys.link(note.id, link.key),
    ...keys.linksToIndex(note.userId, link.key, note.id),
    type: 'NoteLink',
    userId: note.userId,
    sourceNoteId: note.id,
    ...link,
  };
}

export function noteNameItem(note: Pick<Note, 'id' | 'userId' | 'created'>, key: string) {
  return {
    ...keys.noteName(note.id, key),
    ...keys.namesIndex(note.userId, key, note.created, note.id),
    type: 'NoteName',
    userId: note.userId,
    noteId: note.id,
    key,
  };
}

const decodeLink = itemCodec('NoteLink', () => z.object({ sourceNoteId: z.string(), context: z.string() }));

/** A link item as a backlink reads it: the note it is in, and the sentence it stands in. */
export function readNoteLink(item: Record<string, unknown>): { sourceNoteId: string; context: string } {
  const { sourceNoteId, context } = decodeLink(item);
  return { sourceNoteId, context };
}

const decodeName = itemCodec('NoteName', () => z.object({ noteId: z.string() }));

/** The note a name item names. */
export function readNoteName(item: Record<string, unknown>): string {
  return decodeName(item).noteId;
}
