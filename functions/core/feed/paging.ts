/**
 * Paging of the Atom and JSON Feed representations: `?limit=` entries per page and an opaque
 * `?cursor=` for the older ones (JSON Feed `next_url`, Atom RFC 5005 `rel="next"`). Pure.
 *
 * A cursor names the feed and the position of the last entry served; the next page starts below it
 * in the feed's order (newest first). A note changed meanwhile moves to the top, where a reader
 * refreshing the first page finds it; it is never served twice down the pages.
 */
import type { ValidationIssue } from '../contract/validation';

export const FEED_PAGE_LIMIT = { default: 50, min: 1, max: 100 } as const;

export interface FeedPage {
  readonly limit: number;
  /** The cursor the request named, null for the first page. */
  readonly cursor: string | null;
  /** Entries below this position only; null for the first page. */
  readonly before: string | null;
}

type Query = Readonly<Record<string, string | undefined>> | null | undefined;

export function parseFeedPage(
  query: Query,
  feedId: string,
): { ok: true; page: FeedPage } | { ok: false; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const limitText = query?.limit;
  let limit: number = FEED_PAGE_LIMIT.default;
  if (limitText !== undefined) {
    limit = /^\d{1,4}$/.test(limitText) ? Number(limitText) : Number.NaN;
    if (!Number.isInteger(limit)) {
      issues.push({
        loc: ['query', 'limit'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        type: 'int_parsing',
      });
    } else if (limit < FEED_PAGE_LIMIT.min) {
      issues.push({
        loc: ['query', 'limit'],
        msg: `Input should be greater than or equal to ${FEED_PAGE_LIMIT.min}`,
        type: 'greater_than_equal',
        ctx: { ge: FEED_PAGE_LIMIT.min },
      });
    } else if (limit > FEED_PAGE_LIMIT.max) {
      issues.push({
        loc: ['query', 'limit'],
        msg: `Input should be less than or equal to ${FEED_PAGE_LIMIT.max}`,
        type: 'less_than_equal',
        ctx: { le: FEED_PAGE_LIMIT.max },
      });
    }
  }
  const cursor = query?.cursor;
  const before = cursor === undefined ? null : cursorPosition(cursor, feedId);
  if (before === undefined)
    issues.push({ loc: ['query', 'cursor'], msg: 'Not a cursor this feed gave out', type: 'value_error' });
  return issues.length
    ? { ok: false, issues }
    : { ok: true, page: { limit, cursor: cursor ?? null, before: before ?? null } };
}

/** How many entries to read for a page: one more than it shows, to know whether an older page follows. */
export function entriesToRead(page: FeedPage | null, unpagedMax: number): number {
  return page ? page.limit + 1 : unpagedMax;
}

/** The entries a page shows of those read for it (`entriesToRead`), and the cursor of the next page when one follows. */
export function pageOfEntries<Entry extends { readonly position: string }>(
  feedId: string,
  read: readonly Entry[],
  page: FeedPage | null,
): { entries: readonly Entry[]; nextCursor: string | null } {
  if (!page || read.length <= page.limit) return { entries: read, nextCursor: null };
  const entries = read.slice(0, page.limit);
  return { entries, nextCursor: feedPageCursor(feedId, entries.at(-1)!.position) };
}

/** The cursor of the page after an entry at `position` of feed `feedId`. */
export function feedPageCursor(feedId: string, position: string): string {
  return Buffer.from(JSON.stringify({ f: feedId, p: position })).toString('base64url');
}

/** The position a cursor of this feed names; undefined for anything else. */
function cursorPosition(cursor: string, feedId: string): string | undefined {
  try {
    const { f, p } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { f?: unknown; p?: unknown };
    return f === feedId && typeof p === 'string' && p !== '' ? p : undefined;
  } catch {
    return undefined;
  }
}

/** The address of a page of `limit` entries from `cursor`: the representation's own, plus what differs from the first page. */
export function feedPageUrl(baseUrl: string, limit: number, cursor: string | null): string {
  const query = new URLSearchParams();
  if (limit !== FEED_PAGE_LIMIT.default) query.set('limit', String(limit));
  if (cursor) query.set('cursor', cursor);
  const text = query.toString();
  return text ? `${baseUrl}?${text}` : baseUrl;
}
