import * as fc from 'fast-check';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import type { Feed, FeedNote } from '../../functions/core/feed/feed';
import { renderRss } from '../../functions/core/feed/rss';
import { extractHashtags } from '../../functions/core/save/hashtags';
import { normalizeUrl, parseBookmarkUrl } from '../../functions/core/save/url';
import { markdownToPlainText } from '../../functions/core/text/markdown-text';

/** Properties of the pure core over generated input: no exception, idempotence, well-formed output. */

const RUNS = { numRuns: 300, seed: Number(process.env.FUZZ_SEED ?? 20261123) };
const anyText = fc.string({ unit: 'binary', maxLength: 300 });

describe('normalizeUrl', () => {
  const urls = fc.oneof(
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc.string({ maxLength: 200 }).map((path) => `https://Example.COM:443/${path}`),
  );

  it('never throws, and a normalised URL normalises to itself', () => {
    fc.assert(
      fc.property(urls, (input) => {
        const parsed = parseBookmarkUrl(input);
        if (!parsed.ok) return;
        const once = normalizeUrl(parsed.url);
        const again = parseBookmarkUrl(once);
        expect(again.ok).toBe(true);
        if (again.ok) expect(normalizeUrl(again.url)).toBe(once);
        expect(once).not.toContain('#');
      }),
      RUNS,
    );
  });
});

describe('extractHashtags', () => {
  it('never throws; tags are lower-case, unique, not purely numeric, and found again in their own hashtags', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const tags = extractHashtags(text);
        expect(new Set(tags).size).toBe(tags.length);
        for (const tag of tags) {
          expect(tag).toBe(tag.toLowerCase());
          expect(tag).not.toMatch(/^\d+$/);
        }
        expect(extractHashtags(tags.map((tag) => `#${tag}`).join(' '))).toEqual(tags);
      }),
      RUNS,
    );
  });
});

describe('markdownToPlainText', () => {
  it('never throws and only takes away: every character it writes was in the Markdown, or is white space', () => {
    fc.assert(
      fc.property(anyText, (markdown) => {
        const written = new Set(markdown);
        for (const char of markdownToPlainText(markdown)) if (!/\s/.test(char)) expect(written).toContain(char);
      }),
      RUNS,
    );
  });

  it('leaves plain prose as it is, but for the white space around it', () => {
    // A letter first: a line starting with `-`, `#` or a digit and `.` could be a list or a heading.
    const prose = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ,.;:'"?!()-]{0,200}$/);
    fc.assert(
      fc.property(prose, (text) => {
        expect(markdownToPlainText(text)).toBe(text.trim());
      }),
      RUNS,
    );
  });
});

describe('renderRss', () => {
  function parsesStrictly(xml: string): void {
    const parser = new SaxesParser({ xmlns: true });
    parser.on('error', (error) => {
      throw error;
    });
    parser.write(xml).close();
  }

  it('is well-formed XML whatever the feed and notes hold', () => {
    fc.assert(
      fc.property(
        anyText,
        anyText,
        fc.array(fc.tuple(anyText, anyText, fc.array(anyText, { maxLength: 3 })), { maxLength: 4 }),
        (title, description, notes) => {
          const feed: Feed = {
            id: 'f',
            title,
            description,
            author: title,
            tags: ['t'],
            match: 'any',
            sharing: 'public',
            updated: null,
          };
          const entries: FeedNote[] = notes.map(([noteTitle, body, tags], index) => ({
            id: `n${index}`,
            title: noteTitle,
            body,
            tags,
            url: index % 2 ? `https://example.com/${encodeURIComponent(noteTitle)}` : null,
            updated: '2026-11-20T10:00:00+00:00',
            created: '2026-11-20T10:00:00+00:00',
          }));
          parsesStrictly(
            renderRss(feed, entries, {
              selfUrl: 'https://g.example/rss?a=1&b=2',
              siteUrl: 'https://g.example/',
              entryLink: (note) => `https://g.example/n/${note.id}`,
            }),
          );
        },
      ),
      RUNS,
    );
  });
});
