/**
 * Related notes: up to five of the user's other notes, each with why it is related. By vector
 * similarity when the embedding model's vectors cover the user's notes; otherwise by shared tags and
 * a more-like-this keyword query (the note's most telling words, any of which may match). Every read
 * goes through the index's user filter, so another user's note never comes back.
 */

import type { SearchQuery, Term } from './query';
import { type IndexedNote, type SearchIndex, type SearchPorts, vectorsCover } from './search';
import { tokenize } from './tokens';

const RELATED_LIMIT = 5;
/** Words of the note a more-like-this query asks for. */
const LIKE_THIS_TERMS = 12;
/** Tags of the note whose other notes are looked up. */
const SHARED_TAGS_LOOKED_UP = 5;
/** Words too common or too short to say what a note is about. */
const UNTELLING = new Set(
  (
    'a an and are as at be but by can for from has have how i if in into is it its not of on or our so ' +
    'that the their then there these this those to was we were what when where which who why will with you your ' +
    'http https www com org net html'
  ).split(' '),
);

interface RelatedNote {
  readonly note_id: string;
  readonly title: string;
  readonly url: string | null;
  readonly tags: string[];
  /** Why: "shares #rust", "similar text", "similar meaning", or several joined by ", ". */
  readonly reason: string;
}

export interface RelatedAnswer {
  readonly related: RelatedNote[];
  /** How they were found: `semantic` (vectors) or `keyword` (shared tags and words). */
  readonly mode: 'semantic' | 'keyword';
}

export interface RelatedIndex extends SearchIndex {
  /** The user's live note with this id, or null (another user's, deleted, or not indexed yet). */
  note(userId: string, noteId: string): Promise<IndexedNote | null>;
  /** The note's vector in `model`'s space, or null when it has none. */
  vectorOf(userId: string, noteId: string, model: string): Promise<number[] | null>;
}

/** A query with no words or filters: every live note of the user passes it. */
const EVERY_NOTE: SearchQuery = {
  required: [],
  optional: [],
  excluded: [],
  tags: [],
  excludedTags: [],
  sites: [],
  after: null,
  before: null,
  hasHighlight: false,
  archived: null,
  starred: null,
  url: null,
};

export async function relatedNotes(
  ports: SearchPorts & { readonly index: RelatedIndex },
  userId: string,
  noteId: string,
): Promise<RelatedAnswer> {
  const note = await ports.index.note(userId, noteId);
  if (!note) return { related: [], mode: 'keyword' };
  const semantic = await bySimilarVectors(ports, userId, note);
  if (semantic) return { related: semantic, mode: 'semantic' };
  return { related: await bySharedTagsAndWords(ports.index, userId, note), mode: 'keyword' };
}

/** Nearest neighbours of the note's vector, or null when vectors cannot be used for this user now. */
async function bySimilarVectors(
  { index, embedder }: SearchPorts & { readonly index: RelatedIndex },
  userId: string,
  note: IndexedNote,
): Promise<RelatedNote[] | null> {
  if (!embedder) return null;
  if (!vectorsCover(await index.coverage(userId, embedder.model))) return null;
  const vector = await index.vectorOf(userId, note.note_id, embedder.model);
  if (!vector) return null;
  const nearest = await index.semantic(userId, EVERY_NOTE, vector, embedder.model, RELATED_LIMIT + 1);
  // Every note is some distance away: a neighbour below the model's floor is related only by a shared tag.
  const floor = embedder.floor?.alone ?? Number.NEGATIVE_INFINITY;
  return nearest
    .filter((hit) => hit.note.note_id !== note.note_id)
    .slice(0, RELATED_LIMIT)
    .flatMap((hit) => {
      const reasons = [...sharedTagReasons(note, hit.note), ...(hit.score >= floor ? ['similar meaning'] : [])];
      return reasons.length > 0 ? [related(hit.note, reasons)] : [];
    });
}

/**
 * Notes sharing the most tags with this one come first, then by how well they match its telling
 * words (BM25 over the same weighted fields as search); ties go to the text match.
 */
async function bySharedTagsAndWords(index: SearchIndex, userId: string, note: IndexedNote): Promise<RelatedNote[]> {
  const window = RELATED_LIMIT + 1;
  const terms = tellingWords(note).map((word): Term => ({ kind: 'word', word, typos: 0 }));
  const [textHits, ...taggedLists] = await Promise.all([
    terms.length ? index.keyword(userId, { ...EVERY_NOTE, optional: terms }, window * 2) : [],
    ...note.tags
      .slice(0, SHARED_TAGS_LOOKED_UP)
      .map((tag) => index.keyword(userId, { ...EVERY_NOTE, tags: [tag] }, window)),
  ]);
  const candidates = new Map<string, { note: IndexedNote; shared: number; textRank: number }>();
  const candidate = (hit: IndexedNote) => {
    const found = candidates.get(hit.note_id) ?? { note: hit, shared: 0, textRank: Number.POSITIVE_INFINITY };
    candidates.set(hit.note_id, found);
    return found;
  };
  textHits.forEach((hit, rank) => {
    candidate(hit.note).textRank = rank;
  });
  for (const list of taggedLists) for (const hit of list) candidate(hit.note);
  for (const found of candidates.values()) found.shared = sharedTagReasons(note, found.note).length;
  candidates.delete(note.note_id);
  return [...candidates.values()]
    .sort((a, b) => b.shared - a.shared || a.textRank - b.textRank || a.note.note_id.localeCompare(b.note.note_id))
    .slice(0, RELATED_LIMIT)
    .map((found) =>
      related(found.note, [
        ...sharedTagReasons(note, found.note),
        ...(Number.isFinite(found.textRank) ? ['similar text'] : []),
      ]),
    );
}

/** The note's words that say most what it is about: by how often they occur, title words counting twice. */
function tellingWords(note: IndexedNote): string[] {
  const counts = new Map<string, number>();
  const add = (text: string, weight: number) => {
    for (const word of tokenize(text)) {
      if (word.length < 3 || UNTELLING.has(word) || /^\d+$/.test(word)) continue;
      counts.set(word, (counts.get(word) ?? 0) + weight);
    }
  };
  add(note.title, 2);
  add(note.tags_text, 2);
  add(note.highlights, 1);
  add(note.comment, 1);
  add(note.description, 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, LIKE_THIS_TERMS)
    .map(([word]) => word);
}

function sharedTagReasons(note: IndexedNote, other: IndexedNote): string[] {
  const mine = new Set(note.tags.map((tag) => tag.toLowerCase()));
  return other.tags.filter((tag) => mine.has(tag.toLowerCase())).map((tag) => `shares #${tag}`);
}

function related(note: IndexedNote, reasons: string[]): RelatedNote {
  return {
    note_id: note.note_id,
    title: note.title,
    url: note.url || null,
    tags: note.tags,
    reason: reasons.join(', '),
  };
}
