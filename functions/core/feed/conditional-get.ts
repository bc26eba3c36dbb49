/**
 * Conditional GET for feed readers (RFC 9110 §13): validators for a feed representation, and whether
 * a request's preconditions allow answering 304 Not Modified. Pure apart from hashing.
 *
 * - `feedValidators(feed, entries, variant, page?): FeedValidators` — from the feed and its index entries
 *   alone, so a handler answers 304 without reading a note or rendering.
 * - `isNotModified(request: ConditionalRequest, validators): boolean`
 *
 * The ETag covers what changes the answer: the feed's settings and author, and which notes it lists
 * and when each last changed (every change of a note moves its update time); not the deployment's
 * own URLs (`rss_url`, self/site links), which do not vary between requests.
 */
import { createHash } from 'node:crypto';
import { type Feed, type FeedIndexEntry, formatRfc822, lastChangedAt } from './feed';

export type FeedVariant = 'json' | 'rss' | 'html' | 'atom' | 'jsonfeed';

export interface FeedValidators {
  /** Strong entity-tag, quoted, e.g. `"3q2-7wE…"`. */
  readonly etag: string;
  /** HTTP-date of the newest change, or null when nothing is dated (then send no Last-Modified). */
  readonly lastModified: string | null;
}

/** The request's precondition headers, absent when not sent. */
export interface ConditionalRequest {
  readonly ifNoneMatch?: string;
  readonly ifModifiedSince?: string;
}

/** Bump when the renderers change their output for the same input, so cached copies revalidate. */
const RENDERING_REVISION = 2;
/** 22 base64url characters: 132 bits of SHA-256. */
const ETAG_LENGTH = 22;

/** `page`: what sets a paged representation's page apart (limit, position, next cursor); null when not paged. */
export function feedValidators(
  feed: Feed,
  entries: readonly FeedIndexEntry[],
  variant: FeedVariant,
  page: unknown = null,
): FeedValidators {
  const fingerprint = JSON.stringify([
    RENDERING_REVISION,
    variant,
    page,
    [feed.id, feed.title, feed.description, feed.author, feed.tags, feed.match, feed.items ?? 'notes', feed.updated],
    entries.map((entry) => [entry.noteId, entry.updated]),
  ]);
  const lastChange = lastChangedAt(entries, feed);
  return { etag: entityTagOf(fingerprint), lastModified: lastChange === null ? null : formatRfc822(lastChange) };
}

/** A strong entity-tag for `content`: what it is made from, or a representation itself when it is cheap to make. */
export function entityTagOf(content: string): string {
  return `"${createHash('sha256').update(content).digest('base64url').slice(0, ETAG_LENGTH)}"`;
}

/**
 * RFC 9110 §13.2.2: If-None-Match decides whenever it is sent; If-Modified-Since counts only
 * without it, and is ignored when it is not a valid HTTP-date.
 */
export function isNotModified(request: ConditionalRequest, validators: FeedValidators): boolean {
  if (request.ifNoneMatch !== undefined && request.ifNoneMatch.trim() !== '') {
    return matchesEntityTag(request.ifNoneMatch, validators.etag);
  }
  if (request.ifModifiedSince !== undefined && validators.lastModified !== null) {
    return unmodifiedSince(request.ifModifiedSince, validators.lastModified);
  }
  return false;
}

const ENTITY_TAG = /(?:W\/)?"([^"]*)"/g;

/** Weak comparison (§8.8.3.2): `W/` is ignored on both sides; `*` matches the current representation. */
function matchesEntityTag(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  const current = opaqueTags(etag)[0];
  return current !== undefined && opaqueTags(ifNoneMatch).includes(current);
}

/** The quoted parts of an entity-tag list; a comma inside quotes belongs to the tag. */
function opaqueTags(list: string): string[] {
  return Array.from(list.matchAll(ENTITY_TAG), (match) => match[1]!);
}

/** HTTP-dates have one-second precision, so a resource changed within the same second is unmodified. */
function unmodifiedSince(ifModifiedSince: string, lastModified: string): boolean {
  const since = parseHttpDate(ifModifiedSince);
  const modified = parseHttpDate(lastModified);
  return since !== null && modified !== null && Math.floor(modified / 1000) <= Math.floor(since / 1000);
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
const IMF_FIXDATE = new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^${DAY}[a-z]*, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`);

/**
 * The three HTTP-date forms recipients must accept (§5.6.7), as epoch ms; anything else is null
 * rather than whatever `Date.parse` would guess.
 */
function parseHttpDate(value: string): number | null {
  const text = value.trim();
  let ms = Number.NaN;
  if (IMF_FIXDATE.test(text) || RFC850_DATE.test(text)) ms = Date.parse(text);
  else if (ASCTIME_DATE.test(text)) ms = Date.parse(`${text} GMT`); // asctime carries no zone; it is UTC
  return Number.isNaN(ms) ? null : ms;
}
