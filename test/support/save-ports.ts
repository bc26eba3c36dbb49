import { randomUUID } from 'node:crypto';
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
