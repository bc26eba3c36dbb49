/**
 * A hit's snippet: the passage of its note that matches the query best, with the matched words
 * marked. The passage is chosen from the highlights, comment, description, title and the kept
 * article's text (in that order on ties) by how many of the query's distinct terms it holds, then how
 * many matches.
 */
import type { SearchQuery, Term } from './query';
import { editDistance, wordSpans } from './tokens';

/** Words in a passage (a window of a field's text). */
const PASSAGE_WORDS = 30;

export interface SnippetSource {
  readonly title: string;
  readonly highlights: string;
  readonly comment: string;
  readonly description: string;
  readonly article: string;
}

/** A passage as text pieces, each marked or not. */
export type Snippet = readonly { readonly text: string; readonly match: boolean }[];

export function bestSnippet(source: SnippetSource, query: SearchQuery): Snippet {
  const terms = [...query.required, ...query.optional];
  let best: { snippet: Snippet; distinct: number; matches: number } | null = null;
  for (const text of [source.highlights, source.comment, source.description, source.title, source.article]) {
    if (!text.trim()) continue;
    for (const passage of passages(text, terms)) {
      if (
        !best ||
        passage.distinct > best.distinct ||
        (passage.distinct === best.distinct && passage.matches > best.matches)
      )
        best = passage;
    }
  }
  return best?.snippet ?? [];
}

/** Markdown-style emphasis for a terminal: `**word**`. */
export function snippetText(snippet: Snippet): string {
  return snippet.map((piece) => (piece.match ? `**${piece.text}**` : piece.text)).join('');
}

/** HTML with `<mark>` around matches, everything else escaped. */
export function snippetHtml(snippet: Snippet): string {
  return snippet
    .map((piece) => (piece.match ? `<mark>${escapeHtml(piece.text)}</mark>` : escapeHtml(piece.text)))
    .join('');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** Windows of PASSAGE_WORDS words over `text`, each with what it matches. */
function passages(text: string, terms: readonly Term[]) {
  const flat = text.replace(/\s+/g, ' ').trim();
  const spans = wordSpans(flat);
  const matchedBy = spans.map((_, index) => terms.findIndex((term) => termMatchesAt(term, spans, index)));
  const found = [];
  const step = Math.max(1, Math.floor(PASSAGE_WORDS / 2));
  for (let start = 0; start === 0 || start + PASSAGE_WORDS - step < spans.length; start += step) {
    const window = spans.slice(start, start + PASSAGE_WORDS);
    const hits = matchedBy.slice(start, start + PASSAGE_WORDS);
    const distinct = new Set(hits.filter((term) => term >= 0)).size;
    const matches = hits.filter((term) => term >= 0).length;
    const from = start === 0 ? 0 : window[0]!.start;
    const to = start + PASSAGE_WORDS >= spans.length ? flat.length : window[window.length - 1]!.end;
    found.push({ snippet: marked(flat, spans, matchedBy, from, to, start > 0, to < flat.length), distinct, matches });
  }
  return found;
}

function termMatchesAt(term: Term, spans: readonly { word: string }[], index: number): boolean {
  const word = spans[index]!.word;
  if (term.kind === 'prefix') return word.startsWith(term.prefix);
  if (term.kind === 'word')
    return word === term.word || (term.typos > 0 && editDistance(word, term.word, term.typos) <= term.typos);
  // A phrase marks each of its words where the whole phrase starts at or covers this word.
  for (let offset = 0; offset < term.words.length; offset++) {
    const start = index - offset;
    if (start >= 0 && term.words.every((phraseWord, i) => spans[start + i]?.word === phraseWord)) return true;
  }
  return false;
}

function marked(
  text: string,
  spans: readonly { start: number; end: number }[],
  matchedBy: readonly number[],
  from: number,
  to: number,
  leadingEllipsis: boolean,
  trailingEllipsis: boolean,
): Snippet {
  const pieces: { text: string; match: boolean }[] = [];
  const push = (piece: string, match: boolean) => {
    if (!piece) return;
    const last = pieces[pieces.length - 1];
    if (last && last.match === match && !match) last.text += piece;
    else pieces.push({ text: piece, match });
  };
  if (leadingEllipsis) push('… ', false);
  let at = from;
  spans.forEach((span, index) => {
    if (span.start < from || span.end > to || matchedBy[index]! < 0) return;
    push(text.slice(at, span.start), false);
    push(text.slice(span.start, span.end), true);
    at = span.end;
  });
  push(text.slice(at, to), false);
  if (trailingEllipsis) push(' …', false);
  return pieces;
}
