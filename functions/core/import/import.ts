import { mergeTags } from '../model';
import type { LibraryStore } from '../owner/library';
import { type NoteStore, type SaveBookmarkPorts, saveBookmark } from '../save/save-bookmark';
import { SAVE_LIMITS } from '../save/save-request';
import { normalizeUrl, parseBookmarkUrl } from '../save/url';
import { isoTimestamp, truncate } from '../text/text';
import type { ImportedArticles } from './articles';
import {
  type ImportFormat,
  type ImportItem,
  orderedHighlights,
  type ParsedImport,
  type RowPlace,
  type SkippedRow,
} from './items';
import {
  appendNewHighlights,
  type ImportNote,
  importNote,
  type ListedNote,
  type NoteOutcome,
  prepareNote,
} from './notes';

/**
 * An import: every item of an export goes through the save core, so URLs are normalised, a URL
 * already in the workspace (or earlier in the export) merges into its note instead of making another
 * (tags added, new highlights appended with their times), and the note cap holds. Every row either
 * becomes a bookmark and note or is listed as skipped with its reason. Running it again changes nothing.
 *
 * `prepareImport` is pure and decides once what each row becomes; `importLinks` saves any slice of
 * its links, so a worker can run them in chunks and run a chunk again after a crash.
 */

export interface ImportLink extends RowPlace {
  readonly url: string;
  readonly title: string | null;
  readonly tags: readonly string[];
  /** ISO times, so a prepared import can be kept as JSON between a worker's chunks. */
  readonly added: string | null;
  readonly updated: string | null;
  readonly description: string | null;
  readonly comment: string | null;
  /** In the order of their times, each strictly later than the one before. */
  readonly highlights: readonly { quote: string; comment: string | null; saved: string }[];
  /** Since when it is archived or starred; null: it is not. */
  readonly archived: string | null;
  readonly starred: string | null;
  readonly article: string | null;
  /** A Gleaner export's note, restored whole. */
  readonly note: ImportItem['note'] | null;
}

/** A row left out, as the report lists it: its file named only for exports of several files. */
interface ReportedSkip {
  readonly file?: string;
  readonly row: number;
  readonly reason: string;
}

export interface PreparedImport {
  readonly format: ImportFormat;
  /** Rows read: links, rows skipped while reading, duplicates, and notes without a page. */
  readonly rows: number;
  readonly links: readonly ImportLink[];
  /** What names no page (a book's highlights, a text note), kept as notes without a bookmark. */
  readonly notes: readonly ImportNote[];
  readonly skipped: readonly ReportedSkip[];
  readonly notices: readonly string[];
}

export interface ImportCounts {
  /** New bookmarks (and notes). */
  readonly imported: number;
  /** Links whose URL was already in the workspace (their tags and new highlights merged in), and notes without a page already there. */
  readonly merged: number;
  /** New notes without a bookmark (a book's highlights, a text note). */
  readonly notes: number;
  /** Highlights written (a re-run writes none). */
  readonly highlights: number;
  /** Readable copies from the export kept as new bookmarks' articles. */
  readonly articles: number;
  /** Links not imported because the note cap was reached; the import stops there. */
  readonly over_cap: number;
  readonly note_cap: number | null;
}

export interface ImportReport extends ImportCounts {
  readonly format: ImportFormat;
  readonly rows: number;
  readonly skipped: readonly ReportedSkip[];
  /** Every note without a bookmark the export holds: its title and how many highlights. */
  readonly notes_without_bookmark: readonly ListedNote[];
  readonly notices: readonly string[];
}

const rowName = (place: RowPlace) => (place.file ? `${place.file} row ${place.row}` : `row ${place.row}`);

/**
 * What each row becomes: a link (duplicates folded into the first of their URL) or a skipped row with
 * its reason. `now` stands for the times the export does not give: the same `now` gives the same links.
 */
export function prepareImport(parsed: ParsedImport, now: Date): PreparedImport {
  const skipped: SkippedRow[] = [...parsed.skipped];
  const byUrl = new Map<string, { first: ImportItem; url: URL; items: ImportItem[] }>();
  for (const item of parsed.items) {
    const checked = parseBookmarkUrl(item.url);
    if (!checked.ok) {
      const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(item.url.trim())?.[1];
      skipped.push({
        file: item.file,
        row: item.row,
        reason:
          checked.problem === 'url_scheme'
            ? `not an http(s) URL (${scheme ?? 'no scheme'}:)`
            : item.url.trim()
              ? `malformed URL (${checked.problem})`
              : 'malformed: no URL',
      });
      continue;
    }
    const key = normalizeUrl(checked.url);
    const seen = byUrl.get(key);
    if (seen) {
      skipped.push({ file: item.file, row: item.row, reason: `duplicate of ${rowName(seen.first)} (merged into it)` });
      seen.items.push(item);
    } else byUrl.set(key, { first: item, url: checked.url, items: [item] });
  }
  const links = [...byUrl.values()].map(({ url, items }) => link(url, items, now));
  return {
    format: parsed.format,
    rows: parsed.items.length + parsed.skipped.length + parsed.books.length,
    links,
    notes: parsed.books.map((book) => prepareNote(book, now)),
    skipped: skipped
      .sort((a, b) => (a.file ?? '').localeCompare(b.file ?? '') || a.row - b.row)
      .map(({ file, row, reason }) => (file ? { file, row, reason } : { row, reason })),
    notices: parsed.notices,
  };
}

/** One link of a URL's rows: the first row's fields, every row's tags and highlights, the earliest saved time. */
function link(url: URL, items: readonly ImportItem[], now: Date): ImportLink {
  const [first] = items as [ImportItem];
  const firstOf = <T>(pick: (item: ImportItem) => T | null | undefined): T | null =>
    items.map(pick).find((value) => value !== null && value !== undefined) ?? null;
  // Without a saved time, the earliest highlight's is the nearest the export has.
  const added =
    earliest(items.map((item) => item.added)) ??
    earliest(items.flatMap((item) => (item.highlights ?? []).map((highlight) => highlight.saved)));
  const highlights = orderedHighlights(
    items
      .flatMap((item) => item.highlights ?? [])
      .map((highlight) => ({ ...highlight, saved: highlight.saved ?? added ?? now })),
  );
  const times = [added, firstOf((item) => item.updated), ...highlights.map((highlight) => highlight.saved)].flatMap(
    (time) => (time ? [time.getTime()] : []),
  );
  const updated = times.length && added ? new Date(Math.max(...times)) : null;
  return {
    file: first.file,
    row: first.row,
    url: url.href,
    title: firstOf((item) => item.title),
    tags: items.reduce<string[]>((tags, item) => mergeTags(tags, item.tags), []),
    added: added ? isoTimestamp(added) : null,
    updated: updated ? isoTimestamp(updated) : null,
    description: firstOf((item) => item.description),
    comment: firstOf((item) => item.comment),
    highlights: highlights.map((highlight) => ({ ...highlight, saved: isoTimestamp(highlight.saved) })),
    archived: stateSince(
      items.map((item) => item.archived),
      updated ?? now,
    ),
    starred: stateSince(
      items.map((item) => item.starred),
      updated ?? now,
    ),
    article: firstOf((item) => item.article),
    note: firstOf((item) => item.note),
  };
}

/** A reading state of a URL's rows: the earliest time one gives, or, when they only say it is set, the page's last change. */
function stateSince(states: readonly (Date | boolean | null | undefined)[], otherwise: Date): string | null {
  if (!states.some(Boolean)) return null;
  return isoTimestamp(earliest(states.map((state) => (state instanceof Date ? state : null))) ?? otherwise);
}

const earliest = (dates: readonly (Date | null | undefined)[]) =>
  dates.flatMap((date) => (date ? [date] : [])).sort((a, b) => a.getTime() - b.getTime())[0];

/**
 * The save core's ports, where an export's readable copies are kept (none: they are left out), and
 * the owner's edit of a note, which gives a page already saved the export's comment.
 */
export interface ImportPorts extends SaveBookmarkPorts {
  readonly store: SaveBookmarkPorts['store'] & Pick<LibraryStore, 'editNote'> & NoteStore;
  readonly articles?: ImportedArticles | null;
}

/**
 * The ids a link's save makes, in the order it makes them: the bookmark's first. A worker that saves
 * the same link again after a crash gives it the same ids, so it finds its own bookmark rather than
 * another, and writes nothing twice.
 */
export type LinkIds = (link: ImportLink) => () => string;

/** What an import saves, in order: its links, then its notes without a page. */
export type ImportEntry = ImportLink | ImportNote;

export const entriesOf = (prepared: PreparedImport): ImportEntry[] => [...prepared.links, ...prepared.notes];

/** Saves in flight at once: enough to import thousands of links in one run, few enough to stay polite. */
const CONCURRENT_SAVES = 8;

/** Saves any slice of an import's entries (a worker's chunk); the counts of what they wrote. */
export async function importEntries(
  ports: ImportPorts,
  userId: string,
  entries: readonly ImportEntry[],
  linkIds: LinkIds,
): Promise<ImportCounts> {
  const counts = { imported: 0, merged: 0, notes: 0, highlights: 0, articles: 0, over_cap: 0 };
  let noteCap: number | null = null;
  let next = 0;
  const save = (entry: ImportEntry): Promise<Outcome | NoteOutcome> => {
    if (!('url' in entry)) return importNote(ports, userId, entry);
    const newId = linkIds(entry);
    return importOne({ ...ports, newId }, userId, entry, linkIds(entry)());
  };
  const worker = async () => {
    while (next < entries.length) {
      const entry = entries[next++]!;
      // Once one save meets the cap, the rest are not tried: each would only meet it again.
      const outcome = noteCap === null ? await save(entry) : null;
      if (outcome === null || 'limit' in outcome) {
        noteCap ??= outcome!.limit;
        counts.over_cap++;
      } else {
        counts[outcome.kind]++;
        counts.highlights += outcome.highlights;
        counts.articles += 'article' in outcome && outcome.article ? 1 : 0;
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT_SAVES }, worker));
  return { ...counts, note_cap: noteCap };
}

type Outcome = { kind: 'imported' | 'merged'; highlights: number; article?: boolean } | { limit: number };

/** `ownId`: the id this link's bookmark gets, when the import names its ids (a rerun then finds it its own). */
async function importOne(ports: ImportPorts, userId: string, link: ImportLink, ownId: string | null): Promise<Outcome> {
  const date = (iso: string | null) => (iso ? new Date(iso) : null);
  const highlights = link.highlights.map((highlight) => ({ ...highlight, saved: new Date(highlight.saved) }));
  const request = {
    url: new URL(link.url),
    title: link.title === null ? null : truncate(link.title, SAVE_LIMITS.title),
    selection: null,
    comment: null,
    description: link.description === null ? null : truncate(link.description, SAVE_LIMITS.description),
    append: false,
  };
  const outcome = await saveBookmark(ports, {
    userId,
    request,
    siteIcon: null,
    idempotency: null,
    imported: {
      tags: link.tags,
      added: date(link.added),
      updated: date(link.updated),
      comment: link.comment,
      highlights,
      note: link.note ?? null,
      archived: date(link.archived),
      starred: date(link.starred),
    },
  });
  switch (outcome.kind) {
    case 'saved': {
      const own = outcome.bookmark.id === ownId;
      if (!outcome.isNewBookmark && !own) {
        const appended = await appendNewHighlights(
          ports.store,
          outcome.bookmark.noteId,
          highlights,
          isoTimestamp(ports.now()),
          (highlight) => ({
            id: ports.newId(),
            noteId: outcome.bookmark.noteId,
            userId,
            quote: highlight.quote.trim(),
            comment: highlight.comment?.trim() || null,
            saved: isoTimestamp(highlight.saved),
          }),
        );
        await mergeComment(ports, outcome.bookmark.noteId, link.comment);
        return { kind: 'merged', highlights: appended };
      }
      const article = link.article !== null && !!ports.articles;
      if (article) await ports.articles!.keep(outcome.bookmark.id, { html: link.article!, url: link.url });
      return { kind: 'imported', highlights: link.note?.highlights?.length ?? highlights.length, article };
    }
    case 'note-full':
      return { kind: 'merged', highlights: 0 };
    case 'note-limit':
      return { limit: outcome.limit };
    default:
      throw new Error(`an import save has no Idempotency-Key, yet answered ${outcome.kind}`);
  }
}

/**
 * The export's comment on a page already saved: the note's comment when it has none, added below it
 * when it says something else, left alone when the note's comment already holds it.
 */
async function mergeComment(ports: ImportPorts, noteId: string, comment: string | null): Promise<void> {
  const imported = comment?.trim();
  if (!imported) return;
  await ports.store.editNote(
    noteId,
    (note) => {
      const own = note.comment?.trim();
      if (own?.includes(imported)) return null;
      return {
        title: note.title,
        tags: note.tags,
        comment: truncate(own ? `${own}\n\n${imported}` : imported, SAVE_LIMITS.comment),
      };
    },
    isoTimestamp(ports.now()),
  );
}
