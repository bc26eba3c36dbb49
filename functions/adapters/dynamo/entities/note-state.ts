import type { Note } from '../../../core/model';
import { keys, type ReadingStateName } from '../keys';
import type { TransactionAction } from '../transactions';

/** A note's archived and starred entries: each lists the note in the user's index of that state, by when it got there. */

const STATE_ATTRIBUTES = { ARCHIVED: 'archivedAt', STARRED: 'starredAt' } as const satisfies Record<
  ReadingStateName,
  keyof Note
>;

/**
 * The writes that keep a note's archived and starred entries as its state says, from `before` (null:
 * a new note) to `after` (null: deleted): an entry put when the state is set or its time changes,
 * deleted when it is cleared.
 */
export function stateEntryChanges(TableName: string, before: Note | null, after: Note | null): TransactionAction[] {
  const note = (after ?? before)!;
  return (Object.keys(STATE_ATTRIBUTES) as ReadingStateName[]).flatMap((state): TransactionAction[] => {
    const attribute = STATE_ATTRIBUTES[state];
    const was = before?.[attribute] ?? null;
    const is = after?.[attribute] ?? null;
    if (was === is) return [];
    if (is === null) return [{ Delete: { TableName, Key: keys.noteState(note.id, state) } }];
    return [
      {
        Put: {
          TableName,
          Item: {
            ...keys.noteState(note.id, state),
            ...keys.stateIndex(note.userId, state, is, note.id),
            type: 'NoteState',
            noteId: note.id,
            since: is,
          },
        },
      },
    ];
  });
}
