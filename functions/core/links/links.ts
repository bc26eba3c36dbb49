/**
 * Connected notes: the links a note's text makes to other notes. Pure: no AWS, no I/O.
 *
 * - `[[Note title]]` (or `[[Note title|shown text]]`) links to the note with that title;
 * - an http(s) URL links to the note that saved that page.
 *
 * Both are resolved by a key, never by id: `title:<normalised title>` or `url:<normalised URL>` (the
 * save path's normaliser, so a link matches whatever `save` stored). A note answers to its title's key
 * and, when it saved a page, its URL's. A key no note answers to is an unresolved link, which resolves
 * by itself once a note with that title or URL is saved, and becomes unresolved again if that note
 * is renamed or deleted.
 */
import { normalizeUrl, parseBookmarkUrl } from '../save/url';

type LinkKind = 'title' | 'url';

/** A link as written in a note. */
export interface NoteLink {
  readonly kind: LinkKind;
  /** What it resolves by: `title:…` or `url:…`. */
  readonly key: string;
  /** The title or URL as written. */
  readonly target: string;
  /** The sentence the link stands in (plain text, at most `CONTEXT_MAX_LENGTH` characters). */
  readonly context: string;
}

/**
 * Links a note keeps: more are ignored (a pasted list of URLs is no web of notes), and a note's links
 * change in one DynamoDB transaction (100 actions: the new, the removed, the title, the check).
 */
const MAX_LINKS_PER_NOTE = 40;
export const CONTEXT_MAX_LENGTH = 280;
const TITLE_MAX_LENGTH = 300;

const WIKI_LINK = /\[\[([^[\]\n]+?)\]\]/g;
/** http(s) URLs up to whitespace or a character that closes markup around them. */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`\]]+/gi;
/** Punctuation that ends a sentence rather than the URL before it. */
const TRAILING_PUNCTUATION = /[.,;:!?*_]+$/;

/** The key a title resolves by: Unicode-normalised, case-folded, whitespace collapsed; null when empty. */
export function titleKey(title: string): string | null {
  const normalised = title.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
  return normalised && normalised.length <= TITLE_MAX_LENGTH ? `title:${normalised}` : null;
}

/** A piece of a note's text: plain text, or a `[[…]]` link with the text it shows and the key it resolves by. */
type TextPiece = { readonly text: string } | { readonly text: string; readonly key: string | null };

/** `text` cut at its `[[…]]` links (`[[Title|shown]]` shows its second part), in order, for rendering them as links. */
export function wikiLinkPieces(text: string): TextPiece[] {
  const pieces: TextPiece[] = [];
  let at = 0;
  for (const match of text.matchAll(WIKI_LINK)) {
    if (match.index > at) pieces.push({ text: text.slice(at, match.index) });
    const [target, shown] = match[1]!.split('|');
    pieces.push({ text: (shown ?? target)!.trim() || target!.trim(), key: titleKey(target!.trim()) });
    at = match.index + match[0].length;
  }
  if (at < text.length) pieces.push({ text: text.slice(at) });
  return pieces;
}

/** The key a URL resolves by (the save path's normalised URL); null for what `save` would refuse. */
export function urlKey(url: string): string | null {
  const parsed = parseBookmarkUrl(url);
  return parsed.ok ? `url:${normalizeUrl(parsed.url)}` : null;
}

/** The keys a note answers to: its title's and, for a saved page, its URL's. */
export function noteKeys(note: { readonly title: string; readonly url: string | null }): string[] {
  return [titleKey(note.title), note.url ? urlKey(note.url) : null].filter((key): key is string => key !== null);
}

/**
 * The links of `text`, each key once (its first place gives the context), in the order written,
 * leaving out links to `ownKeys` (a note's own source URL and title are no link to another note).
 */
export function parseLinks(text: string, ownKeys: readonly string[] = []): NoteLink[] {
  const found: (NoteLink & { index: number })[] = [];
  const wikiSpans: [number, number][] = [];
  for (const match of text.matchAll(WIKI_LINK)) {
    const target = match[1]!.split('|')[0]!.trim();
    const key = titleKey(target);
    wikiSpans.push([match.index, match.index + match[0].length]);
    if (key) found.push({ kind: 'title', key, target, index: match.index, context: '' });
  }
  for (const match of text.matchAll(URL_IN_TEXT)) {
    if (wikiSpans.some(([start, end]) => match.index >= start && match.index < end)) continue;
    const target = trimUrl(match[0]);
    const key = urlKey(target);
    if (key) found.push({ kind: 'url', key, target, index: match.index, context: '' });
  }
  const own = new Set(ownKeys);
  const seen = new Set<string>();
  return found
    .sort((a, b) => a.index - b.index)
    .filter((link) => !own.has(link.key) && !seen.has(link.key) && seen.add(link.key))
    .slice(0, MAX_LINKS_PER_NOTE)
    .map(({ index, ...link }) => ({ ...link, context: sentenceAround(text, index) }));
}

/** A URL without the punctuation after it, and without a `)` it did not open (`(see https://x.test)`). */
function trimUrl(raw: string): string {
  let url = raw.replace(TRAILING_PUNCTUATION, '');
  while (url.endsWith(')') && count(url, '(') < count(url, ')'))
    url = url.slice(0, -1).replace(TRAILING_PUNCTUATION, '');
  return url;
}

const count = (text: string, char: string) => text.split(char).length - 1;

const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });

/**
 * The sentence of `text` at `index`, as plain text: within its line (a quote's `>` marker dropped),
 * `[[Title|shown]]` as its title, cut around the link when longer than `CONTEXT_MAX_LENGTH`.
 */
function sentenceAround(text: string, index: number): string {
  const lineStart = text.lastIndexOf('\n', index - 1) + 1;
  const lineEnd = text.indexOf('\n', index);
  const line = text.slice(lineStart, lineEnd === -1 ? undefined : lineEnd);
  const offset = index - lineStart;
  let sentence = line;
  let at = offset;
  // URLs masked, so their `?` and `.` end no sentence.
  for (const segment of sentences.segment(line.replace(URL_IN_TEXT, (url) => 'x'.repeat(url.length)))) {
    if (offset >= segment.index && offset < segment.index + segment.segment.length) {
      sentence = line.slice(segment.index, segment.index + segment.segment.length);
      at = offset - segment.index;
      break;
    }
  }
  const plain = sentence.replace(/^\s*>\s?/, '');
  at -= sentence.length - plain.length;
  const cut = plain.length > CONTEXT_MAX_LENGTH ? Math.max(0, Math.min(at - 40, plain.length - CONTEXT_MAX_LENGTH)) : 0;
  const excerpt = plain.slice(cut, cut + CONTEXT_MAX_LENGTH);
  return `${cut > 0 ? '…' : ''}${excerpt.replace(WIKI_LINK, (_, inner: string) => inner.split('|').at(-1)!.trim()).trim()}${cut + CONTEXT_MAX_LENGTH < plain.length ? '…' : ''}`;
}

/** A note as links see it: what it answers to, and the text its links are written in. */
export interface LinkingNote {
  readonly id: string;
  readonly title: string;
  readonly url: string | null;
  readonly body: string;
  /** The owner's own comment on the note, when it has one. */
  readonly comment?: string | null;
}

/** The links a note makes: in its body (quotes and their comments) and its own comment. */
export function linksOfNote(note: LinkingNote): NoteLink[] {
  return parseLinks([note.body, note.comment ?? ''].join('\n\n'), noteKeys(note));
}

/** A link with the note it resolves to now, or null while no note answers to its key. */
export type ResolvedLink = NoteLink & { readonly note: { readonly id: string; readonly title: string } | null };

/** `links` resolved through `answering` (key → the note that answers to it). */
export function resolveLinks(
  links: readonly NoteLink[],
  answering: ReadonlyMap<string, { readonly id: string; readonly title: string }>,
): ResolvedLink[] {
  return links.map((link) => ({ ...link, note: answering.get(link.key) ?? null }));
}

/** A note that links to another, with the sentence around the link. */
export interface Backlink {
  readonly note: { readonly id: string; readonly title: string };
  readonly context: string;
}
