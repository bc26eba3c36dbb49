/**
 * Keeping the search index a projection of the table. Changes arrive as stream records, maybe twice,
 * maybe out of order, maybe a delete before the save it follows; each note converges all the same:
 *
 * - per note only its newest change counts (a delete beats any version);
 * - a note the index already holds moves forward only, to a higher version;
 * - a deleted note leaves a tombstone, so nothing brings it back;
 * - a note in the Trash is hidden at its version, so its restore (the next version) brings it back;
 * - a note the index knows nothing of is read again from the table (the source of truth), so a record
 *   replayed after the index was rebuilt cannot resurrect a note deleted meanwhile.
 */
import type { Note } from '../model';
import { articleChunks, embeddingText, type SearchDocument, searchDocumentWithArticle } from './document';
import type { Embedder } from './embedder';

export type NoteChange =
  | { readonly kind: 'saved'; readonly note: Note }
  | {
      readonly kind: 'deleted';
      readonly noteId: string;
      readonly userId: string;
      /** Set when the note was deleted from the Trash (by its TTL, or for good): what it may have left behind. */
      readonly fromTrash?: { readonly bookmarkId: string | null };
    };

/** A note's vectors in one model: its own text's, and one per chunk of its kept article (none without one). */
export interface NoteVectors {
  readonly noteId: string;
  readonly vector: readonly number[];
  readonly chunks?: readonly (readonly number[])[];
}

export interface IndexWriter {
  /** The version (or tombstone) the index holds of each of these notes (the user names the shard). */
  versions(
    notes: readonly { noteId: string; userId: string }[],
  ): Promise<Map<string, { version: number; deleted: boolean }>>;
  upsert(
    documents: readonly SearchDocument[],
    vectors?: { model: string; rows: readonly NoteVectors[] },
  ): Promise<void>;
  tombstone(notes: readonly { noteId: string; userId: string }[]): Promise<void>;
  /** Takes these versions of notes out of every search (notes in the Trash); a higher version comes back. */
  hide(notes: readonly { noteId: string; userId: string; version: number }[]): Promise<void>;
}

export interface IndexerPorts {
  readonly index: IndexWriter;
  /** Reads notes from the table (consistently); the ones that no longer exist are left out. */
  readonly readNotes: (noteIds: readonly string[]) => Promise<Note[]>;
  readonly embedder: Embedder | null;
  /**
   * The text of a note's kept article (the article store's copy), or null when it has none stored;
   * without this port articles are not indexed.
   */
  readonly articleText?: (note: Note) => Promise<string | null>;
  /** Told when vectors could not be computed (the notes are indexed for keywords and embedded later). */
  readonly onEmbeddingFailure?: (error: unknown, notes: readonly { noteId: string; userId: string }[]) => Promise<void>;
}

export interface IndexOutcome {
  readonly indexed: number;
  readonly deleted: number;
  /** Changes older than what the index holds (replays, duplicates, records out of order). */
  readonly skipped: number;
  readonly reread: number;
}

export async function applyNoteChanges(ports: IndexerPorts, changes: readonly NoteChange[]): Promise<IndexOutcome> {
  const newest = newestPerNote(changes);
  const held = await ports.index.versions(
    [...newest.values()].map((change) =>
      change.kind === 'saved'
        ? { noteId: change.note.id, userId: change.note.userId }
        : { noteId: change.noteId, userId: change.userId },
    ),
  );
  const upserts: Note[] = [];
  const hidden: Note[] = [];
  const deletes: { noteId: string; userId: string }[] = [];
  const unknown: string[] = [];
  // A note in the Trash is hidden at its version, any other written.
  const write = (note: Note) => (note.trashedAt ? hidden : upserts).push(note);
  let skipped = changes.length - newest.size;
  for (const [noteId, change] of newest) {
    const current = held.get(noteId);
    if (current?.deleted) skipped++;
    else if (change.kind === 'deleted') deletes.push({ noteId, userId: change.userId });
    else if (!current) unknown.push(noteId);
    else if (current.version >= change.note.version) skipped++;
    else write(change.note);
  }
  if (unknown.length > 0) {
    const found = new Map((await ports.readNotes(unknown)).map((note) => [note.id, note]));
    for (const noteId of unknown) {
      const note = found.get(noteId);
      if (note) write(note);
      else {
        const change = newest.get(noteId) as Extract<NoteChange, { kind: 'saved' }>;
        deletes.push({ noteId, userId: change.note.userId });
      }
    }
  }
  await ports.index.tombstone(deletes);
  await ports.index.hide(hidden.map((note) => ({ noteId: note.id, userId: note.userId, version: note.version })));
  await indexNotes(ports, upserts);
  return { indexed: upserts.length, deleted: deletes.length + hidden.length, skipped, reread: unknown.length };
}

/**
 * Writes these notes' documents, then their vectors when an embedder is configured and answers: the
 * notes are found by their words once the first write lands, without waiting for the model (which
 * embeds the batch in one go afterwards).
 */
export async function indexNotes(
  ports: Pick<IndexerPorts, 'index' | 'embedder' | 'onEmbeddingFailure' | 'articleText'>,
  notes: readonly Note[],
) {
  const documents = await Promise.all(
    notes.map(async (note) => {
      const article = note.articleHash && ports.articleText ? await ports.articleText(note) : null;
      return searchDocumentWithArticle(note, article ?? '');
    }),
  );
  await ports.index.upsert(documents);
  const vectors = await embed(ports, documents);
  if (vectors) await ports.index.upsert(documents, vectors);
}

async function embed(
  ports: Pick<IndexerPorts, 'embedder' | 'onEmbeddingFailure'>,
  documents: readonly SearchDocument[],
) {
  const embedder = ports.embedder;
  if (!embedder || documents.length === 0) return undefined;
  try {
    return { model: embedder.model, rows: await embedDocuments(embedder, documents) };
  } catch (error) {
    await ports.onEmbeddingFailure?.(
      error,
      documents.map((document) => ({ noteId: document.note_id, userId: document.user_id })),
    );
    return undefined;
  }
}

/**
 * The vectors of these documents in one call of the embedder: each note's own text, and each chunk
 * of its kept article (articleChunks).
 */
export async function embedDocuments(embedder: Embedder, documents: readonly SearchDocument[]): Promise<NoteVectors[]> {
  const chunks = documents.map(articleChunks);
  const vectors = await embedder.embed([...documents.map(embeddingText), ...chunks.flat()], 'document');
  let next = documents.length;
  return documents.map((document, i) => ({
    noteId: document.note_id,
    vector: vectors[i]!,
    chunks: chunks[i]!.map(() => vectors[next++]!),
  }));
}

/** Per note, the change that counts: a delete beats any version, otherwise the highest version. */
export function newestPerNote(changes: readonly NoteChange[]): Map<string, NoteChange> {
  const newest = new Map<string, NoteChange>();
  for (const change of changes) {
    const noteId = change.kind === 'saved' ? change.note.id : change.noteId;
    const seen = newest.get(noteId);
    if (!seen || seen.kind === 'deleted') {
      if (!seen) newest.set(noteId, change);
      continue;
    }
    if (change.kind === 'deleted' || change.note.version > seen.note.version) newest.set(noteId, change);
  }
  return newest;
}
