import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LanceSearchIndex } from '../../functions/adapters/search/lance-index';
import { ShardedSearchIndex } from '../../functions/adapters/search/sharded-index';
import type { Note } from '../../functions/core/model';
import { buildNoteBody } from '../../functions/core/save/note-body';
import { embeddingText, searchDocument } from '../../functions/core/search/document';
import type { Embedder } from '../../functions/core/search/embedder';
import { searchNotes } from '../../functions/core/search/search';

/** A note as a save builds it, for search tests that index notes without saving them. */
export function searchableNote(
  userId: string,
  fields: {
    title: string;
    url?: string;
    description?: string;
    selection?: string;
    comment?: string;
    tags?: string[];
    created?: string;
    version?: number;
    id?: string;
  },
): Note {
  const url = fields.url ?? `https://example.org/${randomUUID()}`;
  const created = fields.created ?? '2024-05-01T12:00:00.000Z';
  return {
    id: fields.id ?? randomUUID(),
    userId,
    bookmarkId: randomUUID(),
    url,
    title: fields.title,
    body: buildNoteBody({
      description: fields.description ?? null,
      title: fields.title,
      url,
      selection: fields.selection ?? null,
      comment: fields.comment ?? null,
    }),
    tags: fields.tags ?? [],
    lastHighlight: null,
    created,
    updated: created,
    version: fields.version ?? 1,
  };
}

/** A search index in a fresh temporary folder, removed by `dispose`. */
export async function temporaryIndex(): Promise<{ index: LanceSearchIndex; folder: string; dispose(): void }> {
  const folder = mkdtempSync(join(tmpdir(), 'gleaner-search-'));
  const index = await LanceSearchIndex.open({ uri: folder });
  return {
    index,
    folder,
    dispose() {
      index.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Indexes `notes` with their vectors in `embedder`'s space, as the indexer does a batch. */
export async function indexWithVectors(
  index: LanceSearchIndex,
  embedder: Embedder,
  notes: readonly Note[],
): Promise<void> {
  const documents = notes.map(searchDocument);
  const vectors = await embedder.embed(documents.map(embeddingText), 'document');
  await index.upsert(documents, {
    model: embedder.model,
    rows: documents.map((document, i) => ({ noteId: document.note_id, vector: vectors[i]! })),
  });
}

/** The ids of the user's notes a keyword search of the index at `uri` (as the local stack writes it) finds, best first. */
export async function searchIndexAt(uri: string, userId: string, text: string): Promise<string[]> {
  const index = await ShardedSearchIndex.open({ uri });
  try {
    const result = await searchNotes({ index, embedder: null }, userId, text);
    if (!result.ok) throw new Error(result.problem.message);
    return result.answer.results.map((hit) => hit.note_id);
  } finally {
    index.close();
  }
}
