import * as z from 'zod/mini';

/**
 * Background enrichment after a save, the shared vocabulary: the queue messages, fetch outcomes and
 * retry rules. The steps live beside it, one module each so every worker bundles only its own:
 * page-enrichment.ts (page worker), favicon.ts (favicon worker), enrichment-outbox.ts (sweeper).
 * All are idempotent: a message processed twice changes nothing more.
 */

/**
 * What a save asks the page worker to do (the enrichment queue's message): intent only. The worker
 * reads the bookmark (its URL and note) when it runs, so a message never carries stale copies.
 */
export interface EnrichmentRequest {
  readonly bookmarkId: string;
  /** The save omitted the description: scrape it from the page into the note. */
  readonly scrapeDescription: boolean;
  /** The site's favicon is not known yet. */
  readonly fetchIcon: boolean;
  /** Keep the page's article only, also on a bookmark already enriched (Fetch again, the migration). */
  readonly article?: boolean;
}

/** What the page worker asks the favicon worker to do (the favicon queue's message). */
export interface FaviconRequest {
  readonly bookmarkId: string;
  readonly host: string;
  /** Absolute icon URLs, best first; the page's origin `/favicon.ico` last. */
  readonly candidates: readonly string[];
}

/** A fetch through the safe fetcher, as the domain sees it: a response, or why there is none. */
export type FetchOutcome =
  | {
      readonly ok: true;
      readonly url: string;
      readonly status: number;
      readonly contentType: string | null;
      readonly body: Buffer;
      readonly truncated: boolean;
    }
  | { readonly ok: false; readonly retryable: boolean; readonly reason: string };

export type PageOutcome = { readonly status: 'done' } | { readonly status: 'failed'; readonly reason: string };

/** A failure worth another attempt later; the worker backs off and lets the queue redeliver. */
export class RetryLaterError extends Error {}

export interface Attempt {
  /** 1 on the first delivery of the message. */
  readonly number: number;
  /** Attempts after which a transient failure becomes the final outcome. */
  readonly max: number;
}

/** A server's way of saying "not now": worth another attempt, unlike 404 and other client errors. */
export function isTransientStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** A site's favicon fetched within the refresh period is reused rather than fetched again. */
export function isFresh(fetchedAt: string | null, refreshMs: number, now: Date): boolean {
  return fetchedAt !== null && now.getTime() - Date.parse(fetchedAt) < refreshMs;
}

/** Seconds to wait before the next attempt: exponential, capped at SQS's 12-hour visibility maximum. */
export function retryDelaySeconds(attempt: number, baseSeconds: number): number {
  return Math.min(12 * 60 * 60, Math.round(baseSeconds * 2 ** (attempt - 1)));
}

// Unknown keys are dropped: messages queued before requests carried intent only still parse.
const enrichmentRequestSchema = z.object({
  bookmarkId: z.string(),
  scrapeDescription: z.boolean(),
  fetchIcon: z.boolean(),
  article: z.optional(z.boolean()),
});

const faviconRequestSchema = z.object({
  bookmarkId: z.string(),
  host: z.string(),
  candidates: z.array(z.string()),
});

export const parseEnrichmentRequest = (body: string): EnrichmentRequest =>
  enrichmentRequestSchema.parse(JSON.parse(body));
export const parseFaviconRequest = (body: string): FaviconRequest => faviconRequestSchema.parse(JSON.parse(body));
