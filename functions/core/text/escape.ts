/**
 * Every kind of escaping Gleaner writes, in one place: user text into HTML (pages, the bookmark file),
 * into HTML carried by a feed's CDATA section, and into XML through xmlbuilder2.
 */
import { sanitizeText } from './text';

/** Text as HTML content or a quoted attribute value (double or single quotes). */
export function escapeHtml(text: string): string {
  return sanitizeText(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * Text as HTML with hexadecimal references only, for a feed's CDATA section: the W3C feed validator
 * takes an element's entities for HTML unless its source line writes `&#x`. `>` is escaped too so the
 * text can never hold `]]>`, and CR so that a parser's line-end normalisation cannot turn it into LF.
 */
export function escapeHtmlWithHexReferences(text: string): string {
  return sanitizeText(text)
    .replace(/&/g, '&#x26;')
    .replace(/</g, '&#x3C;')
    .replace(/>/g, '&#x3E;')
    .replace(/\r/g, '&#xD;');
}

/**
 * A text or attribute value for xmlbuilder2 (RSS, Atom). Its serializer leaves entity-looking `&…;`
 * as written (a note's `&nbsp;` would be an undefined entity, and `&amp;` would read back as `&`),
 * and parsers turn a raw CR into LF. Escaping every `&` and CR here makes the output exact: the
 * serializer leaves `&amp;`/`&#13;` alone and still escapes `<` and `>` (and so `]]>`).
 */
export function xmlText(text: string): string {
  return sanitizeText(text).replace(/&/g, '&amp;').replace(/\r/g, '&#13;');
}
