import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Feed, FeedNote } from '../../functions/core/feed/feed';
import { renderRss } from '../../functions/core/feed/rss';
import { PYTHON, pythonModuleAvailable } from '../support/python';

/**
 * What a reader shows of each text field: HTML (feedparser's type for anything that looks like
 * markup) is shown rendered, so it must hold no tags and reads as its unescaped text.
 */
const SHOWN = `
import feedparser, html, json, sys
def shown(detail):
    if detail.type != 'text/html': return detail.value
    return None if '<' in detail.value else html.unescape(detail.value)
feed = feedparser.parse(sys.stdin.read())
print(json.dumps({
  'title': shown(feed.feed.title_detail),
  'description': shown(feed.feed.subtitle_detail),
  'language': feed.feed.get('language'),
  'items': [{'title': shown(e.title_detail), 'description': shown(e.summary_detail)} for e in feed.entries],
}))
`;

const HOSTILE = [
  'Tom & Jerry <b>bold</b>',
  'AT&amp;T &lt;i&gt; &nbsp;',
  '<script>alert(1)</script> 5 < 6 > 4',
  'Plain & simple',
];

// Debian's python3-feedparser, the parser behind many feed readers, through the system interpreter.
describe.skipIf(!pythonModuleAvailable('feedparser', 'python3-feedparser', 'feedparser test'))(
  'RSS through feedparser',
  () => {
    it.each(HOSTILE)('shows the channel and items exactly as typed: %s', (typed) => {
      expect(shownByFeedparser(typed)).toEqual({
        title: typed,
        description: typed,
        language: 'en',
        items: [{ title: typed, description: typed }],
      });
    });

    it.each(['Tom & Jerry', 'Q&A: 5 > 4', 'Salt & pepper; & more'])(
      'gives a title that cannot be taken for markup as plain text, shown as typed with no entity (as Atom does): %s',
      (typed) => {
        const raw = `
import feedparser, json, sys
f = feedparser.parse(sys.stdin.read())
print(json.dumps([f.feed.title, f.feed.title_detail.type, f.entries[0].title, f.entries[0].title_detail.type]))
`;
        const parsed = spawnSync(PYTHON, ['-c', raw], { input: rssOf(typed), encoding: 'utf8' });
        expect(JSON.parse(parsed.stdout)).toEqual([typed, 'text/plain', typed, 'text/plain']);
      },
    );

    it('shows typed text without its control characters and lone surrogates, and nothing else lost', () => {
      const typed =
        'Tom & Jerry DEL\u007F NEL\u0085 C1\u009B NUL\u0000 ESC\u001b[31m BEL\u0007 tab\t lone \uD800 and \uDFFF, 🎉 kept';
      const shown = 'Tom & Jerry DEL NEL C1 NUL ESC[31m BEL tab\t lone  and , 🎉 kept';
      expect(shownByFeedparser(typed)).toEqual({
        title: shown,
        description: shown,
        language: 'en',
        items: [{ title: shown, description: shown }],
      });
    });

    it('reads content:encoded as the note rendered to HTML, with hostile markup as text, and dc:creator as the author typed', () => {
      const author = 'Ann & <b>Bee</b> &amp; Co';
      const feed: Feed = {
        id: 'f',
        title: 'Reading',
        description: null,
        author,
        tags: ['t'],
        match: 'any',
        sharing: 'public',
        updated: null,
      };
      const body = `Source: [A page](https://example.com/a)\n\n> ${HOSTILE.join(' ')}\n\nA *fine* [link](javascript:alert(1)) <img src=x onerror=alert(1)>`;
      const note: FeedNote = {
        id: 'n',
        title: 'A page',
        body,
        tags: ['t'],
        url: 'https://example.com/a',
        updated: null,
        created: '2026-01-01T00:00:00Z',
      };
      const xml = renderRss(feed, [note], {
        selfUrl: 'https://g.example/rss',
        siteUrl: 'https://g.example/',
        entryLink: () => 'https://g.example/n',
      });
      const script =
        'import feedparser, json, sys\nf = feedparser.parse(sys.stdin.read())\ne = f.entries[0]\nprint(json.dumps({"bozo": f.bozo, "author": e.author, "content": [(c.type, c.value) for c in e.content]}))';
      const parsed = spawnSync(PYTHON, ['-c', script], { input: xml, encoding: 'utf8' });
      expect(parsed.stderr).toBe('');
      const {
        bozo,
        author: shownAuthor,
        content,
      } = JSON.parse(parsed.stdout) as { bozo: boolean; author: string; content: [string, string][] };
      expect(bozo).toBe(false);
      expect(shownAuthor).toBe(author);
      expect(content).toHaveLength(1);
      const [type, html] = content[0]!;
      expect(type).toBe('text/html');
      expect(html).toContain('<p>Source: <a href="https://example.com/a">A page</a></p>');
      expect(html).toContain('<blockquote>');
      expect(html).toContain('<em>fine</em>');
      expect(html).not.toMatch(/<script|<img|<[^>]*onerror|href="javascript/);
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    });
  },
);

/** RSS of a feed and its one note, both titled and described with `typed`. */
function rssOf(typed: string): string {
  const feed: Feed = {
    id: 'f',
    title: typed,
    description: typed,
    author: '',
    tags: ['t'],
    match: 'any',
    sharing: 'public',
    updated: null,
  };
  const note: FeedNote = {
    id: 'n',
    title: typed,
    body: typed.replace(/[<>&*_`[\]\\]/g, '\\$&'),
    tags: ['t'],
    url: null,
    updated: null,
    created: '2026-01-01T00:00:00Z',
  };
  return renderRss(feed, [note], {
    selfUrl: 'https://g.example/rss',
    siteUrl: 'https://g.example/rss',
    entryLink: () => 'https://g.example/n',
  });
}

/** What feedparser shows of a feed and its one note, both titled and described with `typed`. */
function shownByFeedparser(typed: string): unknown {
  const parsed = spawnSync(PYTHON, ['-c', SHOWN], { input: rssOf(typed), encoding: 'utf8' });
  expect(parsed.stderr).toBe('');
  return JSON.parse(parsed.stdout);
}
