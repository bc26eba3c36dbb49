/**
 * One writer per shard: the stream's note changes travel to the index through an SQS FIFO queue
 * whose message group is the user's shard, so a shard's changes are applied in order, one batch at a
 * time, while shards are written side by side. A message names the change, not the note: the writer
 * reads the note from the table when it applies it (its newest version), so a message is small
 * whatever the note's size, and a replayed one changes nothing.
 */
import type { Note } from '../model';
import type { NoteChange } from './indexer';
import { shardOf } from './shards';

type IndexMessage =
  | { readonly kind: 'saved'; readonly noteId: string; readonly userId: string; readonly version: number }
  | { readonly kind: 'deleted'; readonly noteId: string; readonly userId: string };

export interface QueuedIndexMessage {
  readonly body: string;
  /** The shard: one writer at a time per group. */
  readonly groupId: string;
  /** The same change sent twice (a stream batch retried) within five minutes is delivered once. */
  readonly deduplicationId: string;
}

/** The messages for a stream batch's note changes, grouped by the user's shard among `shards`. */
export function indexMessages(changes: readonly NoteChange[], shards: number): QueuedIndexMessage[] {
  return changes.map((change) => {
    const message: IndexMessage =
      change.kind === 'saved'
        ? { kind: 'saved', noteId: change.note.id, userId: change.note.userId, version: change.note.version }
        : change;
    return {
      body: JSON.stringify(message),
      groupId: `shard-${shardOf(message.userId, shards)}`,
      deduplicationId: `${message.noteId}-${message.kind === 'saved' ? message.version : 'deleted'}`,
    };
  });
}

/**
 * The note changes a batch of messages stands for: a saved note as the table holds it now, or
 * deleted when the table no longer has it (its delete's own message follows or came first).
 */
export async function changesOf(
  bodies: readonly string[],
  readNotes: (noteIds: readonly string[]) => Promise<Note[]>,
): Promise<NoteChange[]> {
  const messages = bodies.map((body) => JSON.parse(body) as IndexMessage);
  const saved = messages.filter((message) => message.kind === 'saved').map((message) => message.noteId);
  const found = new Map((await readNotes([...new Set(saved)])).map((note) => [note.id, note]));
  return messages.map((message): NoteChange => {
    const note = message.kind === 'saved' ? found.get(message.noteId) : undefined;
    return note ? { kind: 'saved', note } : { kind: 'deleted', noteId: message.noteId, userId: message.userId };
  });
}
