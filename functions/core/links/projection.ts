/**
 * Keeping a user's links a projection of their notes, from the same change stream as the search index
 * (functions/core/search/indexer.ts) and under the same rules: per note only its newest change counts,
 * and a change that is not the note's current version (a replay, a late record, a save of a note
 * deleted since) is never written as it is: the table, the source of truth, is read instead, so a
 * deleted note's links never come back.
 */
import type { Note } from '../model';
import { type NoteChange, newestPerNote } from '../search/indexer';

/** What syncing a note's links did: wrote items, found them as they should be, or found the note moved on. */
export type LinkSync = 'written' | 'unchanged' | 'moved-on';

export interface LinkProjectionPorts {
  /** Stores the note's links and name if the note is still at `note.version`. */
  syncNote(note: Note): Promise<LinkSync>;
  /** Drops the links and name of a note that no longer exists; false when it exists. */
  removeNote(noteId: string): Promise<boolean>;
  /** The notes with these ids that exist now (a consistent read). */
  readNotes(noteIds: readonly string[]): Promise<Note[]>;
}

export interface LinkProjectionOutcome {
  readonly synced: number;
  readonly removed: number;
  /** Notes whose projection failed (the change is to be retried), with the first error. */
  readonly failed: ReadonlySet<string>;
  readonly error: unknown;
}

/** Notes projected at once: a batch's notes are independent, but each is a few DynamoDB calls. */
const NOTES_AT_ONCE = 8;

export async function applyLinkChanges(
  ports: LinkProjectionPorts,
  changes: readonly NoteChange[],
): Promise<LinkProjectionOutcome> {
  const pending = [...newestPerNote(changes)];
  let synced = 0;
  let removed = 0;
  const failed = new Set<string>();
  let error: unknown = null;
  const work = async () => {
    for (let next = pending.shift(); next; next = pending.shift()) {
      const [noteId, change] = next;
      try {
        if ((await projectNote(ports, noteId, change)) === 'synced') synced++;
        else removed++;
      } catch (cause) {
        failed.add(noteId);
        error ??= cause;
      }
    }
  };
  await Promise.all(Array.from({ length: NOTES_AT_ONCE }, work));
  return { synced, removed, failed, error };
}

async function projectNote(ports: LinkProjectionPorts, noteId: string, change: NoteChange) {
  if (change.kind === 'deleted') {
    if (await ports.removeNote(noteId)) return 'removed';
  } else if ((await ports.syncNote(change.note)) !== 'moved-on') return 'synced';
  // Not the note's current state (a replay, a late record): project what the table holds now.
  const [current] = await ports.readNotes([noteId]);
  if (!current) {
    await ports.removeNote(noteId);
    return 'removed';
  }
  // Moved on again when a write landed meanwhile: that write's own change projects it.
  await ports.syncNote(current);
  return 'synced';
}
