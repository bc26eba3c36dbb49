import type { Principal } from '../identity/principal';
import { type Note, TRASH_RETENTION_DAYS, trashPurgeTime, trashState } from '../model';
import { isoTimestamp } from '../text/text';
import type { Page, PageRequest } from '../workspace/listing';
import type { NoteResource, TrashPageResource } from './api';
import { getNote, iconsOf, NotFoundError, noteSummary, type OwnerPorts, owned } from './library';

/**
 * The Trash: where a deleted note waits (library.deleteNote moves it there) for TRASH_RETENTION_DAYS,
 * out of every list, search, feed, link and review, and out of the note cap. Restoring it puts it
 * back as it was (refused at the note cap); deleting it for good, or emptying the Trash, deletes it
 * with its bookmark, highlights and kept page. Past its time it is deleted for good by itself
 * (DynamoDB's TTL, whose stream's consumer then deletes what it had), and until that has run it is
 * as gone here: not listed, not restorable.
 */

/** Restoring the note would pass the account's note cap (a 402, as a save would be). */
export class NoteLimitError extends Error {
  constructor(
    readonly used: number,
    readonly limit: number,
  ) {
    super(
      `Your plan’s note limit (${limit.toLocaleString('en-US')} notes) is reached: the note stays in the Trash. Delete notes you no longer need, then restore it.`,
    );
  }
}

/** A note of the caller's Trash (not past its time); any other is NotFoundError. */
function trashedNote(ports: Pick<OwnerPorts, 'now'>, principal: Principal, note: Note | null): Note {
  const found = owned(principal, note, 'note');
  if (trashState(found, ports.now()) !== 'trashed') throw new NotFoundError('No such note in the Trash');
  return found;
}

/** A page of the caller's Trash, most recently deleted first (notes past their time left out). */
export async function trashedNotes(
  ports: Pick<OwnerPorts, 'notes' | 'now'>,
  principal: Principal,
  page: PageRequest,
): Promise<Page<Note>> {
  const found = await ports.notes.listTrash(principal.userId, page);
  const now = ports.now();
  return { items: found.items.filter((note) => trashState(note, now) === 'trashed'), cursor: found.cursor };
}

export async function listTrash(
  ports: OwnerPorts,
  principal: Principal,
  page: PageRequest,
): Promise<TrashPageResource> {
  const found = await trashedNotes(ports, principal, page);
  const notes = found.items;
  const icons = await iconsOf(ports, notes);
  return {
    notes: notes.map((note) => ({
      ...noteSummary(note, icons),
      trashed_at: note.trashedAt!,
      purge_at: isoTimestamp(trashPurgeTime(note.trashedAt!)),
    })),
    retention_days: TRASH_RETENTION_DAYS,
    next_cursor: found.cursor,
  };
}

export async function restoreNote(ports: OwnerPorts, principal: Principal, noteId: string): Promise<NoteResource> {
  await restoreTrashed(ports, principal, noteId);
  return getNote(ports, principal, noteId);
}

/** Takes a note of the caller's Trash back, as it was: the note restored (NoteLimitError at the note cap). */
export async function restoreTrashed(
  ports: Pick<OwnerPorts, 'notes' | 'now'>,
  principal: Principal,
  noteId: string,
): Promise<Note> {
  trashedNote(ports, principal, await ports.notes.getNote(noteId));
  const outcome = await ports.notes.restoreNote(noteId);
  if (outcome.kind === 'note-limit') throw new NoteLimitError(outcome.used, outcome.limit);
  if (outcome.kind === 'missing') throw new NotFoundError('No such note in the Trash');
  return outcome.note;
}

/** Deletes a note of the Trash for good, with its kept page. */
export async function deleteForever(
  ports: Pick<OwnerPorts, 'notes' | 'now'> & { readonly articles: Pick<OwnerPorts['articles'], 'deleteArticle'> },
  principal: Principal,
  noteId: string,
): Promise<void> {
  trashedNote(ports, principal, await ports.notes.getNote(noteId));
  // Only while it is in the Trash: a restore meanwhile keeps it.
  const deleted = await ports.notes.deleteNote(noteId, 'trashed');
  if (!deleted) throw new NotFoundError('No such note in the Trash');
  if (deleted.bookmarkId) await ports.articles.deleteArticle(deleted.bookmarkId);
}

/** Notes deleted for good at a time while emptying the Trash. */
const EMPTY_BATCH = 100;

/** Deletes every note of the caller's Trash for good (past their time too); how many. */
export async function emptyTrash(ports: OwnerPorts, principal: Principal): Promise<{ deleted: number }> {
  let deleted = 0;
  for (;;) {
    // The first page each time: the notes deleted leave it (and one restored meanwhile leaves the Trash).
    const page = await ports.notes.listTrash(principal.userId, { limit: EMPTY_BATCH });
    const gone = await Promise.all(
      page.items.map(async (note) => {
        const removed = await ports.notes.deleteNote(note.id, 'trashed');
        if (removed?.bookmarkId) await ports.articles.deleteArticle(removed.bookmarkId);
        return removed ? 1 : 0;
      }),
    );
    deleted += gone.reduce<number>((sum, one) => sum + one, 0);
    if (!page.cursor) return { deleted };
  }
}
