import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LanceSearchIndex } from '../../functions/adapters/search/lance-index';
import type { Note } from '../../functions/core/model';
import { buildNoteBody } from '../../functions/core/save/note-body';

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
