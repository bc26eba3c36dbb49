import { describe, expect, it } from 'vitest';
import { HOST_MAX_LENGTH, normalizeUrl, parseBookmarkUrl, URL_MAX_LENGTH } from '../../functions/core/save/url';

/** The normalized identity of a URL that must parse. */
function identity(input: string): string {
  const parsed = parseBookmarkUrl(input);
  if (!parsed.ok) throw new Error(`${input} did not parse: ${parsed.problem}`);
  return normalizeUrl(parsed.url);
}

/** An https URL of exactly `length` characters. */
function urlOfLength(length: number): string {
  const prefix = 'https://x.test/';
  return prefix + 'a'.repeat(length - prefix.length);
}

describe('parseBookmarkUrl', () => {
  describe('accepts absolute http(s) URLs with a host', () => {
    it.each([
      ['http://x.test', 'http://x.test/'],
      ['https://x.test/path?q=1#frag', 'https://x.test/path?q=1#frag'],
      ['https://localhost:8080/a', 'https://localhost:8080/a'],
      ['http://127.0.0.1/', 'http://127.0.0.1/'],
      ['HTTPS://Example.TEST/Path', 'https://example.test/Path'],
      ['  https://x.test/padded  ', 'https://x.test/padded'],
    ])('%j', (input, href) => {
      const parsed = parseBookmarkUrl(input);
      expect(parsed.ok).toBe(true);
      expect(parsed.ok && parsed.url.href).toBe(href);
    });
  });

  describe('escapes what WHATWG parsing leaves but RFC 3986 forbids, so the URL is a valid URI', () => {
    it.each([
      ['https://x.test/%zz/100%', 'https://x.test/%25zz/100%25'],
      ['https://x.test/a|b^c[d]?q={x}|y#f|g', 'https://x.test/a%7Cb%5Ec%5Bd%5D?q=%7Bx%7D%7Cy#f%7Cg'],
      ['https://x.test/kept%20escapes/ü?a=b&c=d;e', 'https://x.test/kept%20escapes/%C3%BC?a=b&c=d;e'],
    ])('%j', (input, href) => {
      const parsed = parseBookmarkUrl(input);
      expect(parsed.ok && parsed.url.href).toBe(href);
    });
  });

  describe('rejects other schemes as url_scheme', () => {
    it.each([
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'ftp://x.test/file',
      'mailto:someone@x.test',
      'ws://x.test/socket',
    ])('%j', (input) => {
      expect(parseBookmarkUrl(input)).toEqual({ ok: false, problem: 'url_scheme' });
    });
  });

  describe('rejects what is not an absolute URL with a host as url_parsing', () => {
    it.each(['/relative/path', 'relative/path', 'x.test/page', 'http://', 'https://', 'not a url', '', '   '])(
      '%j',
      (input) => {
        expect(parseBookmarkUrl(input)).toEqual({ ok: false, problem: 'url_parsing' });
      },
    );
  });

  describe('length', () => {
    it(`accepts exactly ${URL_MAX_LENGTH} characters`, () => {
      expect(parseBookmarkUrl(urlOfLength(URL_MAX_LENGTH)).ok).toBe(true);
    });

    it(`rejects ${URL_MAX_LENGTH + 1} characters as url_too_long`, () => {
      expect(parseBookmarkUrl(urlOfLength(URL_MAX_LENGTH + 1))).toEqual({ ok: false, problem: 'url_too_long' });
    });

    it('reports url_too_long before looking at the scheme', () => {
      expect(parseBookmarkUrl(`javascript:${'a'.repeat(URL_MAX_LENGTH)}`)).toEqual({
        ok: false,
        problem: 'url_too_long',
      });
    });
  });

  describe('length as stored, after escaping (issue 21)', () => {
    it(`rejects ${URL_MAX_LENGTH} characters of é, which are 12,000-odd once escaped`, () => {
      const input = `https://x.test/${'é'.repeat(URL_MAX_LENGTH - 15)}`;
      expect(input).toHaveLength(URL_MAX_LENGTH);
      expect(parseBookmarkUrl(input)).toEqual({ ok: false, problem: 'url_too_long' });
    });

    it(`accepts an escaped URL of exactly ${URL_MAX_LENGTH} characters`, () => {
      const path = 'é'.repeat(100) + 'a'.repeat(URL_MAX_LENGTH - 15 - 600);
      const parsed = parseBookmarkUrl(`https://x.test/${path}`);
      expect(parsed.ok && parsed.url.href).toHaveLength(URL_MAX_LENGTH);
    });
  });

  describe('hosts and ports a browser cannot reach (issue 21)', () => {
    it.each([
      'https://.example.com/',
      'https://a..b.example/',
      'https://-leading.example/',
      'https://trailing-.example/',
    ])('%s is host_invalid', (input) =>
      expect(parseBookmarkUrl(input)).toEqual({ ok: false, problem: 'host_invalid' }),
    );

    it('port 0 is port_invalid', () => {
      expect(parseBookmarkUrl('https://ok.example:0/')).toEqual({ ok: false, problem: 'port_invalid' });
    });

    it.each([
      'https://ok.example:8443/',
      'https://xn--caf-dma.example/',
      'https://my_host.example/',
      'http://192.168.0.1/',
      'http://[::1]:3000/',
      'https://example.com./',
      'https://a-b.example/',
    ])('%s is accepted', (input) => expect(parseBookmarkUrl(input).ok).toBe(true));
  });

  describe('host length (DNS allows 253 characters)', () => {
    const labels = (total: number) =>
      Array.from({ length: Math.ceil(total / 50) }, (_, i) => 'a'.repeat(49) + String(i % 10))
        .join('.')
        .slice(0, total);

    it(`accepts a host of ${HOST_MAX_LENGTH} characters, with or without the root dot`, () => {
      expect(parseBookmarkUrl(`https://${labels(HOST_MAX_LENGTH)}/`).ok).toBe(true);
      expect(parseBookmarkUrl(`https://${labels(HOST_MAX_LENGTH)}./`).ok).toBe(true);
    });

    it(`rejects a host of ${HOST_MAX_LENGTH + 1} characters as host_too_long`, () => {
      expect(parseBookmarkUrl(`https://${labels(HOST_MAX_LENGTH + 1)}/`)).toEqual({
        ok: false,
        problem: 'host_too_long',
      });
    });

    it('counts the punycoded host, not the characters as written', () => {
      // Distinct CJK characters: each takes several ASCII characters once punycoded.
      const label = (k: number) =>
        Array.from({ length: 40 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919 + k * 104729) % 20000))).join('');
      const written = `${[0, 1, 2].map(label).join('.')}.test`;
      expect(written.length).toBeLessThan(HOST_MAX_LENGTH);
      expect(parseBookmarkUrl(`https://${written}/`)).toEqual({ ok: false, problem: 'host_too_long' });
    });
  });

  describe('drops credentials, so they are never stored or published', () => {
    it.each([
      ['http://user:pass@x.test/a', 'http://x.test/a'],
      ['https://user@x.test/', 'https://x.test/'],
      ['https://:secret@x.test/b?c=1', 'https://x.test/b?c=1'],
    ])('%s → %s', (input, href) => {
      const parsed = parseBookmarkUrl(input);
      expect(parsed.ok && parsed.url.href).toBe(href);
    });
  });
});

describe('normalizeUrl', () => {
  describe('scheme, host and port', () => {
    it.each([
      ['HTTPS://WWW.Example.TEST/Page', 'https://www.example.test/Page'],
      ['http://x.test:80/a', 'http://x.test/a'],
      ['https://x.test:443/a', 'https://x.test/a'],
      ['http://x.test:8080/a', 'http://x.test:8080/a'],
      ['http://x.test:443/a', 'http://x.test:443/a'],
      ['https://x.test:80/a', 'https://x.test:80/a'],
    ])('%s → %s', (input, expected) => {
      expect(identity(input)).toBe(expected);
    });
  });

  describe('path is kept as written', () => {
    it.each([
      ['https://x.test/Docs/ReadMe', 'https://x.test/Docs/ReadMe'],
      ['https://x.test/docs/', 'https://x.test/docs/'],
      ['https://x.test/docs', 'https://x.test/docs'],
    ])('%s → %s', (input, expected) => {
      expect(identity(input)).toBe(expected);
    });
  });

  it('drops the fragment', () => {
    expect(identity('https://x.test/a?b=1#section-2')).toBe('https://x.test/a?b=1');
  });

  describe('drops tracking parameters, whatever their case', () => {
    it.each([
      'utm_source=news',
      'utm_medium=email',
      'utm_campaign=spring',
      'UTM_Source=news',
      'fbclid=abc',
      'FBCLID=abc',
      'gclid=abc',
      'msclkid=abc',
      'yclid=abc',
      'igshid=abc',
      'mc_cid=abc',
      '_ga=1.2.3',
      'pk_campaign=x',
      'mtm_source=x',
    ])('%s', (tracking) => {
      expect(identity(`https://x.test/a?id=7&${tracking}`)).toBe('https://x.test/a?id=7');
    });
  });

  describe('keeps parameters that only resemble tracking ones', () => {
    it.each(['utm=1', 'my_utm_source=1', 'gclid_extra=1', 'ref=home'])('%s', (param) => {
      expect(identity(`https://x.test/a?${param}`)).toBe(`https://x.test/a?${param}`);
    });
  });

  it('keeps the other parameters in their original order, repeats included', () => {
    expect(identity('https://x.test/a?b=2&utm_source=x&a=1&tag=x&fbclid=y&tag=y')).toBe(
      'https://x.test/a?b=2&a=1&tag=x&tag=y',
    );
  });

  it('drops the "?" when only tracking parameters were present', () => {
    expect(identity('https://x.test/a?utm_source=x&gclid=y#top')).toBe('https://x.test/a');
  });

  describe('keeps the remaining query exactly as written when tracking parameters are dropped', () => {
    it.each([
      ['https://x.test/search?q=a%20b&utm_source=x', 'https://x.test/search?q=a%20b'],
      ['https://x.test/a?flag&fbclid=1', 'https://x.test/a?flag'],
      ['https://x.test/a?next=/b/c&gclid=1', 'https://x.test/a?next=/b/c'],
      ['https://x.test/a?ids=1,2,3&utm_medium=m', 'https://x.test/a?ids=1,2,3'],
    ])('%s → %s', (input, expected) => {
      expect(identity(input)).toBe(expected);
    });
  });

  describe('URLs that differ only by tracking parameters, fragment or host case are the same page', () => {
    it.each([
      ['https://x.test/post?id=3', 'https://X.TEST/post?id=3&utm_source=feed#comments'],
      ['https://x.test/post', 'https://x.test:443/post?fbclid=abc'],
      ['http://x.test/post', 'HTTP://x.test:80/post#top'],
      ['https://x.test/search?q=a%20b', 'https://x.test/search?q=a%20b&utm_source=x'],
      ['https://x.test/page?', 'https://x.test/page?utm_source=x'],
    ])('%s ≡ %s', (a, b) => {
      expect(identity(a)).toBe(identity(b));
    });
  });

  describe('URLs of different pages stay different', () => {
    it.each([
      ['https://x.test/a', 'https://x.test/b'],
      ['https://x.test/Post', 'https://x.test/post'],
      ['https://x.test/post', 'https://x.test/post/'],
      ['https://x.test/post?id=1', 'https://x.test/post?id=2'],
      ['http://x.test/post', 'https://x.test/post'],
      ['https://x.test/post', 'https://x.test:8443/post'],
    ])('%s ≢ %s', (a, b) => {
      expect(identity(a)).not.toBe(identity(b));
    });
  });

  it('does not modify the URL it is given', () => {
    const url = new URL('https://x.test/a?utm_source=x#f');
    normalizeUrl(url);
    expect(url.href).toBe('https://x.test/a?utm_source=x#f');
  });
});
