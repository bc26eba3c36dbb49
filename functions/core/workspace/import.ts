import { mergeTags } from '../model';
import { type SaveBookmarkPorts, saveBookmark } from '../save/save-bookmark';
import { SAVE_LIMITS } from '../save/save-request';
import { normalizeUrl, parseBookmarkUrl } from '../save/url';
import { truncate } from '../text/text';
import type { BookmarkFileEntry } from './netscape-bookmarks';

/**
 * `gleaner import`: every link of a bookmark file goes through the save core, so URLs are normalised,
 * a URL already in the workspace (or twice in the file) merges into its note instead of making
 * another, and the note cap holds. Running it again merges everything and creates nothing.
 */

export interface ImportReport {
  readonly links: number;
  /** New bookmarks (and notes). */
  readonly imported: number;
  /** Links whose URL was already in the workspace (or earlier in the file): their tags merged in. */
  readonly merged: number;
  /** Links that are not http(s) URLs (`javascript:`, `place:`, …), left out. */
  readonly skipped: number;
  /** Links not imported because the note cap was reached; the import stops there. */
  readonly over_cap: number;
  readonly note_cap: number | null;
}

/** Saves in flight at once: enough to import thousands of links in one run, few enough to stay polite. */
const CONCURRENT_SAVES = 8;

export async function importBookmarks(
  ports: SaveBookmarkPorts,
  userId: string,
  entries: readonly BookmarkFileEntry[],
  onProgress: (done: number, total: number) => void = () => {},
): Promise<ImportReport> {
  const { links, skipped, duplicates } = distinctLinks(entries);
  const counts = { imported: 0, merged: duplicates, skipped, over_cap: 0 };
  let noteCap: number | null = null;
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < links.length) {
      const link = links[next++]!;
      // Once one save meets the cap, the rest are not tried: each would only meet it again.
      const outcome = noteCap === null ? await importOne(ports, userId, link) : null;
      if (outcome === null || typeof outcome === 'object') {
        noteCap ??= outcome!.limit;
        counts.over_cap++;
      } else {
        counts[outcome]++;
      }
      onProgress(++done, links.length);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT_SAVES }, worker));
  return { links: entries.length, ...counts, note_cap: noteCap };
}

interface Link {
  readonly url: URL;
  readonly entry: BookmarkFileEntry;
}

/**
 * One link per normalised URL, so saves running side by side never race for the same one: a URL
 * listed again (in another folder, say) adds its tags, and the earliest ADD_DATE is kept.
 */
function distinctLinks(entries: readonly BookmarkFileEntry[]): { links: Link[]; skipped: number; duplicates: number } {
  const byUrl = new Map<string, Link>();
  let skipped = 0;
  for (const entry of entries) {
    const parsed = parseBookmarkUrl(entry.url);
    if (!parsed.ok) {
      skipped++;
      continue;
    }
    const key = normalizeUrl(parsed.url);
    const first = byUrl.get(key)?.entry;
    const added =
      [first?.added, entry.added]
        .filter((date): date is Date => date instanceof Date)
        .sort((a, b) => a.getTime() - b.getTime())[0] ?? null;
    byUrl.set(key, {
      url: byUrl.get(key)?.url ?? parsed.url,
      entry: first
        ? {
            url: first.url,
            title: first.title ?? entry.title,
            tags: mergeTags(first.tags, entry.tags),
            added,
            description: first.description ?? entry.description,
            note: first.note ?? entry.note ?? null,
            archived: first.archived ?? entry.archived ?? null,
            starred: first.starred ?? entry.starred ?? null,
          }
        : entry,
    });
  }
  const links = [...byUrl.values()];
  return { links, skipped, duplicates: entries.length - skipped - links.length };
}

async function importOne(
  ports: SaveBookmarkPorts,
  userId: string,
  { url, entry }: Link,
): Promise<'imported' | 'merged' | { limit: number }> {
  const request = {
    url,
    title: entry.title === null ? null : truncate(entry.title, SAVE_LIMITS.title),
    selection: null,
    comment: null,
    description: entry.description === null ? null : truncate(entry.description, SAVE_LIMITS.description),
    append: false,
  };
  const outcome = await saveBookmark(ports, {
    userId,
    request,
    siteIcon: null,
    idempotency: null,
    imported: {
      tags: entry.tags,
      added: entry.added,
      note: entry.note ?? null,
      archived: entry.archived ?? null,
      starred: entry.starred ?? null,
    },
  });
  switch (outcome.kind) {
    case 'saved':
      return outcome.isNewBookmark ? 'imported' : 'merged';
    case 'note-full':
      return 'merged';
    case 'note-limit':
      return { limit: outcome.limit };
    default:
      throw new Error(`an import save has no Idempotency-Key, yet answered ${outcome.kind}`);
  }
}
