/**
 * What the search index holds for a note: its text by field (each field weighted in ranking), and
 * the keys filters compare against. Keys the user can name (tags, URLs) are stored hashed, so a
 * filter compares hex digests and never has to carry the user's text (see filter.ts).
 */
import { createHash } from 'node:crypto';
import type { Note } from '../model';
import { highlightsOfBody } from '../save/highlights';
import { SOURCE_LINE_PREFIX } from '../save/note-body';
import { normalizeUrl, parseBookmarkUrl } from '../save/url';
import { PREFIX_MAX_LENGTH, PREFIX_MIN_LENGTH } from './query';
import { tokenize } from './tokens';

/** The text fields, in ranking weight order; a word in a title counts most. */
export const TEXT_FIELDS = ['title', 'tags_text', 'highlights', 'comment', 'description', 'url', 'article'] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

/** BM25 boosts per field: a title or tag says what a note is about more than a long description does. */
export const FIELD_WEIGHTS: Record<TextField, number> = {
  title: 4,
  tags_text: 3,
  highlights: 2,
  comment: 2,
  description: 1,
  url: 1,
  // The kept page's text: a word found only there still finds the note, below every word the note itself holds.
  article: 0.5,
};

/** The kept article's text is indexed up to this many characters (about 15,000 words). */
const ARTICLE_INDEX_CHARS = 100_000;

/** A note's prefix column holds at most this many distinct prefixes (a very long note keeps its first words'). */
const MAX_PREFIXES = 4000;

export interface SearchDocument {
  readonly note_id: string;
  readonly user_id: string;
  /** The note's version: the index only ever moves forward to a higher one. */
  readonly version: number;
  /** Epoch milliseconds. */
  readonly created: number;
  readonly updated: number;
  readonly title: string;
  readonly tags_text: string;
  readonly highlights: string;
  readonly comment: string;
  readonly description: string;
  readonly url: string;
  /** The kept article's text (its first ARTICLE_INDEX_CHARS characters), or ''. */
  readonly article: string;
  readonly tags: string[];
  /** Hashed keys of its tags (`tagKey`) and of its reading states (`stateKey`: archived, starred). */
  readonly tag_keys: string[];
  /** The bookmark's host and each parent domain under its public suffix's level (`a.b.org` → `a.b.org`, `b.org`). */
  readonly sites: string[];
  /** SHA-256 of the normalised URL, or '' for a note without one. */
  readonly url_key: string;
  readonly highlight_count: number;
  /** Every distinct prefix of every word, space separated: `prefix*` is an exact term lookup in it. */
  readonly prefixes: string;
}

export function searchDocument(note: Note): SearchDocument {
  return searchDocumentWithArticle(note, '');
}

/** The note's document with its kept article's text. */
export function searchDocumentWithArticle(note: Note, article: string): SearchDocument {
  const { description, highlights, comment } = bodyParts(note.body);
  const parsed = note.url ? parseBookmarkUrl(note.url) : null;
  const host = parsed?.ok ? parsed.url.hostname.replace(/\.$/, '') : null;
  const fields = {
    title: note.title,
    tags_text: note.tags.join(' '),
    highlights: highlights.join('\n\n'),
    comment: comment.join('\n\n'),
    description: description.join('\n\n'),
    url: note.url ?? '',
    article: article.slice(0, ARTICLE_INDEX_CHARS),
  };
  return {
    note_id: note.id,
    user_id: note.userId,
    version: note.version,
    created: Date.parse(note.created),
    updated: Date.parse(note.updated ?? note.created),
    ...fields,
    tags: [...note.tags],
    tag_keys: [
      ...note.tags.map(tagKey),
      ...(note.archivedAt ? [stateKey('archived')] : []),
      ...(note.starredAt ? [stateKey('starred')] : []),
    ],
    sites: host ? siteKeys(host) : [],
    url_key: parsed?.ok ? urlKey(normalizeUrl(parsed.url)) : '',
    highlight_count: highlights.length,
    prefixes: prefixesOf(Object.values(fields).join(' ')),
  };
}

/** The text an embedder reads for a note. */
export function embeddingText(document: Pick<SearchDocument, TextField>): string {
  return [document.title, document.tags_text, document.description, document.highlights, document.comment]
    .filter(Boolean)
    .join('\n\n');
}

/** Words per chunk of a kept article that gets a vector of its own, and the words two chunks share. */
const CHUNK_WORDS = 200;
const CHUNK_OVERLAP = 40;
/** Chunks embedded per article (its first 1,320 words or so): a note's semantic score is its best chunk's. */
export const MAX_ARTICLE_CHUNKS = 8;

/**
 * The passages of a note's kept article an embedder reads, each under the note's title: windows of
 * CHUNK_WORDS words overlapping by CHUNK_OVERLAP, at most MAX_ARTICLE_CHUNKS; none without an article.
 */
export function articleChunks(document: Pick<SearchDocument, 'title' | 'article'>): string[] {
  const words = document.article.split(/\s+/).filter(Boolean);
  const chunks: string[] = [];
  for (
    let start = 0;
    start < words.length && chunks.length < MAX_ARTICLE_CHUNKS;
    start += CHUNK_WORDS - CHUNK_OVERLAP
  ) {
    chunks.push(`${document.title}\n\n${words.slice(start, start + CHUNK_WORDS).join(' ')}`);
    if (start + CHUNK_WORDS >= words.length) break;
  }
  return chunks;
}

export function tagKey(tag: string): string {
  return digest(`tag:${tag}`).slice(0, 32);
}

/**
 * The key of a reading state, held beside the tag keys (a tag's key hashes `tag:…`, so none is
 * ever the same): a filter on it needs no column of its own.
 */
export function stateKey(state: 'archived' | 'starred'): string {
  return digest(`state:${state}`).slice(0, 32);
}

export function urlKey(normalizedUrl: string): string {
  return digest(`url:${normalizedUrl}`);
}

/** `www.a.b.org` → `www.a.b.org`, `a.b.org`, `b.org` (never a lone top-level domain). */
export function siteKeys(host: string): string[] {
  const labels = host.toLowerCase().split('.');
  if (labels.length < 2) return [host.toLowerCase()];
  return labels.slice(0, -1).map((_, index) => labels.slice(index).join('.'));
}

/** The description above the source line, the quoted highlights, and the other paragraphs (comments). */
function bodyParts(body: string): { description: string[]; highlights: string[]; comment: string[] } {
  const paragraphs = body
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean);
  const source = paragraphs.findIndex((paragraph) => paragraph.startsWith(SOURCE_LINE_PREFIX));
  const after = source === -1 ? paragraphs : paragraphs.slice(source + 1);
  const isQuote = (paragraph: string) => paragraph.split('\n').every((line) => line === '>' || line.startsWith('> '));
  return {
    description: source === -1 ? [] : paragraphs.slice(0, source),
    highlights: highlightsOfBody(after.join('\n\n')).map((highlight) => highlight.quote),
    comment: after.filter((paragraph) => !isQuote(paragraph)),
  };
}

function prefixesOf(text: string): string {
  const prefixes = new Set<string>();
  for (const word of new Set(tokenize(text))) {
    for (let length = PREFIX_MIN_LENGTH; length <= Math.min(word.length, PREFIX_MAX_LENGTH); length++) {
      prefixes.add(word.slice(0, length));
    }
    if (prefixes.size >= MAX_PREFIXES) break;
  }
  return [...prefixes].join(' ');
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
