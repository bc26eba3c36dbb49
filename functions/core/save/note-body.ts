/**
 * Note bodies are Markdown. A first save builds
 *
 *     {description}
 *
 *     Source: [{title}]({url})
 *
 *     > {selection, every line quoted}
 *
 *     {comment}
 *
 * and each later save of the same page appends another quote with its comment below it.
 */

export const SOURCE_LINE_PREFIX = 'Source: ';
/** A note's description, supplied with a save or scraped from the page, is cut to this many characters. */
export const DESCRIPTION_MAX_LENGTH = 500;
/** DynamoDB items hold 400 KB; the body gets most of it, the rest is left for the note's other attributes. */
export const NOTE_BODY_MAX_BYTES = 300 * 1024;

export interface HighlightInput {
  readonly selection: string | null;
  readonly comment: string | null;
}

export function buildNoteBody(
  input: HighlightInput & { description: string | null; title: string; url: string },
): string {
  return joinParagraphs([input.description, sourceLine(input.title, input.url), ...highlightParagraphs(input)]);
}

/** The body with one more highlight (and/or comment) at the end. */
export function appendHighlight(body: string, input: HighlightInput): string {
  return joinParagraphs([body.trimEnd(), ...highlightParagraphs(input)]);
}

/** What appending a highlight adds below the body's last paragraph ('' when it adds nothing). */
export function appendedText(input: HighlightInput): string {
  return joinParagraphs(highlightParagraphs(input));
}

/** A body with texts appended (`appendedText`s, oldest first): the body appendHighlight would have made of them one by one. */
export function withAppended(body: string, appended: readonly string[]): string {
  return appended.length ? joinParagraphs([body.trimEnd(), ...appended]) : body;
}

/** The bytes appending `text` adds to `body` (with the blank line that separates it). */
export function appendedBytes(body: string, text: string): number {
  return bodyBytes(withAppended(body, [text])) - bodyBytes(body);
}

/**
 * Places a description above the source line, as a first save with a description would have, but only
 * while the body still starts at its source line: a note that already has text above it is left alone.
 */
export function insertDescription(body: string, description: string): string | null {
  if (!body.startsWith(SOURCE_LINE_PREFIX)) return null;
  return joinParagraphs([description, body]);
}

export function sourceLine(title: string, url: string): string {
  // Escaped so the title stays literal text: brackets would end the link, `*` `_` `` ` `` would format it.
  const text = title
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\[\]*_`]/g, '\\$&');
  const destination = url.replace(/[()\s<>]/g, (char) =>
    encodeURIComponent(char).replace('(', '%28').replace(')', '%29'),
  );
  return `${SOURCE_LINE_PREFIX}[${text}](${destination})`;
}

/** Every line of the selection prefixed with the quote marker, so Markdown renders one blockquote. */
export function quote(selection: string): string {
  return normalizeNewlines(selection)
    .trim()
    .split('\n')
    .map((line) => (line.trim() ? `> ${line.trimEnd()}` : '>'))
    .join('\n');
}

/** Same text once surrounding white space and line endings are disregarded (a client's retry). */
export function sameHighlight(a: string | null | undefined, b: string | null | undefined): boolean {
  return !!a && !!b && normalizeNewlines(a).trim() === normalizeNewlines(b).trim();
}

/** True when the body's last paragraph(s) are exactly `paragraph`. */
export function endsWithParagraph(body: string, paragraph: string | null): boolean {
  if (!paragraph) return false;
  const text = normalizeNewlines(paragraph).trim();
  const trimmed = body.trimEnd();
  return trimmed === text || trimmed.endsWith(`\n\n${text}`);
}

export function bodyFits(body: string): boolean {
  return bodyBytes(body) <= NOTE_BODY_MAX_BYTES;
}

export function bodyBytes(body: string): number {
  return Buffer.byteLength(body, 'utf8');
}

function highlightParagraphs({ selection, comment }: HighlightInput): (string | null)[] {
  return [selection ? quote(selection) : null, comment ? normalizeNewlines(comment).trim() : null];
}

function joinParagraphs(parts: (string | null | undefined)[]): string {
  return parts.filter((part): part is string => !!part && part.trim() !== '').join('\n\n');
}

function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}
