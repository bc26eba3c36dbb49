import { isoTimestamp } from '../text/text';
import type { EnrichmentRequest, PageOutcome } from './enrichment';

export interface PendingEnrichment {
  readonly request: EnrichmentRequest;
  readonly sweeps: number;
  readonly pendingSince: string;
}

export interface SweepOutboxPorts {
  readonly bookmarks: {
    /** Requests waiting since before `before`; `pendingSince` is when the save asked for the enrichment. */
    pendingEnrichments(before: string, limitPerShard: number): Promise<PendingEnrichment[]>;
    deferEnrichment(bookmarkId: string, since: string): Promise<void>;
    recordPageOutcome(bookmarkId: string, outcome: PageOutcome): Promise<void>;
  };
  readonly enrichment: { publish(request: EnrichmentRequest): Promise<void> };
  /** Requests younger than this are left alone: their first delivery may still be under way. */
  readonly graceSeconds: number;
  readonly now: () => Date;
}

/** Times a request is re-published before the bookmark is marked as not enriched for good. */
export const MAX_OUTBOX_SWEEPS = 12;
const SWEEP_BATCH_PER_SHARD = 25;

/**
 * The outbox sweep: every bookmark still awaiting enrichment a while after its save (its publish
 * failed, or its messages were lost) is published again; the workers are idempotent.
 */
export interface SweepResult {
  readonly republished: number;
  readonly abandoned: number;
  /** Age of the oldest request the sweep found still waiting (0 when none): what the outbox alarm watches. */
  readonly oldestPendingSeconds: number;
}

export async function sweepOutbox(ports: SweepOutboxPorts): Promise<SweepResult> {
  const now = ports.now();
  const before = isoTimestamp(new Date(now.getTime() - ports.graceSeconds * 1000));
  const pending = await ports.bookmarks.pendingEnrichments(before, SWEEP_BATCH_PER_SHARD);
  let republished = 0;
  let abandoned = 0;
  const oldest = Math.min(
    now.getTime(),
    ...pending.map(({ pendingSince }) => Date.parse(pendingSince)).filter((ms) => !Number.isNaN(ms)),
  );
  for (const { request, sweeps } of pending) {
    if (sweeps >= MAX_OUTBOX_SWEEPS) {
      await ports.bookmarks.recordPageOutcome(request.bookmarkId, {
        status: 'failed',
        reason: 'enrichment did not complete',
      });
      abandoned++;
      continue;
    }
    await ports.enrichment.publish(request);
    await ports.bookmarks.deferEnrichment(request.bookmarkId, isoTimestamp(now));
    republished++;
  }
  return { republished, abandoned, oldestPendingSeconds: Math.round((now.getTime() - oldest) / 1000) };
}

export interface ArticleBackfillPorts {
  readonly bookmarks: {
    /** Bookmarks waiting for their page fetch, at most `limit`. */
    queuedArticleFetches(limit: number): Promise<string[]>;
    /** Takes one off the list once its fetch is queued. */
    articleFetchQueued(bookmarkId: string): Promise<void>;
  };
  readonly enrichment: { publish(request: EnrichmentRequest): Promise<void> };
}

/**
 * The article backfill's step, run by each sweep: queues the page fetch (keep the article only) of
 * at most `limit` bookmarks saved before articles were kept, so old notes are fetched at a bounded
 * rate. Published before taken off the list: a crash between queues that one again, which is
 * harmless (keeping an article twice stores the same copy).
 */
export async function queueArticleBackfill(ports: ArticleBackfillPorts, limit: number): Promise<number> {
  if (limit <= 0) return 0;
  const waiting = await ports.bookmarks.queuedArticleFetches(limit);
  for (const bookmarkId of waiting) {
    await ports.enrichment.publish({ bookmarkId, scrapeDescription: false, fetchIcon: false, article: true });
    await ports.bookmarks.articleFetchQueued(bookmarkId);
  }
  return waiting.length;
}
