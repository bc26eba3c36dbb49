import { parseFeed } from '@rowanmanning/feed-parser';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import type { Feed, FeedNote } from '../../functions/core/feed/feed';
import { renderRss } from '../../functions/core/feed/rss';
import { noteHtml } from '../../functions/core/text/note-html';

/** Characters XML 1.0 forbids; each lone surrogate sits next to ASCII or a control, never its partner. */
const FORBIDDEN = '\uDFFF\u0000\u0001\u0008\u000B\u000C\u001F\uFFFE\uFFFF\uD800';

/** What sanitizeText leaves of FORBIDDEN: nothing. */
const SANITIZED = '';

/** Hostile text with `forbidden` spliced in; `hostile(SANITIZED)` is what a parser must read back. */
function hostile(forbidden: string): string {
  return (
    `]]> <script>alert(1)</script> & "quotes" 'apos' ${forbidden}` +
    `emoji 😀🏳️‍🌈 𝔘𝔫𝔦 ${forbidden}שלום \u202Eevil\u202C مرحبا\u200F x${forbidden}y`
  );
}

const FEED: Feed = {
  id: '9d2f8c0e-4a3b-4f7e-8a1d-0c6b5e4d3a21',
  title: `Feed ${hostile(FORBIDDEN)}`,
  description: null,
  author: 'Ann Example',
  tags: ['web', 'reading'],
  match: 'all',
  sharing: 'public',
  updated: null,
};

/** One paragraph of plain (Markdown-inert) hostile text; ~200 B, so 500 of them make a 100 KB body. */
const PARAGRAPH = (forbidden: string) => `Paragraph ${hostile(forbidden)} end`;
const BIG_BODY = Array.from({ length: 500 }, () => PARAGRAPH(FORBIDDEN)).join('\n\n');
const BIG_BODY_TEXT = Array.from({ length: 500 }, () => PARAGRAPH(SANITIZED)).join('\n\n');

const HOSTILE_NOTE: FeedNote = {
  id: '1f0e2d3c-4b5a-4697-8877-665544332211',
  title: `Title ${hostile(FORBIDDEN)}\rwith CR`,
  body: BIG_BODY,
  tags: [`tag ${hostile(FORBIDDEN)}`, 'web'],
  url: 'https://example.com/page?a=1&b=2&c=%3Cx%3E',
  updated: '2026-11-21T12:00:00+02:00',
  created: '2026-11-01T00:00:00Z',
};

const LEGACY_NOTE: FeedNote = {
  id: '00000000-0000-4000-8000-000000000001',
  title: 'Legacy note',
  body: 'Just **text**',
  tags: [],
  url: null,
  updated: null,
  created: '2020-01-01T00:00:00Z',
};

const NEWER_NOTE: FeedNote = {
  ...LEGACY_NOTE,
  id: '00000000-0000-4000-8000-000000000002',
  title: 'Newer note',
  updated: '2026-12-01T08:00:00Z',
};

const OPTIONS = {
  selfUrl: `https://gleaner.example/api/v2/publisher/feeds/${FEED.id}/rss?x=1&y=2`,
  siteUrl: `https://gleaner.example/feeds/${FEED.id}`,
  entryLink: (note: FeedNote) => `https://gleaner.example/notes/${note.id}`,
};

/** Item descriptions are HTML; this is the escaping a reader undoes. */
/** Plain text as the RSS carries it in HTML-read elements: hexadecimal references only. */
function htmlEscaped(text: string): string {
  return text.replace(/&/g, '&#x26;').replace(/</g, '&#x3C;').replace(/>/g, '&#x3E;').replace(/\r/g, '&#xD;');
}

interface XmlElement {
  name: string;
  uri: string;
  attributes: Record<string, { value: string; uri: string }>;
  children: XmlElement[];
  text: string;
}

/** Parses with saxes (a conformant XML 1.0 + namespaces parser); any error fails the test. */
function parseStrictXml(xml: string): { declaration: { version?: string; encoding?: string }; root: XmlElement } {
  const parser = new SaxesParser({ xmlns: true });
  const errors: string[] = [];
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let declaration = {};
  parser.on('error', (error) => errors.push(error.message));
  parser.on('xmldecl', (decl) => (declaration = decl));
  parser.on('opentag', (tag) => {
    const element: XmlElement = { name: tag.name, uri: tag.uri, attributes: tag.attributes, children: [], text: '' };
    stack.at(-1)?.children.push(element);
    root ??= element;
    stack.push(element);
  });
  parser.on('text', (text) => {
    const current = stack.at(-1);
    if (current) current.text += text;
  });
  parser.on('cdata', (text) => {
    stack.at(-1)!.text += text;
  });
  parser.on('closetag', () => stack.pop());
  parser.write(xml).close();
  expect(errors).toEqual([]);
  return { declaration, root: root! };
}

function child(element: XmlElement, name: string): XmlElement {
  const found = element.children.find((c) => c.name === name);
  if (!found) throw new Error(`<${element.name}> has no <${name}>`);
  return found;
}

function childTexts(element: XmlElement, name: string): string[] {
  return element.children.filter((c) => c.name === name).map((c) => c.text);
}

describe('renderRss', () => {
  const xml = renderRss(FEED, [LEGACY_NOTE, HOSTILE_NOTE, NEWER_NOTE], OPTIONS);

  it('starts with the XML declaration and is RSS 2.0 with the Atom namespace', () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    const { declaration, root } = parseStrictXml(xml);
    expect(declaration).toMatchObject({ version: '1.0', encoding: 'UTF-8' });
    expect(root.name).toBe('rss');
    expect(root.attributes.version?.value).toBe('2.0');
    expect(
      child(root, 'channel')
        .children.map((c) => c.name)
        .slice(0, 6),
    ).toEqual(['title', 'link', 'description', 'language', 'atom:link', 'lastBuildDate']);
  });

  it('is well-formed for hostile content and reads back exactly, minus forbidden characters (saxes)', () => {
    const channel = child(parseStrictXml(xml).root, 'channel');
    expect(child(channel, 'title').text).toBe(htmlEscaped(`Feed ${hostile(SANITIZED)}`));
    expect(child(channel, 'link').text).toBe(OPTIONS.siteUrl);
    expect(child(channel, 'description').text).toBe('Notes tagged #web and #reading by Ann Example');
    const self = child(channel, 'atom:link');
    expect(self.uri).toBe('http://www.w3.org/2005/Atom');
    expect(Object.fromEntries(Object.entries(self.attributes).map(([k, a]) => [k, a.value]))).toEqual({
      href: OPTIONS.selfUrl,
      rel: 'self',
      type: 'application/rss+xml',
    });
    expect(child(channel, 'lastBuildDate').text).toBe('Tue, 01 Dec 2026 08:00:00 GMT');
    expect(child(channel, 'generator').text).toBe('Gleaner');

    const items = channel.children.filter((c) => c.name === 'item');
    expect(items.map((item) => child(item, 'guid').text)).toEqual([NEWER_NOTE.id, HOSTILE_NOTE.id, LEGACY_NOTE.id]);
    const item = items[1]!;
    expect(child(item, 'title').text).toBe(htmlEscaped(`Title ${hostile(SANITIZED)}\rwith CR`));
    expect(child(item, 'link').text).toBe(HOSTILE_NOTE.url);
    expect(child(item, 'guid').attributes.isPermaLink?.value).toBe('false');
    expect(child(item, 'pubDate').text).toBe('Sat, 21 Nov 2026 10:00:00 GMT');
    expect(child(item, 'description').text).toBe(htmlEscaped(BIG_BODY_TEXT));
    expect(childTexts(item, 'category')).toEqual([`tag ${hostile(SANITIZED)}`, 'web']);
  });

  it('adds each note as sanitised HTML in content:encoded and the feed author as dc:creator, in their namespaces', () => {
    const items = child(parseStrictXml(xml).root, 'channel').children.filter((c) => c.name === 'item');
    const item = items[1]!;
    const encoded = child(item, 'content:encoded');
    expect(encoded.uri).toBe('http://purl.org/rss/1.0/modules/content/');
    expect(encoded.text).toBe(noteHtml(HOSTILE_NOTE.body));
    const creator = child(item, 'dc:creator');
    expect(creator.uri).toBe('http://purl.org/dc/elements/1.1/');
    expect(creator.text).toBe(FEED.author);
    const anonymous = child(
      child(parseStrictXml(renderRss({ ...FEED, author: '  ' }, [NEWER_NOTE], OPTIONS)).root, 'channel'),
      'item',
    );
    expect(anonymous.children.map((c) => c.name)).not.toContain('dc:creator');
  });

  it('reads back the same through a feed parser', () => {
    const parsed = parseFeed(xml);
    expect(parsed.title).toBe(`Feed ${hostile(SANITIZED)}`);
    expect(parsed.url).toBe(OPTIONS.siteUrl);
    expect(parsed.self).toBe(OPTIONS.selfUrl);
    expect(parsed.items.map((i) => i.id)).toEqual([NEWER_NOTE.id, HOSTILE_NOTE.id, LEGACY_NOTE.id]);
    const item = parsed.items[1]!;
    expect(item.title).toBe(`Title ${hostile(SANITIZED)}\rwith CR`);
    expect(item.url).toBe(HOSTILE_NOTE.url);
    expect(item.description).toBe(BIG_BODY_TEXT);
    expect(item.published?.toISOString()).toBe('2026-11-21T10:00:00.000Z');
    expect(item.categories.map((c) => c.term)).toEqual([`tag ${hostile(SANITIZED)}`, 'web']);
  });

  it('keeps entity-looking text literal instead of letting it become markup', () => {
    const tricky = 'AT&amp;T &nbsp; &#65; &lt;b&gt; &unknown;';
    const note: FeedNote = {
      ...NEWER_NOTE,
      title: tricky,
      body: tricky,
      tags: [tricky],
      url: `https://a.example/?q=${tricky}`,
    };
    const channel = child(parseStrictXml(renderRss({ ...FEED, title: tricky }, [note], OPTIONS)).root, 'channel');
    const item = child(channel, 'item');
    expect(child(channel, 'title').text).toBe(htmlEscaped(tricky));
    expect(child(item, 'title').text).toBe(htmlEscaped(tricky));
    expect(child(item, 'link').text).toBe(note.url);
    expect(childTexts(item, 'category')).toEqual([tricky]);
    expect(child(item, 'description').text).toBe(htmlEscaped(tricky));
  });

  it('plain-texts the body and links undated bookmark-less notes to their entry page, without pubDate', () => {
    const channel = child(parseStrictXml(xml).root, 'channel');
    const legacy = channel.children.filter((c) => c.name === 'item')[2]!;
    expect(child(legacy, 'description').text).toBe('Just text');
    expect(child(legacy, 'link').text).toBe(`https://gleaner.example/notes/${LEGACY_NOTE.id}`);
    expect(legacy.children.map((c) => c.name)).not.toContain('pubDate');
    expect(legacy.children.map((c) => c.name)).not.toContain('category');
  });

  it("uses the feed's own description, and falls back to one that is never empty", () => {
    const description = (feed: Feed) =>
      child(child(parseStrictXml(renderRss(feed, [], OPTIONS)).root, 'channel'), 'description').text;
    expect(description({ ...FEED, description: 'Mine & yours' })).toBe('Mine & yours');
    expect(description({ ...FEED, description: '  ', match: 'any', author: '' })).toBe('Notes tagged #web or #reading');
    expect(description({ ...FEED, tags: [], author: '' })).toBe('Notes');
  });

  it('dates lastBuildDate by the feed itself when it changed last, and omits it when nothing is dated', () => {
    const channelOf = (xmlText: string) => child(parseStrictXml(xmlText).root, 'channel');
    const renamed = channelOf(renderRss({ ...FEED, updated: '2027-01-01T00:00:00Z' }, [NEWER_NOTE], OPTIONS));
    expect(child(renamed, 'lastBuildDate').text).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
    const undated = channelOf(renderRss(FEED, [LEGACY_NOTE], OPTIONS));
    expect(undated.children.map((c) => c.name)).not.toContain('lastBuildDate');
  });
});
