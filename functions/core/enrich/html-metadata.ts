/**
 * What the page worker keeps from a fetched page: its description and where its favicon may be.
 * Pure functions over bytes and strings; no network, nothing from AWS.
 */
import { DESCRIPTION_MAX_LENGTH } from '../save/note-body';
import { truncate } from '../text/text';

export interface PageMetadata {
  description: string | null;
  /** Absolute http(s) URLs, best first; always ends with the origin's /favicon.ico. */
  iconCandidates: string[];
}

/**
 * Characters of a page handed to the parser. Metadata lives in the head, near the top; the cap keeps
 * hostile pages cheap (htmlparser2 is quadratic in nesting depth: 2 MB of unclosed tags takes over a minute).
 */
export const HTML_PARSE_LIMIT = 256 * 1024;

/** How far into the body a `<meta charset>` is looked for (the HTML standard prescans 1024 bytes; pages are sloppier). */
const CHARSET_SNIFF_BYTES = 4096;

const CHARSET_PARAMETER = /charset\s*=\s*["']?\s*([^\s"';/>]+)/i;
const META_CHARSET = /<meta\b[^>]*?charset\s*=\s*["']?\s*([^\s"';/>]+)/i;
const DESCRIPTION_KEYS = ['description', 'og:description', 'twitter:description'];
const TOUCH_ICON_RELS = ['apple-touch-icon', 'apple-touch-icon-precomposed'];

// windows-1252 bytes 0x80–0x9F, which Node 20.18.3+/22.13+ decode as C1 controls (Latin-1) instead of
// €, smart quotes and dashes (nodejs/node#60888). The five bytes windows-1252 leaves undefined map to
// themselves, so applying this to output of a correct decoder changes nothing.
const WINDOWS_1252_C1 = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ';

/** The parts of linkedom's DOM used here (its typings need the DOM lib, which this project leaves out). */
export interface ParsedElement {
  readonly attributes: ArrayLike<{ readonly name: string; readonly value: string }>;
}
export interface ParsedDocument {
  querySelectorAll(selectors: string): Iterable<ParsedElement>;
}

/**
 * Decodes a page body. The encoding comes from, in order: a byte order mark (it cannot be wrong, and
 * the HTML standard lets it override the header), the Content-Type charset, a `<meta charset>` or
 * `<meta http-equiv="Content-Type">` in the first bytes, else UTF-8. Unknown labels are skipped.
 */
export function decodeHtml(body: Buffer, contentTypeHeader: string | null): string {
  const encoding =
    bomEncoding(body) ??
    knownEncoding(contentTypeHeader?.match(CHARSET_PARAMETER)?.[1]) ??
    metaEncoding(body) ??
    'utf-8';
  const text = new TextDecoder(encoding).decode(body);
  return encoding === 'windows-1252'
    ? text.replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_C1[c.charCodeAt(0) - 0x80] ?? c)
    : text;
}

function bomEncoding(body: Buffer): string | null {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return null;
}

/** The WHATWG name for a label (`latin1` → `windows-1252`), or null when TextDecoder does not know it. */
function knownEncoding(label: string | undefined): string | null {
  if (!label) return null;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return null;
  }
}

function metaEncoding(body: Buffer): string | null {
  // latin1 maps each byte to one character, so the ASCII markup reads the same in any ASCII-compatible charset.
  const head = body.subarray(0, CHARSET_SNIFF_BYTES).toString('latin1');
  const encoding = knownEncoding(head.match(META_CHARSET)?.[1]);
  // A page whose meta tag can be read as ASCII is not UTF-16, whatever it claims (HTML standard).
  return encoding?.startsWith('utf-16') ? 'utf-8' : encoding;
}

/**
 * Reads the description and icon links of a page. `pageUrl` is the page's final URL (after redirects);
 * only the first HTML_PARSE_LIMIT characters are parsed.
 *
 * description: the first non-empty of meta description, og:description, twitter:description (keys
 * taken from `name` or `property`, case-insensitive), whitespace collapsed, cut to DESCRIPTION_MAX_LENGTH characters.
 *
 * iconCandidates: `rel` icon links (this covers "shortcut icon"), then apple-touch-icon(-precomposed)
 * links; within each group the icon whose declared `sizes` is closest to 32–64 px comes first (no sizes
 * or "any" counts as fitting), ties in document order. Hrefs resolve against `<base href>`, else the
 * page URL; anything but http(s) is dropped. The page origin's /favicon.ico comes last. No duplicates.
 */
export async function extractPageMetadata(html: string, pageUrl: string): Promise<PageMetadata> {
  const page = new URL(pageUrl);
  // Loaded on first use: a cold start that fetches no HTML (a skipped or failed page) never pays for the parser.
  const { parseHTML } = await import('linkedom');
  const { document } = parseHTML(html.slice(0, HTML_PARSE_LIMIT)) as { document: ParsedDocument };
  return { description: findDescription(document), iconCandidates: findIcons(document, page) };
}

function findDescription(document: ParsedDocument): string | null {
  const found = new Map<string, string>();
  for (const meta of document.querySelectorAll('meta')) {
    const content = attribute(meta, 'content')?.replace(/\s+/g, ' ').trim();
    if (!content) continue;
    for (const key of [attribute(meta, 'name'), attribute(meta, 'property')]) {
      const normalised = key?.trim().toLowerCase();
      if (normalised && !found.has(normalised)) found.set(normalised, content);
    }
  }
  const description = DESCRIPTION_KEYS.map((key) => found.get(key)).find((value) => value !== undefined);
  return description === undefined ? null : truncate(description, DESCRIPTION_MAX_LENGTH);
}

function findIcons(document: ParsedDocument, page: URL): string[] {
  const base = documentBase(document, page);
  const icons: { href: string; group: number; distance: number }[] = [];
  for (const link of document.querySelectorAll('link')) {
    const rels = (attribute(link, 'rel') ?? '').toLowerCase().split(/\s+/);
    const group = rels.includes('icon') ? 0 : rels.some((rel) => TOUCH_ICON_RELS.includes(rel)) ? 1 : null;
    const href = group === null ? null : httpUrl(attribute(link, 'href'), base);
    if (group !== null && href) icons.push({ href, group, distance: sizeDistance(attribute(link, 'sizes')) });
  }
  icons.sort((a, b) => a.group - b.group || a.distance - b.distance);
  return [...new Set([...icons.map(({ href }) => href), new URL('/favicon.ico', page.origin).href])];
}

/** The first `<base href>`, resolved against the page URL, if it is an http(s) URL. */
export function documentBase(document: ParsedDocument, page: URL): string {
  for (const base of document.querySelectorAll('base')) {
    const href = attribute(base, 'href');
    if (href !== null) return httpUrl(href, page) ?? page.href;
  }
  return page.href;
}

export function httpUrl(href: string | null, base: string | URL): string | null {
  // An empty href would resolve to the page itself, which is not an icon.
  if (!href?.trim()) return null;
  try {
    const url = new URL(href.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Pixels between the declared size nearest to 32–64 px and that range; 0 when undeclared or "any". */
function sizeDistance(sizes: string | null): number {
  const pixels = [...(sizes ?? '').matchAll(/(\d+)x(\d+)/gi)].map(([, w, h]) => Math.max(Number(w), Number(h)));
  if (pixels.length === 0) return 0;
  return Math.min(...pixels.map((px) => (px < 32 ? 32 - px : px > 64 ? px - 64 : 0)));
}

/** HTML attribute names are case-insensitive, but linkedom keeps them as written (`CONTENT=`). */
export function attribute(element: ParsedElement, name: string): string | null {
  for (const { name: actual, value } of Array.from(element.attributes)) {
    if (actual.toLowerCase() === name) return value;
  }
  return null;
}
