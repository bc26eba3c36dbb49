/**
 * Highlights as their own records and as feed entries. Pure: no AWS, no I/O.
 *
 * - `highlightsOfBody(body)`: the quotes (and the comment after each) a note body holds, for notes
 *   saved before highlights were recorded on their own (`gleaner migrate`).
 * - `textFragmentUrl(url, quote)`: the page URL pointing at the quote (URL Fragment Text Directives).
 * - `highlightEntries(notes, highlights, max)`: one feed entry per highlight, the newest `max`.
 * - `rewriteHighlight(body, highlights, id, change)`: the body with one highlight's comment changed,
 *   or the highlight taken out.
 */
import { type FeedNote, sortNewestFirst } from '../feed/feed';
import type { Highlight } from '../model';
import { quote as quoted, SOURCE_LINE_PREFIX } from './note-body';

/** Words of the quote's start a text directive names: enough to find it, short enough to survive edits. */
const TEXT_DIRECTIVE_WORDS = 8;

/** The quotes of a note body in order, each with the comment paragraph that follows it (if any). */
export function highlightsOfBody(body: string): { quote: string; comment: string | null }[] {
  const paragraphs = body.replace(/\r\n?/g, '\n').split(/\n{2,}/);
  const found: { quote: string; comment: string | null }[] = [];
  paragraphs.forEach((paragraph, index) => {
    const lines = paragraph.split('\n');
    if (!lines.every((line) => line === '>' || line.startsWith('> '))) return;
    const text = lines
      .map((line) => line.replace(/^> ?/, ''))
      .join('\n')
      .trim();
    if (!text) return;
    const next = paragraphs[index + 1];
    const comment =
      next !== undefined && !next.startsWith('>') && !next.startsWith(SOURCE_LINE_PREFIX) ? next.trim() || null : null;
    found.push({ quote: text, comment });
  });
  return found;
}

/**
 * `url` with a text directive for the start of `quote` (`#:~:text=…`), percent-encoding what the
 * directive syntax reserves (`&`, `-`, `,`) and whatever a fragment may not hold as written.
 */
export function textFragmentUrl(url: string, quote: string): string {
  const start = quote.split(/\s+/).filter(Boolean).slice(0, TEXT_DIRECTIVE_WORDS).join(' ');
  if (!start) return url;
  const directive = `:~:text=${encodeURIComponent(start).replace(/-/g, '%2D')}`;
  return url.includes('#') ? `${url}${directive}` : `${url}#${directive}`;
}

/** The note body of a highlight entry: the quote, then its comment. */
function highlightBody(highlight: Pick<Highlight, 'quote' | 'comment'>): string {
  return [quoted(highlight.quote), highlight.comment].filter(Boolean).join('\n\n');
}

/**
 * One feed entry per highlight of `notes`, the newest `max`: the page's title, the quote and
 * comment, a link to the quote, when it was saved.
 */
export function highlightEntries(
  notes: readonly FeedNote[],
  highlights: readonly Highlight[],
  max: number,
): FeedNote[] {
  const byId = new Map(notes.map((note) => [note.id, note]));
  const entries = highlights.flatMap((highlight) => {
    const note = byId.get(highlight.noteId);
    if (!note) return [];
    return [
      {
        id: highlight.id,
        title: note.title,
        body: highlightBody(highlight),
        tags: note.tags,
        url: note.url && textFragmentUrl(note.url, highlight.quote),
        updated: highlight.saved,
        created: highlight.saved,
      },
    ];
  });
  return sortNewestFirst(entries).slice(0, max);
}

/**
 * `body` with the highlight `id` (one of the note's `highlights`, oldest first) given a new comment
 * (`{ comment }`, null for none) or taken out with its comment (`null`). The highlight is found as a
 * save wrote it: its quoted paragraph with its comment paragraph below (when it has one); of several
 * highlights with the same quote and comment, the one at the same place among them. Null when the
 * body does not hold it (a body restored from elsewhere): then only the record changes.
 */
export function rewriteHighlight(
  body: string,
  highlights: readonly Pick<Highlight, 'id' | 'quote' | 'comment'>[],
  id: string,
  change: { readonly comment: string | null } | null,
): string | null {
  const target = highlights.find((highlight) => highlight.id === id);
  if (!target) return null;
  const block = (comment: string | null) => [quoted(target.quote), oneLineEnds(comment)].filter(Boolean).join('\n\n');
  const same = (highlight: Pick<Highlight, 'quote' | 'comment'>) =>
    highlight.quote === target.quote && oneLineEnds(highlight.comment) === oneLineEnds(target.comment);
  const nth = highlights.slice(0, highlights.indexOf(target)).filter(same).length;
  const written = block(target.comment);
  let at = -1;
  for (let seen = -1, from = 0; seen < nth; from = at + 1) {
    at = body.indexOf(written, from);
    if (at === -1) return null;
    const whole =
      (at === 0 || body.startsWith('\n\n', at - 2)) &&
      (at + written.length === body.length || body.startsWith('\n\n', at + written.length));
    if (whole) seen++;
  }
  const end = at + written.length;
  if (change) return body.slice(0, at) + block(change.comment) + body.slice(end);
  // Out with the blank line that separated it from what follows (or, at the end, from what precedes).
  return end < body.length ? body.slice(0, at) + body.slice(end + 2) : body.slice(0, Math.max(0, at - 2));
}

/** A comment as a note body holds it: its line ends as `\n`, no white space around it; null for none. */
function oneLineEnds(comment: string | null | undefined): string | null {
  return comment?.replace(/\r\n?/g, '\n').trim() || null;
}
