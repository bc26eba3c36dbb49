import sanitizeHtml from 'sanitize-html';
import { escapeHtml } from '../text/escape';
import { type QuoteToFind, type TextRange, textQuoteFinder } from './anchor';

/**
 * The one gate a kept article's HTML passes before it is stored: sanitize-html with a small allow
 * list. No script, event handler, style, iframe, form, base or meta survives; links are absolute
 * http(s) or mailto and carry rel="noopener noreferrer nofollow"; only images may use data: URLs.
 * Articles are sanitized when stored and served under a CSP that forbids scripts besides.
 */

const ALLOWED_TAGS = [
  'p',
  'br',
  'hr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'pre',
  'code',
  'kbd',
  'samp',
  'var',
  'em',
  'strong',
  'b',
  'i',
  'u',
  's',
  'del',
  'ins',
  'sub',
  'sup',
  'mark',
  'small',
  'abbr',
  'cite',
  'q',
  'dfn',
  'time',
  'ul',
  'ol',
  'li',
  'dl',
  'dt',
  'dd',
  'figure',
  'figcaption',
  'img',
  'table',
  'caption',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'th',
  'td',
  'a',
  'span',
  'div',
  'section',
  'article',
  'aside',
  'details',
  'summary',
];

/** Elements dropped with everything inside them (the rest of the disallowed ones keep their text). */
const DROPPED_WITH_CONTENT = [
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'svg',
  'math',
  'form',
  'textarea',
  'select',
  'option',
  'button',
  'title',
  'head',
];

export const LINK_REL = 'noopener noreferrer nofollow';

const BASE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ALLOWED_TAGS,
  allowedAttributes: {
    a: ['href', 'title'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    abbr: ['title'],
    time: ['datetime'],
    ol: ['start', 'reversed'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan', 'scope'],
    '*': ['dir', 'lang'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: false,
  allowedStyles: {},
  disallowedTagsMode: 'discard',
  nonTextTags: DROPPED_WITH_CONTENT,
  enforceHtmlBoundary: false,
  parseStyleAttributes: false,
};

/**
 * The article's HTML made safe to store and show. `pageUrl` resolves what is still relative; a link
 * or image whose address is not allowed loses it (an `<a>` without href is plain text, an `<img>`
 * without src is dropped).
 */
export function sanitizeArticleHtml(html: string, pageUrl: string): string {
  return sanitizeHtml(html, {
    ...BASE_OPTIONS,
    transformTags: {
      a: (tagName, attribs) => {
        const href = absoluteUrl(attribs.href, pageUrl, ['http:', 'https:', 'mailto:']);
        const { href: _dropped, ...rest } = attribs;
        return { tagName, attribs: href ? { ...rest, href, rel: LINK_REL } : rest };
      },
      img: (tagName, attribs) => {
        const src = absoluteUrl(attribs.src, pageUrl, ['http:', 'https:', 'data:']);
        const { src: _dropped, ...rest } = attribs;
        return { tagName, attribs: src && isImageUrl(src) ? { ...rest, src } : rest };
      },
    },
    allowedAttributes: { ...BASE_OPTIONS.allowedAttributes, a: ['href', 'title', 'rel'] },
    exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
  });
}

/**
 * Rewrites the images of sanitized article HTML: each `src` found in `kept` becomes the kept copy's
 * address; any other image is dropped (its figure caption stays), so a kept article never loads
 * anything from the page's site. The output passes the same allow list again.
 */
export function replaceImages(html: string, kept: ReadonlyMap<string, string>): string {
  return sanitizeHtml(html, {
    ...BASE_OPTIONS,
    allowedAttributes: { ...BASE_OPTIONS.allowedAttributes, a: ['href', 'title', 'rel'] },
    transformTags: {
      img: (tagName, attribs) => {
        const local = attribs.src ? kept.get(attribs.src) : undefined;
        const { src: _dropped, ...rest } = attribs;
        return { tagName, attribs: local ? { ...rest, src: local } : rest };
      },
    },
    exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
  });
}

/** A highlight the reader marks: its id and where its passage is. */
export interface ReaderMark {
  readonly id: string;
  readonly selector: QuoteToFind;
}

/**
 * Sanitized article HTML as the service's own pages show it: kept images as root-relative paths
 * (`/articles/<id>/images/<file>`, so they come from the page's own origin whatever address the
 * worker stored them under) and each highlight found in its text marked (`<mark class="highlight">`,
 * split where the passage crosses elements; the first piece has the id `hl-<highlight id>`). The
 * text is the HTML's text nodes, which is what a browser's selection in it is made of. A highlight
 * whose quote is there but whose context changed (the page fetched again) is marked where the
 * context agrees best. Answers the ids of the highlights it found: the others are not in this copy.
 */
export function readerHtml(html: string, marks: readonly ReaderMark[] = []): { html: string; found: Set<string> } {
  let text = '';
  sanitizeHtml(html, {
    ...READER_OPTIONS,
    textFilter: (escaped) => {
      text += unescapeText(escaped);
      return escaped;
    },
  });
  const find = textQuoteFinder(text);
  const ranges = marks.flatMap((mark) => {
    const range = find(mark.selector, { context: 'best' });
    return range ? [{ ...range, id: mark.id }] : [];
  });
  let offset = 0;
  const started = new Set<string>();
  const marked = sanitizeHtml(html, {
    ...READER_OPTIONS,
    ...(ranges.length
      ? {
          textFilter: (escaped: string) => {
            const chunk = unescapeText(escaped);
            const from = offset;
            offset += chunk.length;
            return markChunk(chunk, from, ranges, started);
          },
        }
      : {}),
  });
  return { html: joinMarks(marked), found: new Set(ranges.map((range) => range.id)) };
}

/** One mark where the parser gave a text node in pieces (it cuts at entities): `</mark>` then the same highlight's `<mark>`. */
function joinMarks(html: string): string {
  const split =
    /(<mark class="highlight" data-highlight="([^"]+)"[^>]*>[^<]*)<\/mark><mark class="highlight" data-highlight="\2">/g;
  for (let joined = html.replace(split, '$1'); ; joined = joined.replace(split, '$1')) {
    if (joined === html) return joined;
    html = joined;
  }
}

const READER_OPTIONS: sanitizeHtml.IOptions = {
  ...BASE_OPTIONS,
  allowedAttributes: { ...BASE_OPTIONS.allowedAttributes, a: ['href', 'title', 'rel'] },
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  transformTags: {
    img: (tagName, attribs) => {
      const path = /^https?:\/\/[^/]+(\/articles\/[0-9a-f-]{36}\/images\/[0-9a-f]{64}\.[a-z]{2,4})$/.exec(
        attribs.src ?? '',
      )?.[1];
      return { tagName, attribs: path ? { ...attribs, src: path } : attribs };
    },
  },
};

/** A text chunk (starting at `from` in the HTML's text) escaped again, with the parts inside a range marked. */
function markChunk(
  chunk: string,
  from: number,
  ranges: readonly (TextRange & { id: string })[],
  started: Set<string>,
): string {
  const to = from + chunk.length;
  const cuts = new Set([from, to]);
  for (const range of ranges) {
    if (range.start > from && range.start < to) cuts.add(range.start);
    if (range.end > from && range.end < to) cuts.add(range.end);
  }
  const points = [...cuts].sort((a, b) => a - b);
  let out = '';
  for (let i = 0; i + 1 < points.length; i++) {
    const [start, end] = [points[i]!, points[i + 1]!];
    const piece = escapeHtml(chunk.slice(start - from, end - from));
    // The latest-starting highlight over this piece names it (highlights may overlap).
    const over = ranges.filter((range) => range.start <= start && range.end >= end).at(-1);
    if (!over || !piece.trim()) {
      out += piece;
      continue;
    }
    const first = !started.has(over.id);
    started.add(over.id);
    out += `<mark class="highlight" data-highlight="${over.id}"${first ? ` id="hl-${over.id}"` : ''}>${piece}</mark>`;
  }
  return out;
}

/** sanitize-html escapes text as `&amp;`, `&lt;` and `&gt;` (entities decoded): this undoes it. */
function unescapeText(escaped: string): string {
  return escaped.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** The distinct http(s) image addresses of sanitized article HTML, in document order, at most `limit`. */
export function imageSources(html: string, limit: number): string[] {
  const sources = new Set<string>();
  sanitizeHtml(html, {
    ...BASE_OPTIONS,
    exclusiveFilter: (frame) => {
      const src = frame.tag === 'img' ? frame.attribs.src : undefined;
      if (src && /^https?:/i.test(src) && sources.size < limit) sources.add(src);
      return false;
    },
  });
  return [...sources];
}

function absoluteUrl(value: string | undefined, base: string, schemes: readonly string[]): string | null {
  if (!value?.trim()) return null;
  try {
    const url = new URL(value.trim(), base);
    return schemes.includes(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

/** A data: URL is kept only when it declares a raster or vector image type. */
function isImageUrl(src: string): boolean {
  return !src.startsWith('data:') || /^data:image\/[a-z0-9.+-]+[;,]/i.test(src);
}
