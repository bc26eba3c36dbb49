import { parseHTML } from 'linkedom';
import { MAX_TAGS_PER_NOTE, mergeTags } from '../model';
import { asTag } from '../save/hashtags';
import { SOURCE_LINE_PREFIX } from '../save/note-body';
import { escapeHtml } from '../text/escape';
import { bodyHighlightsAt, type RestoredHighlight } from './restored-highlights';

/**
 * The Netscape bookmark file every browser exports (and linkding, Pinboard and Raindrop too):
 * `<DT><H3>folder</H3><DL>…</DL>` for folders, `<DT><A HREF ADD_DATE TAGS>title</A>` for links, an
 * optional `<DD>` description after a link. Gleaner's own export writes the whole note in `<DD>`
 * (multi-line Markdown, escaped), which the import restores as the note, and the times of its
 * highlights in `HIGHLIGHT_DATES` (epoch seconds, comma-separated, in order), which browsers ignore.
 */

export interface BookmarkFileEntry {
  readonly url: string;
  readonly title: string | null;
  /** Folder names (outermost first) and the link's `TAGS=`, as tags. */
  readonly tags: string[];
  /** `ADD_DATE` (epoch seconds); null when absent or not a date. */
  readonly added: Date | null;
  readonly description: string | null;
  /** `LAST_MODIFIED` (epoch seconds), when a browser wrote one: the bookmark's last change. */
  readonly updated?: Date | null;
  /** The whole note, from a Gleaner export: its body (description, source line, highlights, comments) and last update. */
  readonly note?: ExportedNote | null;
  /** When it was archived (done reading) where it comes from; absent or null: it was not (it lands in the inbox). */
  readonly archived?: Date | null;
  /** When it was starred (or favourited) where it comes from; absent or null: it was not. */
  readonly starred?: Date | null;
}

interface ExportedNote {
  readonly body: string;
  readonly updated: Date | null;
  /** Its highlights with their times, in order; null when the export gives none (they then take the note's time). */
  readonly highlights: readonly RestoredHighlight[] | null;
}

export function parseNetscapeBookmarks(html: string): BookmarkFileEntry[] {
  const { document } = parseHTML(html);
  return [...(document.querySelectorAll('a') as Iterable<Element>)].flatMap((link) => {
    const url = attribute(link, 'href')?.trim();
    if (!url) return [];
    const listed = (attribute(link, 'tags') ?? '').split(',');
    const tags = mergeTags(
      [],
      [...folderNames(link), ...listed].flatMap((name) => asTag(name) ?? []),
    );
    const seconds = Number(attribute(link, 'add_date'));
    const modified = Number(attribute(link, 'last_modified'));
    const highlightTimes = (attribute(link, 'highlight_dates') ?? '')
      .split(',')
      .flatMap((time) => (Number(time) > 0 ? [new Date(Number(time) * 1000)] : []));
    const next = link.parentElement?.nextElementSibling;
    const text = next?.tagName === 'DD' ? next.textContent.trim() : '';
    const added = seconds > 0 ? new Date(seconds * 1000) : null;
    const updated = modified > 0 ? new Date(modified * 1000) : null;
    // A browser's LAST_MODIFIED is the bookmark's last change (issue 35: it came back as the import's time).
    const base = { url, title: link.textContent.trim() || null, tags, added, ...(updated ? { updated } : {}) };
    // A Gleaner export writes the whole note there, source line included; a browser, a short description.
    if (isNoteBody(text)) {
      const note = { body: text, updated, highlights: bodyHighlightsAt(text, highlightTimes) };
      return [{ ...base, description: null, note }];
    }
    return [{ ...base, description: text || null }];
  });
}

/** A Netscape bookmark file of `entries`, flat (folders become `TAGS=`), that browsers and this parser read back. */
export function renderNetscapeBookmarks(entries: readonly BookmarkFileEntry[]): string {
  const lines = entries.map((entry) => {
    const added = entry.added ? ` ADD_DATE="${epochSeconds(entry.added)}"` : '';
    const modified = entry.note?.updated ? ` LAST_MODIFIED="${epochSeconds(entry.note.updated)}"` : '';
    const highlights = entry.note?.highlights?.length
      ? ` HIGHLIGHT_DATES="${entry.note.highlights.map((highlight) => epochSeconds(highlight.saved)).join(',')}"`
      : '';
    const tags = entry.tags.length ? ` TAGS="${escapeHtml(entry.tags.join(','))}"` : '';
    const text = entry.note?.body ?? entry.description;
    const description = text ? `\n    <DD>${escapeHtml(text)}` : '';
    return `    <DT><A HREF="${escapeHtml(entry.url)}"${added}${modified}${highlights}${tags}>${escapeHtml(entry.title ?? entry.url)}</A>${description}`;
  });
  return [
    '<!DOCTYPE NETSCAPE-Bookmark-file-1>',
    '<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">',
    '<TITLE>Bookmarks</TITLE>',
    '<H1>Bookmarks</H1>',
    '<DL><p>',
    ...lines,
    '</DL><p>',
    '',
  ].join('\n');
}

const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** Whether a `<DD>` holds a Gleaner note's body (it has the note's source line) rather than a description. */
function isNoteBody(text: string): boolean {
  return text.split('\n').some((line) => line.startsWith(`${SOURCE_LINE_PREFIX}[`));
}

/** The parts of linkedom's DOM used here (its typings need the DOM lib, which this project leaves out). */
interface Element {
  readonly tagName: string;
  readonly textContent: string;
  readonly attributes: ArrayLike<{ readonly name: string; readonly value: string }>;
  readonly parentElement: Element | null;
  readonly previousElementSibling: Element | null;
  readonly nextElementSibling: Element | null;
}

/** Attribute names are matched whatever their case: files write them upper-case. */
function attribute(element: Element, name: string): string | undefined {
  return Array.from(element.attributes).find((attr) => attr.name.toLowerCase() === name)?.value;
}

/** The names of the folders holding `link`, outermost first: each enclosing `<DL>` follows its `<H3>`. */
function folderNames(link: Element): string[] {
  const names: string[] = [];
  for (let element = link.parentElement; element; element = element.parentElement) {
    if (element.tagName !== 'DL') continue;
    let heading = element.previousElementSibling;
    while (heading?.tagName === 'P') heading = heading.previousElementSibling;
    if (heading?.tagName === 'H3') names.unshift(heading.textContent);
  }
  return names.slice(-MAX_TAGS_PER_NOTE);
}
