import * as z from 'zod/mini';
import type { ArticleRecord } from '../../../core/article/article';
import type { EnrichmentRequest } from '../../../core/enrich/enrichment';
import type { Bookmark } from '../../../core/model';
import { keys } from '../keys';
import { decodeItem } from './codec';

/**
 * The bookmark entity. A bookmark whose enrichment has not completed is also in the enrichment outbox
 * (an index entry by when it began to wait) and keeps what is to be done; the request is rebuilt from it.
 */
export function bookmarkItem(bookmark: Bookmark, enrichment: EnrichmentRequest | null) {
  const intent = enrichment && { scrapeDescription: enrichment.scrapeDescription, fetchIcon: enrichment.fetchIcon };
  const outbox = intent
    ? { ...keys.enrichmentOutbox(bookmark.id, bookmark.created), enrichment: intent, pageStatus: 'pending' }
    : {};
  return { ...keys.bookmark(bookmark.id), type: 'Bookmark', ...bookmark, ...outbox };
}

const bookmarkSchema = z.object({
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
});

export type StoredBookmark = Bookmark & { pageStatus: string | null; article: ArticleRecord | null };

/** A bookmark item as the domain's bookmark, with its page status and kept article; MalformedItemError when it is not one. */
export function readBookmark(item: Record<string, unknown>): StoredBookmark {
  const stored = decodeItem('Bookmark', bookmarkSchema, item);
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
  const stored = decodeItem('Bookmark', bookmarkSchema, item);
  if (!stored.enrichment) throw new Error(`Bookmark ${stored.id} is in the enrichment outbox without its request`);
  const request: EnrichmentRequest = {
    bookmarkId: stored.id,
    scrapeDescription: stored.enrichment.scrapeDescription,
    fetchIcon: stored.enrichment.fetchIcon,
  };
  // A bookmark enters the outbox when it is created (bookmarkItem), so that is when its request began to wait.
  return { request, sweeps: stored.sweeps ?? 0, pendingSince: stored.created };
}
