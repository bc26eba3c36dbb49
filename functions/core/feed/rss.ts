/**
 * The RSS 2.0 representation of a published feed. Pure: no AWS, no I/O.
 *
 * - `renderRss(feed, notes, options: RssOptions): string` — the feed's notes; items come out newest first.
 *
 * Mapping: channel `title`, `link` (site), `description` (the feed's, else a summary of its filter;
 * RSS requires one), `language`, `atom:link rel="self"`, `lastBuildDate` (newest change, when known),
 * `generator`; per note an `item` with `title`, `link` (the bookmarked URL, else the entry page),
 * `guid isPermaLink="false"` (note id), `pubDate` (from `updated`, omitted when unknown),
 * `description` (plain text), `content:encoded` (the note as sanitised HTML, note-html.ts),
 * `dc:creator` (the feed's author, when it has one), one `category` per tag.
 *
 * Readers take titles and descriptions as HTML (RSS convention, and feedparser's guess for any text
 * that looks like markup), so every one that holds a `<` or a character reference, channel and items
 * alike, is HTML-escaped inside the XML: a reader shows `Tom & Jerry <b>` and a literal `&amp;` as
 * typed, never as markup or an entity. Text without them (`Tom & Jerry`) goes as plain XML text,
 * which feedparser then takes as plain text and shows as typed, where an escaped `&` stayed `&#x26;`.
 * That escaping writes `&` and `<` as hexadecimal character references (`&#x26;`, `&#x3C;`), as the
 * RSS Best Practices Profile asks and the W3C feed validator checks: any other form of an entity in
 * a plain-text element reads to it as HTML.
 */
import { create } from 'xmlbuilder2';
import { escapeHtmlWithHexReferences, xmlText } from '../text/escape';
import { noteHtml } from '../text/note-html';
import { sanitizeText } from '../text/text';
import {
  type Feed,
  type FeedNote,
  formatRfc822,
  lastChangedAt,
  parseInstant,
  sortNewestFirst,
  toFeedEntry,
} from './feed';
import { feedTagsText } from './settings';

const ATOM_NAMESPACE = 'http://www.w3.org/2005/Atom';
const CONTENT_NAMESPACE = 'http://purl.org/rss/1.0/modules/content/';
const DUBLIN_CORE_NAMESPACE = 'http://purl.org/dc/elements/1.1/';
/** Feeds have no language setting yet; the texts Gleaner writes itself (the fallback description) are English. */
const CHANNEL_LANGUAGE = 'en';

type XmlElement = ReturnType<typeof create>;

export interface RssOptions {
  /** Address of this RSS document (`atom:link rel="self"`). */
  readonly selfUrl: string;
  /** Human-facing page of the feed (channel `link`). */
  readonly siteUrl: string;
  /** Page for a note that bookmarks no URL. */
  readonly entryLink: (note: FeedNote) => string;
}

/** The channel description when the feed has none, e.g. `Notes tagged #a or #b by Ann`. */
function fallbackDescription(feed: Feed): string {
  const tagged = feed.tags.length > 0 ? ` tagged ${feedTagsText(feed)}` : '';
  const by = feed.author.trim() !== '' ? ` by ${feed.author.trim()}` : '';
  return `Notes${tagged}${by}`;
}

export function renderRss(feed: Feed, notes: readonly FeedNote[], options: RssOptions): string {
  const rss = create({ version: '1.0', encoding: 'UTF-8' }).ele('rss', {
    version: '2.0',
    'xmlns:atom': ATOM_NAMESPACE,
    'xmlns:content': CONTENT_NAMESPACE,
    'xmlns:dc': DUBLIN_CORE_NAMESPACE,
  });
  const channel = rss.ele('channel');
  addHtmlText(channel, 'title', feed.title);
  addText(channel, 'link', options.siteUrl);
  addHtmlText(channel, 'description', feed.description?.trim() || fallbackDescription(feed));
  addText(channel, 'language', CHANNEL_LANGUAGE);
  channel.ele(ATOM_NAMESPACE, 'atom:link', {
    href: xmlText(options.selfUrl),
    rel: 'self',
    type: 'application/rss+xml',
  });
  const lastChange = lastChangedAt(notes, feed);
  if (lastChange !== null) addText(channel, 'lastBuildDate', formatRfc822(lastChange));
  addText(channel, 'generator', 'Gleaner');
  for (const note of sortNewestFirst(notes)) addItem(channel, note, feed.author.trim(), options);
  return rss.end({ prettyPrint: true });
}

function addItem(channel: XmlElement, note: FeedNote, author: string, options: RssOptions): void {
  const item = channel.ele('item');
  addHtmlText(item, 'title', note.title);
  addText(item, 'link', note.url ?? options.entryLink(note));
  item.ele('guid', { isPermaLink: 'false' }).txt(xmlText(note.id));
  const updated = parseInstant(note.updated);
  if (updated !== null) addText(item, 'pubDate', formatRfc822(updated));
  addHtmlText(item, 'description', toFeedEntry(note).text);
  // HTML has no `]]>` outside markup, and the renderer escapes every `>` of text: one CDATA section holds it.
  item.ele(CONTENT_NAMESPACE, 'content:encoded').dat(noteHtml(note.body));
  // Readers take dc:creator as plain text (feedparser shows it as written), so it is escaped only as XML.
  if (author) item.ele(DUBLIN_CORE_NAMESPACE, 'dc:creator').txt(xmlText(author));
  for (const tag of note.tags) addText(item, 'category', tag);
}

function addText(parent: XmlElement, name: string, text: string): void {
  parent.ele(name).txt(xmlText(text));
}

/**
 * Plain text in an element readers take as HTML, as a CDATA section of HTML-escaped text (xmlbuilder2's
 * escaping of text would turn the validator's `&#x` into `&amp;#x`).
 */
/** A `<` or an `&` that starts a character reference: what a reader taking the text as HTML would not show as typed. */
const MARKUP_LIKE = /<|\r|&(?:#\d+|#x[\da-f]+|[a-z][a-z\d]*);/i;

/**
 * Text no reader could take for markup goes as plain XML text, which feedparser (and the readers on
 * it) shows as typed, `Tom & Jerry` as Atom's; any other is HTML-escaped, as the top of this file says.
 */
function addHtmlText(parent: XmlElement, name: string, text: string): void {
  if (MARKUP_LIKE.test(text)) parent.ele(name).dat(escapeHtmlWithHexReferences(text));
  else parent.ele(name).txt(sanitizeText(text));
}
