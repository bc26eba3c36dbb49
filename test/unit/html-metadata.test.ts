import { describe, expect, it } from 'vitest';
import { decodeHtml, extractPageMetadata, HTML_PARSE_LIMIT } from '../../functions/core/enrich/html-metadata';
import { DESCRIPTION_MAX_LENGTH } from '../../functions/core/save/note-body';

const PAGE = 'https://example.com/blog/post.html?ref=feed#top';
const FAVICON = 'https://example.com/favicon.ico';

function bytes(...parts: (string | number[])[]): Buffer {
  return Buffer.concat(
    parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))),
  );
}

function page(head: string, body = '<p>Hello</p>'): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Post</title>${head}</head><body>${body}</body></html>`;
}

const description = async (html: string) => (await extractPageMetadata(html, PAGE)).description;
const icons = async (html: string, pageUrl = PAGE) => (await extractPageMetadata(html, pageUrl)).iconCandidates;

describe('decodeHtml', () => {
  it('uses the Content-Type charset: ISO-8859-1', () => {
    const body = bytes('<p>caf', [0xe9], ' cr', [0xe8], 'me</p>');
    expect(decodeHtml(body, 'text/html; charset=ISO-8859-1')).toBe('<p>café crème</p>');
    expect(decodeHtml(body, 'text/html;charset="iso-8859-1"')).toBe('<p>café crème</p>');
  });

  it.each([
    ['EUC-JP', [0xc6, 0xfc, 0xcb, 0xdc, 0xb8, 0xec], '日本語'],
    ['GBK', [0xd6, 0xd0, 0xce, 0xc4], '中文'],
    ['KOI8-R', [0xd2, 0xd5, 0xd3, 0xd3, 0xcb, 0xc9, 0xca], 'русский'],
  ])('decodes %s named by the header', (charset, encoded, text) => {
    expect(decodeHtml(bytes('<p>', encoded, '</p>'), `text/html; charset=${charset}`)).toBe(`<p>${text}</p>`);
  });

  it('sniffs <meta charset> when the header names none: Shift_JIS', () => {
    const body = bytes(
      '<html><head><meta charset="Shift_JIS"><title>',
      [0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea],
      '</title>',
    );
    expect(decodeHtml(body, 'text/html')).toContain('<title>日本語</title>');
    expect(decodeHtml(body, null)).toContain('<title>日本語</title>');
  });

  it('sniffs <meta http-equiv="Content-Type"> and decodes windows-1252 punctuation as windows-1252', () => {
    const body = bytes(
      '<head><META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=windows-1252">',
      '<title>',
      [0x93],
      'Caf',
      [0xe9],
      [0x94],
      ' ',
      [0x96],
      ' 5',
      [0x80],
      ' ',
      [0x85],
      '</title>',
    );
    expect(decodeHtml(body, null)).toContain('<title>“Café” – 5€ …</title>');
  });

  it('lets a byte order mark override the header and strips it', () => {
    const utf8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<p>été</p>')]);
    expect(decodeHtml(utf8, 'text/html; charset=iso-8859-1')).toBe('<p>été</p>');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>été</p>', 'utf16le')]);
    expect(decodeHtml(utf16, null)).toBe('<p>été</p>');
  });

  it('prefers the header to the meta tag', () => {
    const body = Buffer.from('<meta charset="windows-1252"><p>été</p>');
    expect(decodeHtml(body, 'text/html; charset=utf-8')).toBe('<meta charset="windows-1252"><p>été</p>');
  });

  it('skips unknown labels and falls back to UTF-8', () => {
    const body = Buffer.from('<meta charset="x-no-such-charset"><p>été</p>');
    expect(decodeHtml(body, 'text/html; charset=bogus')).toContain('<p>été</p>');
    expect(decodeHtml(Buffer.from('<p>été</p>'), null)).toBe('<p>été</p>');
  });

  it('reads a meta tag claiming UTF-16 as UTF-8, since it was readable as ASCII', () => {
    expect(decodeHtml(Buffer.from('<meta charset="utf-16"><p>été</p>'), null)).toBe(
      '<meta charset="utf-16"><p>été</p>',
    );
  });
});

describe('extractPageMetadata: description', () => {
  it('prefers meta description to og:description and twitter:description', async () => {
    const html = page(
      '<meta name="twitter:description" content="Twitter"><meta property="og:description" content="Open Graph">' +
        '<meta name="description" content="Plain">',
    );
    expect(await description(html)).toBe('Plain');
  });

  it('falls back to og:description, given as property or name', async () => {
    expect(await description(page('<meta property="og:description" content="From OG">'))).toBe('From OG');
    expect(await description(page('<meta name="og:description" content="From OG name">'))).toBe('From OG name');
  });

  it('falls back to twitter:description', async () => {
    expect(await description(page('<meta name="twitter:description" content="From Twitter">'))).toBe('From Twitter');
  });

  it('skips empty descriptions', async () => {
    const html = page(
      '<meta name="description" content=" \n "><meta property="og:description" content="Second choice">',
    );
    expect(await description(html)).toBe('Second choice');
  });

  it('reads attribute names and values in any case', async () => {
    expect(await description(page('<META NAME="Description" CONTENT="Shouting">'))).toBe('Shouting');
    expect(await description(page('<Meta Property="OG:Description" Content="Mixed">'))).toBe('Mixed');
  });

  it('decodes entities', async () => {
    const html = page('<meta name="description" content="Tom &amp; Jerry&#39;s caf&eacute; &lt;3 &#x1F600;">');
    expect(await description(html)).toBe("Tom & Jerry's café <3 😀");
  });

  it('collapses whitespace and newlines', async () => {
    const html = page('<meta name="description" content="\n   First line\n\tsecond&nbsp;&nbsp;line   \r\n">');
    expect(await description(html)).toBe('First line second line');
  });

  it(`cuts long descriptions to ${DESCRIPTION_MAX_LENGTH} characters`, async () => {
    const long = 'word '.repeat(120).trim();
    expect(long.length).toBeGreaterThan(590);
    expect(await description(page(`<meta name="description" content="${long}">`))).toBe(
      long.slice(0, DESCRIPTION_MAX_LENGTH),
    );
  });

  it('does not cut a surrogate pair in half', async () => {
    const text = `${'a'.repeat(DESCRIPTION_MAX_LENGTH - 1)}😀${'b'.repeat(100)}`;
    const cut = (await description(page(`<meta name="description" content="${text}">`))) ?? '';
    // Whether the emoji counts as one character or two is the shared `truncate`'s call; halving it is not.
    expect(text.startsWith(cut)).toBe(true);
    expect(cut).not.toMatch(/[\uD800-\uDBFF]$/);
    expect(Array.from(cut).length).toBeLessThanOrEqual(DESCRIPTION_MAX_LENGTH);
    expect(cut.length).toBeGreaterThanOrEqual(DESCRIPTION_MAX_LENGTH - 1);
  });

  it('is null without any description', async () => {
    expect(
      await description(page('<meta name="keywords" content="a, b"><meta property="og:title" content="T">')),
    ).toBeNull();
  });
});

describe('extractPageMetadata: icons', () => {
  it('resolves relative, root-relative and scheme-relative hrefs against the page URL', async () => {
    expect(await icons(page('<link rel="icon" href="icons/fav.png">'))).toEqual([
      'https://example.com/blog/icons/fav.png',
      FAVICON,
    ]);
    expect(await icons(page('<link rel="icon" href="/static/fav.png?v=2">'))).toEqual([
      'https://example.com/static/fav.png?v=2',
      FAVICON,
    ]);
    expect(await icons(page('<link rel="icon" href="//cdn.example.net/fav.ico">'))).toEqual([
      'https://cdn.example.net/fav.ico',
      FAVICON,
    ]);
  });

  it('resolves against <base href>, itself resolved against the page URL', async () => {
    expect(
      await icons(page('<base href="https://static.example.org/assets/"><link rel="icon" href="fav.png">')),
    ).toEqual(['https://static.example.org/assets/fav.png', FAVICON]);
    expect(
      await icons(
        page('<base target="_top"><BASE HREF="/theme/"><base href="/ignored/"><link rel="icon" href="fav.png">'),
      ),
    ).toEqual(['https://example.com/theme/fav.png', FAVICON]);
  });

  it('orders rel icon first, sizes nearest 32–64 px first, then touch icons; ignores other rels', async () => {
    const html = page(
      [
        '<link rel="icon" sizes="16x16" href="/16.png">',
        '<link rel="apple-touch-icon" sizes="180x180" href="/touch.png">',
        '<link rel="icon" sizes="192x192" href="/192.png">',
        '<link rel="shortcut icon" href="/legacy.ico">',
        '<link rel="icon" type="image/png" sizes="32x32" href="/32.png">',
        '<link rel="mask-icon" href="/mask.svg" color="#000">',
        '<link rel="stylesheet" href="/site.css">',
        '<link rel="icon" type="image/svg+xml" sizes="any" href="/icon.svg">',
        '<link rel="apple-touch-icon-precomposed" href="/touch-old.png">',
      ].join('\n'),
    );
    expect(await icons(html)).toEqual(
      [
        '/legacy.ico',
        '/32.png',
        '/icon.svg',
        '/16.png',
        '/192.png',
        '/touch-old.png',
        '/touch.png',
        '/favicon.ico',
      ].map((path) => `https://example.com${path}`),
    );
  });

  it('reads rel tokens in any case', async () => {
    expect(await icons(page('<LINK REL="Shortcut Icon" HREF="/Fav.ICO">'))).toEqual([
      'https://example.com/Fav.ICO',
      FAVICON,
    ]);
  });

  it('uses apple-touch-icon when that is all there is', async () => {
    expect(await icons(page('<link rel="apple-touch-icon" href="/apple-touch-icon.png">'))).toEqual([
      'https://example.com/apple-touch-icon.png',
      FAVICON,
    ]);
  });

  it('falls back to /favicon.ico of the page origin', async () => {
    expect(await icons(page(''))).toEqual([FAVICON]);
    expect(await icons(page(''), 'http://localhost:8080/a/b')).toEqual(['http://localhost:8080/favicon.ico']);
  });

  it('drops data:, javascript:, empty and unparsable hrefs, and duplicates', async () => {
    const html = page(
      [
        '<link rel="icon" href="data:image/png;base64,iVBORw0KGgo=">',
        '<link rel="icon" href="javascript:alert(1)">',
        '<link rel="icon" href="">',
        '<link rel="icon">',
        '<link rel="icon" href="http://[bad">',
        '<link rel="icon" href="/favicon.ico">',
        '<link rel="shortcut icon" href="https://example.com/favicon.ico">',
      ].join(''),
    );
    expect(await icons(html)).toEqual([FAVICON]);
  });

  it('keeps resolving against the page when <base href> is not http(s)', async () => {
    expect(await icons(page('<base href="javascript:void(0)/"><link rel="icon" href="fav.png">'))).toEqual([
      'https://example.com/blog/fav.png',
      FAVICON,
    ]);
  });
});

describe('extractPageMetadata: broken and large pages', () => {
  it('reads broken, unclosed HTML', async () => {
    const html =
      '<html><HEAD><title>Broken</title><meta name=description content="Still found"><div><p>unclosed ' +
      '<link rel=icon href=/broken.png></b></i><body><table><tr><td><meta name="description" content="unterminated';
    expect(await extractPageMetadata(html, PAGE)).toEqual({
      description: 'Still found',
      iconCandidates: ['https://example.com/broken.png', FAVICON],
    });
  });

  it('reads pages without head or html elements', async () => {
    const html = '<meta name="description" content="Headless"><link rel="icon" href="/h.png"><p>Body text';
    expect(await extractPageMetadata(html, PAGE)).toEqual({
      description: 'Headless',
      iconCandidates: ['https://example.com/h.png', FAVICON],
    });
  });

  it.each(['', '   ', '<', '<!--', '</html>', '\u0000\u0000', 'just text'])('copes with %j', async (html) => {
    expect(await extractPageMetadata(html, PAGE)).toEqual({ description: null, iconCandidates: [FAVICON] });
  });

  it('reads a 2 MB page', async () => {
    const html = page(
      '<meta name="description" content="Big page">',
      '<p>Lorem ipsum dolor sit amet.</p>\n'.repeat(60_000),
    );
    expect(html.length).toBeGreaterThan(2_000_000);
    expect(await description(html)).toBe('Big page');
    expect(await description('x'.repeat(2_000_000))).toBeNull();
  });

  it('stays fast on 2 MB of nested unclosed tags', async () => {
    const started = Date.now();
    const html = `<meta name="description" content="Nested">${'<div><span>'.repeat(200_000)}`;
    expect(await description(html)).toBe('Nested');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it(`ignores what comes after the first ${HTML_PARSE_LIMIT} characters`, async () => {
    const html = `<p>${'x'.repeat(HTML_PARSE_LIMIT)}</p><meta name="description" content="Too far">`;
    expect(await description(html)).toBeNull();
  });
});
