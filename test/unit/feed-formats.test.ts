import { spawnSync } from 'node:child_process';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { renderAtom } from '../../functions/core/feed/atom';
import { buildPublishedFeed, type Feed, type FeedNote } from '../../functions/core/feed/feed';
import { buildJsonFeed } from '../../functions/core/feed/json-feed';
import { noteHtml } from '../../functions/core/text/note-html';
import { jsonFeedSchemaProblems } from '../support/json-feed';
import { PYTHON, pythonModuleAvailable } from '../support/python';

/** Atom and JSON Feed on hostile content: well-formed, valid, and showing what was typed. */

const HOSTILE = [
  'Tom & Jerry <b>bold</b>',
  'AT&amp;T &lt;i&gt; &nbsp;',
  '<script>alert(1)</script> 5 < 6 > 4 ]]>',
  'DEL\u007F NEL\u0085 NUL\u0000 lone \uD800 😀',
];
const URLS = {
  selfUrl: 'https://g.example/feeds/f/atom',
  pageUrl: 'https://g.example/feeds/f',
  entryLink: (note: FeedNote) => `https://g.example/n/${note.id}`,
};

function feedOf(typed: string): { feed: Feed; notes: FeedNote[] } {
  const feed: Feed = {
    id: '0f8f8c8e-1111-4222-8333-444455556666',
    title: typed,
    description: typed,
    author: typed,
    tags: ['t'],
    match: 'any',
    sharing: 'public',
    updated: '2026-11-20T09:00:00+00:00',
  };
  const note = (id: string, updated: string): FeedNote => ({
    id,
    title: typed,
    body: `Source: [page](https://example.com/a?b=1&c=2)\n\n> ${typed}\n\n${typed} [x](javascript:alert(1))`,
    tags: ['t', typed.slice(0, 12)],
    url: 'https://example.com/a?b=1&c=2',
    updated,
    created: '2026-11-19T08:00:00+00:00',
  });
  return {
    feed,
    notes: [
      note('6b1c3c3e-2a8a-4c41-9b8e-4d6a1c1f0a01', '2026-11-20T10:00:00+00:00'),
      note('6b1c3c3e-2a8a-4c41-9b8e-4d6a1c1f0a02', '2026-11-21T10:00:00+00:00'),
    ],
  };
}

describe('Atom', () => {
  it.each(HOSTILE)('is well-formed XML in the Atom namespace for %j', (typed) => {
    const { feed, notes } = feedOf(typed);
    const parser = new SaxesParser({ xmlns: true });
    const roots: string[] = [];
    parser.on('opentag', (tag) => {
      if (roots.length === 0) roots.push(`${tag.uri} ${tag.local}`);
    });
    parser.on('error', (error) => {
      throw error;
    });
    parser.write(renderAtom(feed, notes, URLS)).close();
    expect(roots).toEqual(['http://www.w3.org/2005/Atom feed']);
  });

  it('dates the feed by its newest change, and a feed with nothing dated by the epoch', () => {
    const { feed, notes } = feedOf('x');
    expect(renderAtom(feed, notes, URLS)).toContain('<updated>2026-11-21T10:00:00.000Z</updated>');
    expect(renderAtom({ ...feed, updated: null }, [], URLS)).toContain('<updated>1970-01-01T00:00:00.000Z</updated>');
  });

  describe.skipIf(!pythonModuleAvailable('feedparser', 'python3-feedparser', 'Atom feedparser test'))(
    'through Debian feedparser',
    () => {
      const SHOWN = `
import feedparser, json, sys
f = feedparser.parse(sys.stdin.read())
print(json.dumps({'bozo': bool(f.bozo), 'version': f.version, 'title': f.feed.title, 'author': f.feed.get('author'),
  'entries': [{'id': e.id, 'title': e.title, 'summary': e.summary, 'content': e.content[0].value, 'tags': [t.term for t in e.tags]} for e in f.entries]}))
`;
      it.each(HOSTILE)('parses with bozo 0 and shows %j as typed, less the characters feeds drop', (typed) => {
        const { feed, notes } = feedOf(typed);
        const parsed = spawnSync(PYTHON, ['-c', SHOWN], { input: renderAtom(feed, notes, URLS), encoding: 'utf8' });
        expect(parsed.stderr).toBe('');
        const shown = JSON.parse(parsed.stdout);
        const expected = buildPublishedFeed(feed, notes, { rssUrl: '' });
        expect(shown).toMatchObject({ bozo: false, version: 'atom10', title: expected.title, author: expected.author });
        expect(shown.entries.map((entry: { id: string }) => entry.id)).toEqual(
          expected.entries.map((entry) => `urn:uuid:${entry.id}`),
        );
        for (const entry of shown.entries) {
          expect(entry.title).toBe(expected.entries[0]!.title);
          expect(entry.summary).toBe(expected.entries[0]!.text);
          expect(entry.content).toBe(noteHtml(notes[0]!.body));
          expect(entry.content).not.toMatch(/<script|href="javascript/);
        }
      });
    },
  );
});

describe('JSON Feed', () => {
  it.each(HOSTILE)('is valid JSON Feed 1.1 with the entries of the JSON, in its order, for %j', (typed) => {
    const { feed, notes } = feedOf(typed);
    const document = JSON.parse(JSON.stringify(buildJsonFeed(feed, notes, URLS)));
    expect(jsonFeedSchemaProblems(document)).toEqual([]);
    const expected = buildPublishedFeed(feed, notes, { rssUrl: '' });
    expect(document.items.map((item: { id: string }) => item.id)).toEqual(expected.entries.map((entry) => entry.id));
    expect(document.items[0]).toMatchObject({
      title: expected.entries[0]!.title,
      content_text: expected.entries[0]!.text,
      date_modified: '2026-11-21T10:00:00.000Z',
      date_published: '2026-11-19T08:00:00.000Z',
    });
    expect(document.items[0].content_html).not.toMatch(/<script|href="javascript/);
  });

  it('the schema check rejects what JSON Feed forbids (so an empty list means something)', () => {
    expect(
      jsonFeedSchemaProblems({ version: 'https://jsonfeed.org/version/1.1', title: 't', items: [{ id: '1' }] }),
    ).not.toEqual([]);
    expect(jsonFeedSchemaProblems({ version: 'https://jsonfeed.org/version/1', title: 't', items: [] })).not.toEqual(
      [],
    );
    expect(
      jsonFeedSchemaProblems({
        version: 'https://jsonfeed.org/version/1.1',
        title: 't',
        items: [{ id: '1', content_text: 'x', date_modified: 'yesterday' }],
      }),
    ).not.toEqual([]);
  });
});
