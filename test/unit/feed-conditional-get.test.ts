import { describe, expect, it } from 'vitest';
import { feedValidators, isNotModified } from '../../functions/core/feed/conditional-get';
import type { Feed, FeedIndexEntry } from '../../functions/core/feed/feed';

const FEED: Feed = {
  id: '5a8b2c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d',
  title: 'Reading',
  description: null,
  author: 'Ann',
  tags: ['reading'],
  match: 'any',
  sharing: 'link',
  updated: null,
};

/** What the tag index tells of the feed's notes, newest first: no titles, no bodies. */
const ENTRIES: FeedIndexEntry[] = [
  {
    noteId: 'aaaaaaaa-0000-4000-8000-000000000001',
    updated: '2026-11-21T12:00:30.250+02:00',
    position: '2026-11-21T12:00:30.250+02:00#aaaaaaaa-0000-4000-8000-000000000001',
  },
  { noteId: 'aaaaaaaa-0000-4000-8000-000000000002', updated: null, position: '#aaaaaaaa-0000-4000-8000-000000000002' },
];

const rss = (entries: readonly FeedIndexEntry[] = ENTRIES, feed: Feed = FEED) => feedValidators(feed, entries, 'rss');

describe('feedValidators', () => {
  it('gives a strong, quoted ETag that is equal for identical input', () => {
    const { etag } = rss();
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(rss(ENTRIES.map((entry) => ({ ...entry }))).etag).toBe(etag);
  });

  it('differs between the JSON and RSS representations', () => {
    expect(feedValidators(FEED, ENTRIES, 'json').etag).not.toBe(rss().etag);
  });

  it.each<[string, (entry: FeedIndexEntry) => FeedIndexEntry]>([
    // Any change of a note (title, body, tags) moves its update time.
    ['update time', (entry) => ({ ...entry, updated: '2026-11-21T12:00:31+02:00' })],
    ['id', (entry) => ({ ...entry, noteId: 'aaaaaaaa-0000-4000-8000-000000000009' })],
  ])('changes when an entry’s %s changes', (_field, change) => {
    expect(rss([change(ENTRIES[0]!), ENTRIES[1]!]).etag).not.toBe(rss().etag);
  });

  it('changes when an entry is added, removed or reordered, or the feed itself changes', () => {
    const etag = rss().etag;
    expect(rss([ENTRIES[0]!]).etag).not.toBe(etag);
    expect(rss([]).etag).not.toBe(etag);
    expect(rss([...ENTRIES].reverse()).etag).not.toBe(etag);
    expect(rss(ENTRIES, { ...FEED, title: 'Renamed' }).etag).not.toBe(etag);
    expect(rss(ENTRIES, { ...FEED, description: 'Now described' }).etag).not.toBe(etag);
    expect(rss(ENTRIES, { ...FEED, author: 'Bob' }).etag).not.toBe(etag);
    expect(rss(ENTRIES, { ...FEED, updated: '2027-01-01T00:00:00Z' }).etag).not.toBe(etag);
  });

  it('dates Last-Modified by the newest entry, or the feed when it changed later or has no entries', () => {
    expect(rss().lastModified).toBe('Sat, 21 Nov 2026 10:00:30 GMT');
    expect(rss(ENTRIES, { ...FEED, updated: '2026-12-24T18:00:00Z' }).lastModified).toBe(
      'Thu, 24 Dec 2026 18:00:00 GMT',
    );
    expect(rss([], { ...FEED, updated: '2026-01-02T03:04:05Z' }).lastModified).toBe('Fri, 02 Jan 2026 03:04:05 GMT');
    expect(rss([ENTRIES[1]!]).lastModified).toBeNull();
  });
});

describe('isNotModified', () => {
  const validators = { etag: '"abc123"', lastModified: 'Sat, 21 Nov 2026 10:00:30 GMT' };

  it('is false without preconditions', () => {
    expect(isNotModified({}, validators)).toBe(false);
  });

  it('If-None-Match: a matching tag means not modified, a different one means modified', () => {
    expect(isNotModified({ ifNoneMatch: '"abc123"' }, validators)).toBe(true);
    expect(isNotModified({ ifNoneMatch: '"abc124"' }, validators)).toBe(false);
    expect(isNotModified({ ifNoneMatch: 'abc123' }, validators)).toBe(false); // unquoted is not an entity-tag
  });

  it('If-None-Match: lists, weak tags and * (weak comparison)', () => {
    expect(isNotModified({ ifNoneMatch: '"x", "abc123" ,"y"' }, validators)).toBe(true);
    expect(isNotModified({ ifNoneMatch: '"x", "y"' }, validators)).toBe(false);
    expect(isNotModified({ ifNoneMatch: 'W/"abc123"' }, validators)).toBe(true);
    expect(isNotModified({ ifNoneMatch: '"abc123"' }, { ...validators, etag: 'W/"abc123"' })).toBe(true);
    expect(isNotModified({ ifNoneMatch: '"a,b", W/"abc123"' }, validators)).toBe(true);
    expect(isNotModified({ ifNoneMatch: '"abc123,x"' }, validators)).toBe(false);
    expect(isNotModified({ ifNoneMatch: '*' }, validators)).toBe(true);
    expect(isNotModified({ ifNoneMatch: ' * ' }, validators)).toBe(true);
  });

  it('If-None-Match wins over If-Modified-Since when both are sent', () => {
    const future = 'Fri, 01 Jan 2100 00:00:00 GMT';
    expect(isNotModified({ ifNoneMatch: '"stale"', ifModifiedSince: future }, validators)).toBe(false);
    const past = 'Thu, 01 Jan 1970 00:00:00 GMT';
    expect(isNotModified({ ifNoneMatch: '"abc123"', ifModifiedSince: past }, validators)).toBe(true);
  });

  it('If-Modified-Since alone: not modified at or after Last-Modified, to the second', () => {
    expect(isNotModified({ ifModifiedSince: 'Sat, 21 Nov 2026 10:00:30 GMT' }, validators)).toBe(true);
    expect(isNotModified({ ifModifiedSince: 'Sun, 22 Nov 2026 00:00:00 GMT' }, validators)).toBe(true);
    expect(isNotModified({ ifModifiedSince: 'Sat, 21 Nov 2026 10:00:29 GMT' }, validators)).toBe(false);
  });

  it('If-Modified-Since compares at second precision against the rendered validators', () => {
    // The newest entry changed at 10:00:30.250; the client's copy is stamped 10:00:30.
    const fromNotes = rss();
    expect(isNotModified({ ifModifiedSince: fromNotes.lastModified! }, fromNotes)).toBe(true);
  });

  it('If-Modified-Since accepts the obsolete HTTP-date forms', () => {
    expect(isNotModified({ ifModifiedSince: 'Saturday, 21-Nov-26 10:00:30 GMT' }, validators)).toBe(true);
    expect(isNotModified({ ifModifiedSince: 'Sat Nov 21 10:00:30 2026' }, validators)).toBe(true);
    expect(isNotModified({ ifModifiedSince: 'Sat Nov 21 10:00:29 2026' }, validators)).toBe(false);
  });

  it('ignores an invalid If-Modified-Since', () => {
    for (const invalid of ['', 'yesterday', '1', '2100-01-01T00:00:00Z', 'Fri, 01 Jan 2100 00:00:00 +0000']) {
      expect(isNotModified({ ifModifiedSince: invalid }, validators)).toBe(false);
    }
  });

  it('is modified when there is no Last-Modified to compare with', () => {
    const undated = { ...validators, lastModified: null };
    expect(isNotModified({ ifModifiedSince: 'Fri, 01 Jan 2100 00:00:00 GMT' }, undated)).toBe(false);
    expect(isNotModified({ ifNoneMatch: '"abc123"' }, undated)).toBe(true);
  });

  it('treats an empty If-None-Match as absent', () => {
    expect(isNotModified({ ifNoneMatch: '', ifModifiedSince: 'Fri, 01 Jan 2100 00:00:00 GMT' }, validators)).toBe(true);
  });
});
