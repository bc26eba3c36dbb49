/**
 * A note body (Markdown, see note-body.ts) as HTML for feed readers and the feed page: highlights as
 * `<blockquote>`, the description and comments as paragraphs, the source line as a link, and Markdown
 * inline formatting. Pure: no AWS, no I/O.
 *
 * The sanitising is an allow-list by construction: markdown-it runs with only the rules below, so it
 * can emit only their elements (ALLOWED_ELEMENTS); raw HTML in a note is text (`html: false`), and a
 * link whose scheme is not http, https or mailto stays text. No script, style, event attribute or
 * `javascript:` URL can come out, whatever a note holds. Entities stay as typed (`&amp;` reads
 * `&amp;`), as in the plain-text description: a pasted selection is text, not HTML source.
 */
import MarkdownIt from 'markdown-it';
import { sanitizeText } from './text';

/** What the rendered HTML may contain, and nothing else: element name → its attributes. */
export const ALLOWED_ELEMENTS: Readonly<Record<string, readonly string[]>> = {
  p: [],
  blockquote: [],
  br: [],
  em: [],
  strong: [],
  s: [],
  code: [],
  a: ['href'],
};

const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

const markdown = new MarkdownIt('zero', { html: false, breaks: true, linkify: false, typographer: false })
  .enable(['blockquote'])
  .enable(['emphasis', 'strikethrough', 'backticks', 'link', 'autolink', 'escape', 'newline']);

markdown.validateLink = (url) => {
  try {
    return LINK_SCHEMES.has(new URL(url).protocol);
  } catch {
    return false;
  }
};

/** The note body as sanitised HTML (empty for an empty body). */
export function noteHtml(body: string): string {
  return markdown.render(sanitizeText(body)).trimEnd();
}
