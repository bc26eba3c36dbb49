import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import type { Feed, FeedNote } from '../../functions/core/feed/feed';
import {
  embedSnippet,
  type FeedPageLinks,
  renderFeedNotFoundPage,
  renderFeedPage,
} from '../../functions/core/feed/page';

const HOSTILE = `</title><script>alert(1)</script><img src=x onerror=alert(2)> "q" 'a' & &amp;`;
const FEED: Feed = {
  id: 'f',
  title: HOSTILE,
  description: HOSTILE,
  author: HOSTILE,
  tags: ['t'],
  match: 'any',
  sharing: 'public',
  updated: null,
};
const LINKS: FeedPageLinks = {
  page: 'https://g.example/feeds/f',
  json: 'https://g.example/api/v2/publisher/feeds/f/public',
  rss: 'https://g.example/api/v2/publisher/feeds/f/rss',
  atom: 'https://g.example/feeds/f/atom',
  jsonFeed: 'https://g.example/feeds/f/feed.json',
  embedScript: 'https://g.example/feeds/embed.js',
};
const note = (overrides: Partial<FeedNote>): FeedNote => ({
  id: 'n1',
  title: 'Title',
  body: 'Text',
  tags: ['t'],
  url: 'https://example.com/a',
  updated: '2026-11-20T10:00:00+00:00',
  created: '2026-11-20T10:00:00+00:00',
  ...overrides,
});

describe('renderFeedPage', () => {
  it('escapes hostile feed and note text everywhere: no element or attribute comes from user text', () => {
    const html = renderFeedPage(
      FEED,
      [note({ title: HOSTILE, body: `> ${HOSTILE}\n\n${HOSTILE}`, tags: [HOSTILE] })],
      LINKS,
    );
    const { document } = parseHTML(html);
    expect(document.querySelectorAll('img')).toHaveLength(0);
    // The page's own copy script only.
    expect(document.querySelectorAll('script')).toHaveLength(1);
    expect(document.querySelector('title')?.textContent).toBe(HOSTILE);
    expect(document.querySelector('h1')?.textContent).toBe(HOSTILE);
    expect(document.querySelector('meta[property="og:title"]')?.getAttribute('content')).toBe(HOSTILE);
    expect(document.querySelector('meta[property="og:description"]')?.getAttribute('content')).toBe(HOSTILE);
    expect(document.querySelector('article h2')?.textContent).toBe(HOSTILE);
    expect(document.querySelector('article blockquote')?.textContent?.trim()).toBe(HOSTILE);
    expect(document.querySelector('article ul.tags li')?.textContent).toBe(`#${HOSTILE}`);
    expect(html).not.toMatch(/<script>alert|<img/);
  });

  it('links only http(s) sources', () => {
    const { document } = parseHTML(
      renderFeedPage(FEED, [note({ url: 'javascript:alert(1)' }), note({ id: 'n2', url: 'data:text/html,x' })], LINKS),
    );
    expect(document.querySelectorAll('article a')).toHaveLength(0);
    expect([...document.querySelectorAll('article h2')].map((h2) => h2.textContent)).toEqual(['Title', 'Title']);
  });

  it('lists entries newest first with dates, the source link and its host', () => {
    const { document } = parseHTML(
      renderFeedPage(
        FEED,
        [
          note({ id: 'old', title: 'Old', updated: '2026-01-01T00:00:00Z' }),
          note({ id: 'new', title: 'New', updated: '2026-11-20T10:00:00Z' }),
        ],
        LINKS,
      ),
    );
    expect([...document.querySelectorAll('article h2 a')].map((a) => a.textContent)).toEqual(['New', 'Old']);
    expect(document.querySelector('article')?.id).toBe('entry-new');
    expect(document.querySelector('article time')?.getAttribute('datetime')).toBe('2026-11-20T10:00:00.000Z');
    expect(document.querySelector('article time')?.textContent).toBe('20 November 2026');
    expect(document.querySelector('article .meta a')?.textContent).toBe('example.com');
  });

  it('offers RSS, Atom and JSON Feed for autodiscovery and subscribing', () => {
    const { document } = parseHTML(renderFeedPage(FEED, [], LINKS));
    expect(
      [...document.querySelectorAll('link[rel="alternate"]')].map((link) => [
        link.getAttribute('type'),
        link.getAttribute('href'),
      ]),
    ).toEqual([
      ['application/rss+xml', LINKS.rss],
      ['application/atom+xml', LINKS.atom],
      ['application/feed+json', LINKS.jsonFeed],
    ]);
    expect([...document.querySelectorAll('nav a')].map((a) => a.getAttribute('href'))).toEqual([
      LINKS.rss,
      LINKS.atom,
      LINKS.jsonFeed,
    ]);
  });

  it('describes a feed without a description from its author, for link previews', () => {
    const { document } = parseHTML(
      renderFeedPage({ ...FEED, title: 'T', description: null, author: 'Ann' }, [], LINKS),
    );
    expect(document.querySelector('meta[property="og:description"]')?.getAttribute('content')).toBe(
      'Notes by Ann on Gleaner',
    );
    expect(document.querySelector('main')?.textContent).toContain('Nothing here yet.');
  });

  it('hands out an embed snippet that loads the script with the JSON and page addresses', () => {
    const { document } = parseHTML(`<body>${embedSnippet(LINKS)}</body>`);
    const script = document.querySelector('script')!;
    expect([script.getAttribute('src'), script.getAttribute('data-feed'), script.getAttribute('data-page')]).toEqual([
      LINKS.embedScript,
      LINKS.json,
      LINKS.page,
    ]);
  });
});

describe('renderFeedNotFoundPage', () => {
  it('names no feed', () => {
    const { document } = parseHTML(renderFeedNotFoundPage());
    expect(document.querySelector('h1')?.textContent).toBe('Feed not found');
    expect(document.documentElement.getAttribute('lang')).toBe('en');
  });
});
