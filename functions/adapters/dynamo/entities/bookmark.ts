import * as z from 'zod/mini';
import type { ArticleRecord } from '../../../core/article/article';
import type { EnrichmentRequest } from '../../../core/enrich/enrichment';
import type { Bookmark } from '../../../core/model';
import { keys } from '../keys';
import { itemCodec } from './codec';

/**
 * The bookmark entity. A bookmark whose enrichment has not completed is also in the enrichment outbox
 * (an index entry by when it began to wait) and keeps what is to be done; the request is rebuilt from it.
 */
export function bookmarkItem(
  bookmark: Bookmark,
  enrichment: EnrichmentRequest | null,
  backlog: ImportBacklog | null = null,
) {
  const intent = enrichment && { scrapeDescription: enrichment.scrapeDescription, fetchIcon: enrichment.fetchIcon };
  // An import's bookmarks wait in the import backlog instead, from which the sweeper releases a bounded batch.
  const waiting = backlog
    ? { ...keys.importBacklog(bookmark.id, backlog.since), importId: backlog.importId }
    : keys.enrichmentOutbox(bookmark.id, bookmark.created);
  const outbox = intent ? { ...waiting, enrichment: intent, pageStatus: 'pending' } : {};
  return { ...keys.bookmark(bookmark.id), type: 'Bookmark', ...bookmark, ...outbox };
}

/** Where an import's new bookmarks wait for their enrichment: the import, and since when. */
export interface ImportBacklog {
  readonly importId: string;
  readonly since: string;
}

const decodeBookmark = itemCodec('Bookmark', () =>
  z.object({
    id: z.string(),
    userId: z.string(),
    noteId: z.string(),
    title: z.string(),
    url: z.string(),
    normalizedUrl: z.string(),
    icon: z.nullish(z.string()),
    created: z.string(),
    updated: z.string(),
    pageStatus: z.nullish(z.string()),
    // The page worker's record of the kept article (its own module describes it); an object when present.
    article: z.nullish(z.looseObject({ status: z.string() })),
    enrichment: z.optional(z.object({ scrapeDescription: z.boolean(), fetchIcon: z.boolean() })),
    sweeps: z.optional(z.number()),
    /** When it entered the outbox, when that was not its creation (an imported bookmark, released from the backlog). */
    outboxSince: z.optional(z.string()),
    importId: z.optional(z.string()),
  }),
);

export type StoredBookmark = Bookmark & { pageStatus: string | null; article: ArticleRecord | null };

/** A bookmark item as the domain's bookmark, with its page status and kept article; MalformedItemError when it is not one. */
export function readBookmark(item: Record<string, unknown>): StoredBookmark {
  const stored = decodeBookmark(item);
  return {
    pageStatus: stored.pageStatus ?? null,
    article: (stored.article as ArticleRecord | null | undefined) ?? null,
    id: stored.id,
    userId: stored.userId,
    noteId: stored.noteId,
    title: stored.title,
    url: stored.url,
    normalizedUrl: stored.normalizedUrl,
    icon: stored.icon ?? null,
    created: stored.created,
    updated: stored.updated,
  };
}

/** A bookmark of the enrichment outbox: the request it waits for, how often it was swept, and since when. */
export function readPendingEnrichment(item: Record<string, unknown>) {
  const stored = decodeBookmark(item);
  if (!stored.enrichment) throw new Error(`Bookmark ${stored.id} is in the enrichment outbox without its request`);
  const request: EnrichmentRequest = {
    bookmarkId: stored.id,
    scrapeDescription: stored.enrichment.scrapeDescription,
    fetchIcon: stored.enrichment.fetchIcon,
  };
  // A bookmark enters the outbox when it is created (bookmarkItem), or an imported one when it is released.
  return { request, sweeps: stored.sweeps ?? 0, pendingSince: stored.outboxSince ?? stored.created };
}

/** A bookmark of the import backlog: its request, and the import whose waiting count it is in. */
export function readImportWaiting(item: Record<string, unknown>) {
  const { request } = readPendingEnrichment(item);
  const stored = decodeBookmark(item);
  return { request, userId: stored.userId, importId: stored.importId ?? '' };
}
