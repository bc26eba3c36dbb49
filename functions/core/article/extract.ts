/**
 * The article of a fetched page: Mozilla's Readability over a linkedom document, then the sanitizer.
 * Pure: a page's HTML and address in, the article (or the text a non-article page has) out.
 */
import { attribute, documentBase, httpUrl, type ParsedDocument, type ParsedElement } from '../enrich/html-metadata';
import { escapeHtml } from '../text/escape';
import { articleText, readingMinutes, wordCount } from './text';

/** What extraction found. `partial` keeps what text the page has and says why it is not an article. */
export interface ExtractedArticle {
  readonly status: 'kept' | 'partial';
  /** Why the page is only partly kept (null when kept). */
  readonly reason: string | null;
  readonly title: string | null;
  readonly byline: string | null;
  readonly siteName: string | null;
  /** ISO 8601, when the page states it. */
  readonly published: string | null;
  readonly language: string | null;
  /** `rtl` when the page says it is written right to left. */
  readonly direction: 'ltr' | 'rtl' | null;
  /** Sanitized HTML (images still at the page's addresses; see `replaceImages`). */
  readonly html: string;
  readonly text: string;
  readonly wordCount: number;
  readonly readingMinutes: number;
  readonly leadImage: string | null;
}

/** Fewer words than this and the page is kept as partial: a teaser, a paywall stub, an app shell. */
const MIN_ARTICLE_WORDS = 80;

/** Readability gives up (and the page is kept as partial) past this many elements. */
const MAX_ELEMENTS = 60_000;

/** Attributes lazy-loading scripts read the real image address from, most specific first. */
const LAZY_SOURCES = ['data-src', 'data-lazy-src', 'data-original', 'data-url', 'data-hi-res-src'];
const LAZY_SRCSETS = ['data-srcset', 'data-lazy-srcset', 'srcset'];

/** Chrome that never belongs to a page's text, removed before a non-article page's text is taken. */
const CHROME = 'script, style, noscript, template, nav, header, footer, aside, form, svg, iframe, button, select';

interface ReadabilityResult {
  readonly title?: string | null;
  readonly content?: string | null;
  readonly byline?: string | null;
  readonly dir?: string | null;
  readonly siteName?: string | null;
  readonly lang?: string | null;
  readonly publishedTime?: string | null;
}

interface DomElement extends ParsedElement {
  readonly tagName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  remove(): void;
}
interface DomDocument extends ParsedDocument {
  querySelectorAll(selectors: string): Iterable<DomElement>;
  querySelector(selectors: string): DomElement | null;
  readonly body: DomElement | null;
  readonly documentElement: DomElement | null;
  readonly title: string;
}

/**
 * Extracts the article of `html`, fetched from `pageUrl`. Relative addresses are made absolute
 * (against `<base href>` when there is one) and lazy images get their real address before
 * Readability runs; the result is sanitized. `truncated` says the page was cut at the size cap.
 */
export async function extractArticle(
  html: string,
  pageUrl: string,
  options: { truncated?: boolean } = {},
): Promise<ExtractedArticle> {
  // Loaded on first use: a worker whose message needs no page never pays for them (nor for
  // sanitize-html with htmlparser2 and postcss).
  const [{ parseHTML }, { Readability, isProbablyReaderable }, { imageSources, sanitizeArticleHtml }] =
    await Promise.all([import('linkedom'), import('@mozilla/readability'), import('./sanitize')]);
  const { document } = parseHTML(html) as unknown as { document: DomDocument };
  const base = documentBase(document, new URL(pageUrl));
  prepareDocument(document, base);
  const leadImage = metaContent(document, ['og:image', 'og:image:url', 'twitter:image'], base);
  const language = document.documentElement?.getAttribute('lang')?.trim() || null;

  // Readability's own test: paragraphs long enough to be prose (a list of search results has none).
  // Its thresholds are lowered for short forum posts and for scripts that say much in few characters.
  const readerable = isProbablyReaderable(document as never, { minContentLength: 80, minScore: 10 });
  let parsed: ReadabilityResult | null = null;
  try {
    parsed = new Readability<string>(document as never, {
      maxElemsToParse: MAX_ELEMENTS,
    }).parse() as ReadabilityResult | null;
  } catch {
    parsed = null; // Over the element cap: keep the page's text instead.
  }
  const fromArticle = parsed?.content ? sanitizeArticleHtml(parsed.content, base) : '';
  const articleTextValue = fromArticle ? await articleText(fromArticle) : '';
  const words = wordCount(articleTextValue);
  const isArticle = readerable && words >= MIN_ARTICLE_WORDS;

  let htmlOut = fromArticle;
  let text = articleTextValue;
  if (!isArticle) {
    // Readability took the document apart; the page's own text comes from a fresh parse.
    const fresh = parseHTML(html) as unknown as { document: DomDocument };
    prepareDocument(fresh.document, base);
    for (const element of [...fresh.document.querySelectorAll(CHROME)]) element.remove();
    const pageText = await articleText(sanitizeArticleHtml(fresh.document.body?.toString() ?? '', base));
    if (pageText.length > text.length) {
      text = pageText;
      htmlOut = paragraphs(text);
    }
  }
  const finalWords = wordCount(text);
  const reason = isArticle
    ? options.truncated
      ? 'the page is larger than the size limit; its beginning was read'
      : null
    : finalWords === 0
      ? 'the page has no text to keep (an app that draws itself with script, or an empty page)'
      : 'the page is not an article: its text is kept as found';
  const title = clean(parsed?.title) ?? clean(document.title);
  return {
    status: reason === null ? 'kept' : 'partial',
    reason,
    title,
    byline: clean(parsed?.byline),
    siteName: clean(parsed?.siteName),
    published: isoDate(parsed?.publishedTime),
    language: clean(parsed?.lang) ?? language,
    direction: parsed?.dir === 'rtl' ? 'rtl' : parsed?.dir === 'ltr' ? 'ltr' : null,
    html: htmlOut,
    text,
    wordCount: finalWords,
    readingMinutes: readingMinutes(finalWords),
    leadImage: leadImage ?? imageSources(htmlOut, 1)[0] ?? null,
  };
}

/** Lazy images get their real address, and every link and image address becomes absolute. */
function prepareDocument(document: DomDocument, base: string): void {
  for (const image of document.querySelectorAll('img')) {
    const current = image.getAttribute('src')?.trim() ?? '';
    const lazy = LAZY_SOURCES.map((name) => image.getAttribute(name)?.trim()).find(Boolean);
    const fromSrcset = LAZY_SRCSETS.map((name) => largestCandidate(image.getAttribute(name))).find(Boolean);
    const placeholder = !current || current.startsWith('data:') || /blank|spacer|placeholder|pixel/i.test(current);
    const real = placeholder ? (lazy ?? fromSrcset) : current;
    if (real) image.setAttribute('src', httpUrl(real, base) ?? real);
    for (const name of LAZY_SRCSETS) image.removeAttribute(name);
  }
  for (const link of document.querySelectorAll('a[href]')) {
    const href = attribute(link, 'href');
    if (href && !href.startsWith('#')) {
      const absolute = httpUrl(href, base);
      if (absolute) link.setAttribute('href', absolute);
    }
  }
}

/** The address of the widest (or densest) candidate of a `srcset`. */
function largestCandidate(srcset: string | null): string | undefined {
  let best: { url: string; size: number } | undefined;
  for (const candidate of (srcset ?? '').split(/,\s+/)) {
    const [url, descriptor = '1x'] = candidate.trim().split(/\s+/);
    const size = Number.parseFloat(descriptor) || 1;
    if (url && (!best || size > best.size)) best = { url, size };
  }
  return best?.url;
}

function metaContent(document: DomDocument, keys: readonly string[], base: string): string | null {
  for (const key of keys) {
    for (const meta of document.querySelectorAll('meta')) {
      const name = (attribute(meta, 'property') ?? attribute(meta, 'name'))?.trim().toLowerCase();
      const url = name === key ? httpUrl(attribute(meta, 'content'), base) : null;
      if (url) return url;
    }
  }
  return null;
}

function clean(value: string | null | undefined): string | null {
  const text = value?.replace(/\s+/g, ' ').trim();
  return text ? text : null;
}

function isoDate(value: string | null | undefined): string | null {
  const time = value ? Date.parse(value) : Number.NaN;
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/** Plain text as HTML paragraphs, for a page whose markup is not worth keeping. */
function paragraphs(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`)
    .join('\n');
}
