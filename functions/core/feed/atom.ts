/**
 * The Atom 1.0 (RFC 4287) representation of a published feed. Pure: no AWS, no I/O.
 *
 * Mapping: feed `id` (`urn:uuid:` of the feed), `title`, `subtitle` (the description), `updated`
 * (newest change), `author`, `link rel="self"` and `rel="alternate"` (the feed's page), `generator`;
 * per note an `entry` with `id` (`urn:uuid:` of the note), `title`, `link rel="alternate"` (the
 * bookmarked page), `published`, `updated`, `summary` (plain text), `content type="html"` (the note
 * as sanitised HTML, note-html.ts) and a `category` per tag. Same entries, same order, as the JSON.
 *
 * Atom says what each text is (`type="text"` / `type="html"`), so unlike RSS no reader guesses:
 * plain text is only XML-escaped.
 */
import { create } from 'xmlbuilder2';
import { xmlText } from '../text/escape';
import { noteHtml } from '../text/note-html';
import {
  type Feed,
  type FeedNote,
  formatRfc3339,
  lastChangedAt,
  parseInstant,
  sortNewestFirst,
  toFeedEntry,
} from './feed';

const ATOM_NAMESPACE = 'http://www.w3.org/2005/Atom';
/** `updated` is required: a feed with nothing dated at all says so with the epoch. */
const UNDATED = 0;

export interface AtomOptions {
  /** Address of this Atom document, this page of it (`link rel="self"`). */
  readonly selfUrl: string;
  /** The page of older entries (RFC 5005 `link rel="next"`), when there is one. */
  readonly nextUrl?: string | null;
  /** The feed's page for people (`link rel="alternate"`). */
  readonly pageUrl: string;
  /** Page for a note that bookmarks no URL. */
  readonly entryLink: (note: FeedNote) => string;
}

type XmlElement = ReturnType<typeof create>;

export function renderAtom(feed: Feed, notes: readonly FeedNote[], options: AtomOptions): string {
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele(ATOM_NAMESPACE, 'feed');
  addText(root, 'id', `urn:uuid:${feed.id}`);
  addText(root, 'title', feed.title, 'text');
  if (feed.description?.trim()) addText(root, 'subtitle', feed.description, 'text');
  addText(root, 'updated', formatRfc3339(lastChangedAt(notes, feed) ?? UNDATED));
  // Every feed needs an author (or every entry one); an owner without a name is still the author.
  addText(root.ele('author'), 'name', feed.author.trim() || 'Gleaner user');
  root.ele('link', { rel: 'self', type: 'application/atom+xml', href: xmlText(options.selfUrl) });
  root.ele('link', { rel: 'alternate', type: 'text/html', href: xmlText(options.pageUrl) });
  if (options.nextUrl) root.ele('link', { rel: 'next', type: 'application/atom+xml', href: xmlText(options.nextUrl) });
  addText(root, 'generator', 'Gleaner');
  for (const note of sortNewestFirst(notes)) addEntry(root, note, options);
  return root.end({ prettyPrint: true });
}

function addEntry(root: XmlElement, note: FeedNote, options: AtomOptions): void {
  const entry = root.ele('entry');
  const { title, text } = toFeedEntry(note);
  addText(entry, 'id', `urn:uuid:${note.id}`);
  addText(entry, 'title', title, 'text');
  entry.ele('link', { rel: 'alternate', href: xmlText(note.url ?? options.entryLink(note)) });
  const published = parseInstant(note.created);
  addText(entry, 'updated', formatRfc3339(parseInstant(note.updated) ?? published ?? UNDATED));
  if (published !== null) addText(entry, 'published', formatRfc3339(published));
  addText(entry, 'summary', text, 'text');
  addText(entry, 'content', noteHtml(note.body), 'html');
  for (const tag of note.tags) entry.ele('category', { term: xmlText(tag) });
}

function addText(parent: XmlElement, name: string, text: string, type?: 'text' | 'html'): void {
  parent.ele(name, type ? { type } : {}).txt(xmlText(text));
}
