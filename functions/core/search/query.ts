/**
 * The search query language, parsed into a typed query. Nothing the user typed is ever passed on as
 * text to the engine's filter language: words become full-text terms (which the engine tokenizes),
 * and every filter value is checked against a narrow shape here (see filter.ts).
 *
 *   words            all must match (a few very common words are optional), ranked by BM25
 *   "exact phrase"   the words in this order
 *   prefix*          any word starting with it
 *   #tag  -#tag      tagged / not tagged
 *   -word -"phrase"  must not contain
 *   site:example.org saved from this host or its subdomains
 *   after:YYYY-MM-DD / before:YYYY-MM-DD   saved on or after / before that day (UTC)
 *   has:highlight    has at least one highlight
 *   is:archived  is:starred  is:unread   archived (done reading) / starred / in the inbox (not archived);
 *                    `-is:…` the opposite
 *   https://…        a pasted URL finds that bookmark first (normalised as saves are)
 */
import { normalizeTag } from '../save/hashtags';
import { normalizeUrl, parseBookmarkUrl } from '../save/url';
import { tokenize, typoBudget } from './tokens';

export const QUERY_MAX_LENGTH = 1000;
/** A prefix shorter than this matches too much to be useful; it is searched as a word instead. */
export const PREFIX_MIN_LENGTH = 2;
/** Words longer than this are never expanded as prefixes (the prefix column stops there). */
export const PREFIX_MAX_LENGTH = 12;

/** A word to find: exact or within its typo budget, or (`prefix`) as the start of a word. */
export type Term =
  | { readonly kind: 'word'; readonly word: string; readonly typos: 0 | 1 | 2 }
  | { readonly kind: 'prefix'; readonly prefix: string }
  | { readonly kind: 'phrase'; readonly words: readonly string[] };

export interface SearchQuery {
  /** Every one must match. */
  readonly required: readonly Term[];
  /** Rank higher when present (common words, a pasted URL's words). */
  readonly optional: readonly Term[];
  /** None may match. */
  readonly excluded: readonly Term[];
  readonly tags: readonly string[];
  readonly excludedTags: readonly string[];
  /** Lower-cased ASCII host names; a note matches when saved from any of them or their subdomains. */
  readonly sites: readonly string[];
  /** Epoch milliseconds, inclusive. */
  readonly after: number | null;
  /** Epoch milliseconds, exclusive. */
  readonly before: number | null;
  readonly hasHighlight: boolean;
  /** Only archived notes (true), only notes in the inbox (false), or either (null). */
  readonly archived: boolean | null;
  /** Only starred notes (true), only the others (false), or either (null). */
  readonly starred: boolean | null;
  /** A pasted URL, normalised as a save normalises it. */
  readonly url: string | null;
}

export type QueryProblem =
  | { readonly code: 'empty'; readonly message: string }
  | { readonly code: 'too_long'; readonly message: string }
  | { readonly code: 'bad_date'; readonly message: string }
  | { readonly code: 'bad_site'; readonly message: string }
  | { readonly code: 'bad_state'; readonly message: string };

/** Words so common that requiring them would only lose results; they still rank. */
const OPTIONAL_WORDS = new Set(
  'a an and are as at be by for from how in is it of on or the to what when where which who why with'.split(' '),
);

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const HOST = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

export function parseQuery(text: string): { ok: true; query: SearchQuery } | { ok: false; problem: QueryProblem } {
  if (text.length > QUERY_MAX_LENGTH)
    return problem('too_long', `The query has ${text.length} characters; at most ${QUERY_MAX_LENGTH} are allowed`);
  if (!text.trim()) return problem('empty', 'The query is empty');
  const required: Term[] = [];
  const optional: Term[] = [];
  const excluded: Term[] = [];
  const tags: string[] = [];
  const excludedTags: string[] = [];
  const sites: string[] = [];
  let after: number | null = null;
  let before: number | null = null;
  let hasHighlight = false;
  const state: { archived: boolean | null; starred: boolean | null } = { archived: null, starred: null };
  let url: string | null = null;

  for (const piece of pieces(text)) {
    if (piece.quoted) {
      const term = phraseTerm(tokenize(piece.text));
      if (term) (piece.negated ? excluded : required).push(term);
      continue;
    }
    const word = piece.text;
    const lower = word.toLowerCase();
    if (word.startsWith('#')) {
      const tag = normalizeTag(word.slice(1));
      if (tag) (piece.negated ? excludedTags : tags).push(tag);
      continue;
    }
    const is = /^is:(.*)$/i.exec(word);
    if (is) {
      const asked = READING_STATES[is[1]!.toLowerCase()];
      if (!asked) return problem('bad_state', `is:${is[1]} is not a state; write is:archived, is:starred or is:unread`);
      const wanted = asked.value !== piece.negated;
      if (state[asked.field] !== null && state[asked.field] !== wanted)
        return problem('bad_state', `${piece.negated ? '-' : ''}${word} contradicts an earlier is:`);
      state[asked.field] = wanted;
      continue;
    }
    const operator = /^(site|after|before|has):(.*)$/i.exec(word);
    if (operator && !piece.negated) {
      const [, name, value] = operator as unknown as [string, string, string];
      const kind = name.toLowerCase();
      if (kind === 'site') {
        const host = siteHost(value);
        if (!host) return problem('bad_site', `site:${value} is not a host name (site:example.org)`);
        sites.push(host);
        continue;
      }
      if (kind === 'after' || kind === 'before') {
        const day = dayStart(value);
        if (day === null) return problem('bad_date', `${kind}:${value} is not a date; write ${kind}:YYYY-MM-DD`);
        if (kind === 'after') after = Math.max(after ?? day, day);
        else before = Math.min(before ?? day, day);
        continue;
      }
      if (value.toLowerCase() === 'highlight' || value.toLowerCase() === 'highlights') {
        hasHighlight = true;
        continue;
      }
    }
    if (!piece.negated && /^https?:\/\//.test(lower)) {
      const parsed = parseBookmarkUrl(word);
      if (parsed.ok) {
        url ??= normalizeUrl(parsed.url);
        optional.push(...urlWords(url).map(wordTerm));
        continue;
      }
    }
    const term = termOf(word);
    if (!term) continue;
    if (piece.negated) excluded.push(term);
    else if (term.kind === 'word' && OPTIONAL_WORDS.has(term.word)) optional.push(term);
    else required.push(term);
  }

  // Only common words: then they are what the user is looking for.
  if (required.length === 0 && optional.length > 0 && url === null) required.push(...optional.splice(0));
  const query = { required, optional, excluded, tags, excludedTags, sites, after, before, hasHighlight, ...state, url };
  if (!hasWords(query) && !hasFilters(query) && url === null)
    return problem('empty', 'The query has no words or filters to search for');
  return { ok: true, query };
}

/** True when the query has words to match (a pasted URL's words among them). */
export function hasWords(query: SearchQuery): boolean {
  return query.required.length + query.optional.length > 0;
}

/** True when the query narrows the user's notes by anything but words to match: tags, sites, dates, exclusions. */
export function hasFilters(query: SearchQuery): boolean {
  return (
    query.excluded.length + query.tags.length + query.excludedTags.length + query.sites.length > 0 ||
    query.after !== null ||
    query.before !== null ||
    query.hasHighlight ||
    query.archived !== null ||
    query.starred !== null
  );
}

/** What each `is:` asks for: `is:unread` is "not archived" (the inbox). */
const READING_STATES: Record<string, { field: 'archived' | 'starred'; value: boolean }> = {
  archived: { field: 'archived', value: true },
  starred: { field: 'starred', value: true },
  unread: { field: 'archived', value: false },
};

/**
 * The words of a pasted URL's path that say what its page is about: not its scheme, host or query
 * string, which every note from the web or from that site shares (they ranked unrelated notes), nor
 * bare numbers and single letters (ids).
 */
function urlWords(url: string): string[] {
  return tokenize(decodeURIComponentSafe(new URL(url).pathname)).filter(
    (word) => word.length > 1 && !/^\d+$/.test(word),
  );
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The query's pieces: `"quoted phrases"` (an unclosed quote runs to the end) and bare words, each maybe negated by `-`. */
function pieces(text: string): { text: string; quoted: boolean; negated: boolean }[] {
  const found: { text: string; quoted: boolean; negated: boolean }[] = [];
  const pattern = /(-?)"([^"]*)"?|(\S+)/g;
  for (const match of text.matchAll(pattern)) {
    if (match[2] !== undefined) {
      found.push({ text: match[2], quoted: true, negated: match[1] === '-' });
      continue;
    }
    const raw = match[3]!;
    const negated = raw.length > 1 && raw.startsWith('-');
    found.push({ text: negated ? raw.slice(1) : raw, quoted: false, negated });
  }
  return found;
}

/** A bare word: `prefix*`, a word, or (when punctuation splits it, as in `e-mail`) a phrase. */
function termOf(word: string): Term | null {
  const isPrefix = word.endsWith('*');
  const words = tokenize(word);
  if (words.length === 0) return null;
  if (isPrefix && words.length === 1) {
    const prefix = words[0]!;
    if (prefix.length >= PREFIX_MIN_LENGTH) return { kind: 'prefix', prefix: prefix.slice(0, PREFIX_MAX_LENGTH) };
  }
  return words.length === 1 ? wordTerm(words[0]!) : phraseTerm(words);
}

function wordTerm(word: string): Term {
  return { kind: 'word', word, typos: typoBudget(word) };
}

function phraseTerm(words: string[]): Term | null {
  if (words.length === 0) return null;
  return words.length === 1 ? { kind: 'word', word: words[0]!, typos: 0 } : { kind: 'phrase', words };
}

/** A host name as DNS writes it (punycode, lower case), or null. */
function siteHost(value: string): string | null {
  const candidate = value
    .trim()
    .replace(/^https?:\/\//i, '')
    .replace(/\/.*$/, '');
  if (!candidate || !URL.canParse(`http://${candidate}`)) return null;
  const host = new URL(`http://${candidate}`).hostname.replace(/\.$/, '').replace(/^www\./, '');
  return HOST.test(host) ? host : null;
}

/** Midnight UTC of a real calendar day written YYYY-MM-DD, in epoch milliseconds; null otherwise. */
function dayStart(value: string): number | null {
  const match = DATE.exec(value);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const time = Date.UTC(year, month - 1, day);
  const date = new Date(time);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return time;
}

function problem(code: QueryProblem['code'], message: string): { ok: false; problem: QueryProblem } {
  return { ok: false, problem: { code, message } };
}
