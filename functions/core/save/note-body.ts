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

import type { Note } from '../model';

export const SOURCE_LINE_PREFIX = 'Source: ';
/** A note's description, supplied with a save or scraped from the page, is cut to this many characters. */
export const DESCRIPTION_MAX_LENGTH = 500;
/** A note's body holds at most this many UTF-8 bytes. */
export const NOTE_BODY_MAX_BYTES = 300 * 1024;
/**
 * DynamoDB refuses an item over 400 KB, and a note is one item: its body, what each append kept beside
 * its text, its title, URL, comment, tags and last highlight together stay within this.
 */
export const NOTE_STORED_MAX_BYTES = 400 * 1024;
/**
 * What an append keeps in its note beside its text, at most: its entry's id and time with their
 * names and the entry's overhead, and its id in the note's set of append ids (a test measures it).
 */
export const APPEND_RECORD_BYTES = 160;
/** What a note keeps beside the fields NoteBody counts, at most: its keys, ids, times, counters and the names of all. */
const NOTE_RECORD_BYTES = 2 * 1024;

/** The fields of a note a change may write, which NoteBody counts. */
type StoredFields = Pick<Note, 'body' | 'title' | 'url' | 'comment' | 'tags' | 'lastHighlight'>;

/** Which limit a change would pass: the body's own, or the note's as stored. */
export type NoteLimit = 'body' | 'stored';

/**
 * A note's body with the room the note takes in storage: the one place that knows both limits. Every
 * write that makes a note bigger (an append, a save that rewrites it, an owner's edit) asks
 * `refusal` first, so a note that would pass DynamoDB's item limit is refused with the contract's 422
 * `note_too_large` before DynamoDB refuses the write (which was a 500).
 */
export class NoteBody {
  private constructor(
    private readonly note: StoredFields,
    /** The note's bytes as stored, as the store measured them when it read it (else estimated). */
    readonly storedBytes: number,
  ) {}

  /** A note's body as read (its `storedBytes` measured by the store) or as about to be written. */
  static of(note: StoredFields & Pick<Note, 'storedBytes'>): NoteBody {
    return new NoteBody(note, note.storedBytes ?? NOTE_RECORD_BYTES + fieldBytes(note));
  }

  get bytes(): number {
    return bodyBytes(this.note.body);
  }

  /**
   * The limit the note would pass as `next` (its fields after the change) with `appends` more
   * appends recorded in it, or null when it fits both.
   */
  refusal(next: StoredFields, appends = 0): NoteLimit | null {
    if (bodyBytes(next.body) > NOTE_BODY_MAX_BYTES) return 'body';
    const growth = fieldBytes(next) - fieldBytes(this.note) + appends * APPEND_RECORD_BYTES;
    // A change that does not make the note bigger is never refused, however full it is.
    return growth > 0 && this.storedBytes + growth > NOTE_STORED_MAX_BYTES ? 'stored' : null;
  }
}

/** The bytes of the fields a change writes (tags with a few bytes each for their place in the list). */
function fieldBytes(note: StoredFields): number {
  const text = (value: string | null | undefined) => (value ? bodyBytes(value) : 0);
  return (
    text(note.body) +
    text(note.title) +
    text(note.url) +
    text(note.comment) +
    text(note.lastHighlight) +
    note.tags.reduce((sum, tag) => sum + text(tag) + 4, 0)
  );
}

/**
 * DynamoDB refused a note's write for the size of its item: a race between the use case's NoteBody
 * check and the write (another append meanwhile). Nothing was written; the answer is note_too_large.
 */
export class NoteTooLargeError extends Error {}

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

/** The description above a body's source line, as a first save put it there; null when the body starts at its source line. */
export function descriptionOf(body: string): string | null {
  const end = body.indexOf(`\n\n${SOURCE_LINE_PREFIX}`);
  return end > 0 && !body.startsWith(SOURCE_LINE_PREFIX) ? body.slice(0, end).trim() || null : null;
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
