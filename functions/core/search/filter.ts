/**
 * The engine's filter (an SQL predicate, applied inside the query before ranking and paging), built
 * only from values of a checked shape: a UUID, hex digests, ASCII host names, integers. A value of any
 * other shape throws instead of reaching the predicate, so no user text can change its meaning.
 */
import { siteKeys, stateKey, tagKey } from './document';
import type { SearchQuery } from './query';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX = /^[0-9a-f]{16,64}$/;
const HOST = /^[a-z0-9.-]{1,253}$/;

export class UnsafeFilterValueError extends Error {}

export function isUserId(value: string): boolean {
  return UUID.test(value);
}

/** A single-quoted SQL string of a value that matched `shape` (which admits no quote). */
function literal(value: string, shape: RegExp): string {
  if (!shape.test(value)) throw new UnsafeFilterValueError(`refusing a filter value of unexpected shape`);
  return `'${value}'`;
}

function integer(value: number): string {
  if (!Number.isSafeInteger(value)) throw new UnsafeFilterValueError('refusing a non-integer filter value');
  return String(value);
}

/** Every row of this user, tombstones included. */
export function userRowsFilter(userId: string): string {
  return `user_id = ${literal(userId.toLowerCase(), UUID)}`;
}

/** Live notes of this user only: every query starts from this. */
export function userFilter(userId: string): string {
  return `${userRowsFilter(userId)} AND deleted = false`;
}

/** The user's notes that pass the query's filters (tags, sites, dates, highlights, reading states). */
export function queryFilter(userId: string, query: SearchQuery): string {
  const clauses = [userFilter(userId)];
  for (const tag of query.tags) clauses.push(`array_has(tag_keys, ${literal(tagKey(tag), HEX)})`);
  for (const tag of query.excludedTags) clauses.push(`NOT array_has(tag_keys, ${literal(tagKey(tag), HEX)})`);
  if (query.sites.length > 0) {
    // siteKeys of a site the user named is the site itself first; its parents would widen the filter.
    const any = query.sites.map((site) => `array_has(sites, ${literal(siteKeys(site)[0]!, HOST)})`);
    clauses.push(`(${any.join(' OR ')})`);
  }
  if (query.after !== null) clauses.push(`created >= ${integer(query.after)}`);
  if (query.before !== null) clauses.push(`created < ${integer(query.before)}`);
  if (query.hasHighlight) clauses.push('highlight_count > 0');
  for (const state of ['archived', 'starred'] as const) {
    if (query[state] === null) continue;
    const held = `array_has(tag_keys, ${literal(stateKey(state), HEX)})`;
    clauses.push(query[state] ? held : `NOT ${held}`);
  }
  return clauses.join(' AND ');
}

/** The user's note saved under this normalised URL's key. */
export function urlKeyFilter(userId: string, key: string): string {
  return `${userFilter(userId)} AND url_key = ${literal(key, HEX)}`;
}

/** Rows holding exactly these versions of these notes. */
export function noteVersionsFilter(versions: readonly { noteId: string; version: number }[]): string {
  if (versions.length === 0) return 'false';
  return versions
    .map(
      ({ noteId, version }) => `(note_id = ${literal(noteId.toLowerCase(), UUID)} AND version = ${integer(version)})`,
    )
    .join(' OR ');
}

/** Rows with these note ids (each a UUID). */
export function noteIdsFilter(noteIds: readonly string[]): string {
  if (noteIds.length === 0) return 'false';
  return `note_id IN (${noteIds.map((id) => literal(id.toLowerCase(), UUID)).join(', ')})`;
}

/** The note ids' space as positions: a note id's first 8 hex digits, 0 to 2³². */
export const NOTE_ID_POSITIONS = 2 ** 32;

/** A note id's position in that space (where a watermark that passed it stands). */
export function noteIdPosition(noteId: string): number {
  return Number.parseInt(noteId.slice(0, 8), 16);
}

/** Live rows whose note id's position is in [from, to): a watermark's step, a range lookup on the note_id index. */
export function noteIdRangeFilter(from: number, to: number): string {
  const bound = (position: number) => literal(Number(integer(position)).toString(16).padStart(8, '0'), /^[0-9a-f]{8}$/);
  const range = [
    from > 0 ? `note_id >= ${bound(from)}` : null,
    to < NOTE_ID_POSITIONS ? `note_id < ${bound(to)}` : null,
  ];
  return ['deleted = false', ...range.filter(Boolean)].join(' AND ');
}
