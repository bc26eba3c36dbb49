import { randomUUID } from 'node:crypto';
import { strToU8, zipSync } from 'fflate';
import type { ImportedArticlePorts } from '../../functions/core/import/articles';
import { importHere, importSaves } from '../../functions/core/import/chunks';
import type { ImportPorts } from '../../functions/core/import/import';
import type { ParsedImport } from '../../functions/core/import/items';
import type { ImportStore } from '../../functions/core/import/job';
import type { BookmarkStore } from '../../functions/core/save/save-bookmark';
import type { BookmarkFileEntry } from '../../functions/core/workspace/netscape-bookmarks';

/** The save use case's ports over a store, enrichment requests dropped: for tests that save through the core. */
export function quietSavePorts<Store extends BookmarkStore>(store: Store) {
  return {
    store,
    enrichment: { publish: async () => {} },
    newId: randomUUID,
    now: () => new Date(),
    logger: { warn: () => {} },
  };
}

/**
 * `gleaner import`'s path over these stores: an export imported here, in chunks, through the import
 * worker's code (`store` is the bookmark store of an import's backlog), its report without the import's id.
 */
export function importerOver(
  imports: ImportStore,
  store: (backlog: { importId: string; since: string }) => ImportPorts['store'],
  articles: Omit<ImportedArticlePorts, 'now'> | null = null,
) {
  return async (userId: string, parsed: ParsedImport, onProgress?: (done: number, total: number) => void) => {
    const saves = importSaves({
      store,
      articles,
      newId: randomUUID,
      now: () => new Date(),
      logger: { warn: () => {} },
    });
    const ports = { imports, save: saves, newId: randomUUID, now: () => new Date() };
    const { import_id: _id, ...report } = await importHere(ports, userId, 'export', parsed, onProgress);
    return report;
  };
}

/** A large bookmark file's entries: `count` distinct links, each with one of seven tags. */
export function manyLinks(count: number): BookmarkFileEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    url: `https://many.example/${i}`,
    title: `Link ${i}`,
    tags: [`t${i % 7}x`],
    added: new Date(1_600_000_000_000 + i * 1000),
    description: null,
  }));
}

/** Rows in one Pocket part file, as Pocket wrote them. */
const POCKET_PART_ROWS = 10_000;

/**
 * A Pocket export zip of `count` distinct rows (today's header), every tenth archived, in part files
 * of 10,000 rows as Pocket wrote them (or `partRows`, for several parts at a small size).
 */
export function pocketZip(count: number, partRows = POCKET_PART_ROWS): Uint8Array {
  const parts: Record<string, Uint8Array> = {};
  for (let start = 0; start < count; start += partRows) {
    const rows = Array.from({ length: Math.min(partRows, count - start) }, (_, offset) => {
      const i = start + offset;
      return `"Pocket ${i}",https://pocket.example/${i},${1_600_000_000 + i},t${i % 7}x|read,${i % 10 ? 'unread' : 'archive'}`;
    });
    const name = `part_${String(start / partRows).padStart(6, '0')}.csv`;
    parts[name] = strToU8(['title,url,time_added,tags,status', ...rows, ''].join('\n'));
  }
  return zipSync(parts);
}
