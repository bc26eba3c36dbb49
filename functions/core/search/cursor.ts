/**
 * Search cursors: where the next page starts, bound to the query and mode it pages through, so a
 * cursor from another search is refused instead of paging through the wrong results.
 */
import { createHash } from 'node:crypto';

/** Deepest result a cursor may point at: ranked lists are for reading the top, not for walking everything. */
export const MAX_SEARCH_OFFSET = 1000;

export function encodeSearchCursor(offset: number, boundTo: string): string {
  return Buffer.from(JSON.stringify({ o: offset, q: fingerprint(boundTo) })).toString('base64url');
}

/** The offset a cursor names, or null for a cursor that is malformed or from another search. */
export function decodeSearchCursor(cursor: string, boundTo: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown; q?: unknown };
    const offset = value.o;
    if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 1 || offset > MAX_SEARCH_OFFSET)
      return null;
    return value.q === fingerprint(boundTo) ? offset : null;
  } catch {
    return null;
  }
}

function fingerprint(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}
