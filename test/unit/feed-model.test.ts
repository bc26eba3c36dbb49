import { describe, expect, it } from 'vitest';
import {
  buildPublishedFeed,
  type Feed,
  type FeedNote,
  formatRfc822,
  lastChangedAt,
  sortNewestFirst,
} from '../../functions/core/feed/feed';
import { renderRss } from '../../functions/core/feed/rss';
import { sanitizeText } from '../../functions/core/text/text';

const feed: Feed = {
  id: '0b5c3a52-7a55-4a1c-9a39-2f3f1f0d9c11',
  title: 'Reading list',
  description: 'Things worth reading',
  author: 'Ann Example',
  tags: ['Reading', 'web'],
  match: 'any',
  sharing: 'public',
  updated: null,
};

function note(id: string, updated: string | null, tags: string[] = ['reading']): FeedNote {
  return {
    id,
    title: `Note ${id}`,
    body: `Body of **${id}**`,
    tags,
    url: null,
    updated,
    created: '2026-01-01T00:00:00Z',
  };
}

describe('sortNewestFirst', () => {
  it('orders by instant (not by string), undated last, ties by id', () => {
    const notes = [
      note('c', null),
      note('b', '2026-11-21T12:00:00+02:00'), // 10:00Z
      note('a', '2026-11-21T11:00:00Z'),
      note('e', '2026-11-21T10:00:00Z'), // same instant as b
      note('d', null),
      note('f', 'not a date'),
    ];
    expect(sortNewestFirst(notes).map((n) => n.id)).toEqual(['a', 'b', 'e', 'c', 'd', 'f']);
  });

  it('does not reorder its input', () => {
    const notes = [note('a', null), note('b', '2026-01-01T00:00:00Z')];
    sortNewestFirst(notes);
    expect(notes.map((n) => n.id)).toEqual(['a', 'b']);
  });
});

describe('buildPublishedFeed', () => {
  const rssUrl = `https://gleaner.example/api/v2/publisher/feeds/${feed.id}/rss`;

  it('has exactly the PublishedFeed and FeedEntry fields of the spec', () => {
    const published = buildPublishedFeed(feed, [note('n1', '2026-11-21T10:30:00Z')], { rssUrl });
    expect(Object.keys(published).sort()).toEqual(['author', 'description', 'entries', 'id', 'rss_url', 'title']);
    expect(published).toEqual({
      id: feed.id,
      title: 'Reading list',
      description: 'Things worth reading',
      author: 'Ann Example',
      rss_url: rssUrl,
      entries: [{ id: 'n1', title: 'Note n1', text: 'Body of n1', updated: '2026-11-21T10:30:00Z' }],
    });
    expect(Object.keys(published.entries[0]!).sort()).toEqual(['id', 'text', 'title', 'updated']);
  });

  it('keeps a null description and an empty author, and orders entries newest first with legacy ones last', () => {
    const published = buildPublishedFeed(
      { ...feed, description: null, author: '' },
      [note('legacy', null), note('older', '2026-01-01T00:00:00Z'), note('newer', '2026-02-01T00:00:00Z')],
      { rssUrl },
    );
    expect(published.description).toBeNull();
    expect(published.author).toBe('');
    expect(published.entries.map((e) => [e.id, e.updated])).toEqual([
      ['newer', '2026-02-01T00:00:00Z'],
      ['older', '2026-01-01T00:00:00Z'],
      ['legacy', null],
    ]);
  });

  it('turns the Markdown body into plain text', () => {
    const body = 'Source: [A \\[b\\] c](https://example.com/x)\n\n> quoted *line*';
    const [entry] = buildPublishedFeed(feed, [{ ...note('n', null), body }], { rssUrl }).entries;
    expect(entry!.text).toBe('Source: A [b] c (https://example.com/x)\n\nquoted line');
  });
});

describe('sanitizeText', () => {
  it('removes C0 controls but tab, LF and CR, DEL, C1 controls, U+FFFE/U+FFFF, lone surrogates and U+FFFD', () => {
    expect(sanitizeText('a\u0000b\u001b[31mred\u007f\u0085\u009f\uFFFEc')).toBe('ab[31mredc');
    expect(sanitizeText('x\uD800y\uDFFFz\uDC00\uD800 \uFFFD.')).toBe('xyz .');
    const kept = 'tab\t lf\n cr\r \u00A0 \uD7FF \uE000 \uFFFC 😀 \u{10FFFF} \u202Eevil\u202C';
    expect(sanitizeText(kept)).toBe(kept);
  });

  it('is what the JSON feed and the RSS feed both show', () => {
    const hostile = 'Red \u001b[31malert\u0000 \u0085\uD800 end';
    const shown = 'Red [31malert  end';
    const published = buildPublishedFeed(
      { ...feed, title: hostile, description: hostile, author: hostile },
      [{ ...note('n', null), title: hostile, body: hostile }],
      { rssUrl: 'https://gleaner.example/rss' },
    );
    expect(published).toMatchObject({
      title: shown,
      description: shown,
      author: shown,
      entries: [{ title: shown, text: shown }],
    });
    const rss = renderRss({ ...feed, title: hostile }, [{ ...note('n', null), title: hostile }], {
      selfUrl: 'https://gleaner.example/rss',
      siteUrl: 'https://gleaner.example/rss',
      entryLink: () => 'https://gleaner.example/n',
    });
    expect(rss).toContain(`<title>${shown}</title>`);
  });
});

describe('lastChangedAt', () => {
  it('is the newest of the notes and the feed itself, ignoring undated and unparseable values', () => {
    const notes = [note('a', '2026-01-01T00:00:00Z'), note('b', null), note('c', 'garbage')];
    expect(lastChangedAt(notes, { updated: null })).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(lastChangedAt(notes, { updated: '2026-05-01T00:00:00+02:00' })).toBe(Date.parse('2026-04-30T22:00:00Z'));
    expect(lastChangedAt(notes, { updated: '2025-01-01T00:00:00Z' })).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(lastChangedAt([note('b', null)], { updated: null })).toBeNull();
  });
});

describe('formatRfc822', () => {
  it.each([
    ['2026-11-21T12:00:00+02:00', 'Sat, 21 Nov 2026 10:00:00 GMT'],
    ['2026-11-21T10:30:00Z', 'Sat, 21 Nov 2026 10:30:00 GMT'],
    ['2026-11-21T10:30:00.999Z', 'Sat, 21 Nov 2026 10:30:00 GMT'],
    ['2026-01-01T01:30:00+05:30', 'Wed, 31 Dec 2025 20:00:00 GMT'],
    ['2024-02-29T23:59:59-08:00', 'Fri, 01 Mar 2024 07:59:59 GMT'],
  ])('%s → %s', (iso, expected) => {
    expect(formatRfc822(Date.parse(iso))).toBe(expected);
  });
});
