import { mergeTags } from '../model';
import { highlightsOfBody } from '../save/highlights';
import { appendHighlight, NoteBody, NoteTooLargeError, sameHighlight } from '../save/note-body';
import { type SaveBookmarkPorts, saveBookmark } from '../save/save-bookmark';
import { SAVE_LIMITS } from '../save/save-request';
import { normalizeUrl, parseBookmarkUrl } from '../save/url';
import { isoTimestamp, truncate } from '../text/text';
import { inSavedOrder } from '../workspace/restored-highlights';
import type { ImportedArticles } from './articles';
import type { ImportFormat, ImportItem, ParsedImport, RowPlace, SkippedRow } from './items';

/**
 * An import: every item of an export goes through the save core, so URLs are normalised, a URL
 * already in the workspace (or earlier in the export) merges into its note instead of making another
 * (tags added, new highlights appended with their times), and the note cap holds. Every row either
 * becomes a bookmark and note or is listed as skipped with its reason. Running it again changes nothing.
 *
 * `prepareImport` is pure and decides once what each row becomes; `importLinks` saves any slice of
 * its links, so a worker can run them in chunks and run a chunk again after a crash.
 */

interface ImportLink extends RowPlace {
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

interface PreparedImport {
  readonly format: ImportFormat;
  /** Rows read: links, rows skipped while reading, duplicates, and notes without a page. */
  readonly rows: number;
  readonly links: readonly ImportLink[];
  readonly skipped: readonly ReportedSkip[];
  readonly notices: readonly string[];
}

interface ImportCounts {
  /** New bookmarks (and notes). */
  readonly imported: number;
  /** Links whose URL was already in the workspace: their tags and new highlights merged in. */
  readonly merged: number;
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
  readonly notices: readonly string[];
}

const rowName = (place: RowPlace) => (place.file ? `${place.file} row ${place.row}` : `row ${place.row}`);

/** What each row becomes: a link (duplicates folded into the first of their URL) or a skipped row with its reason. */
function prepareImport(parsed: ParsedImport, now: Date): PreparedImport {
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
  // Notes without a page (a book's highlights, a text note) have no home yet: listed, not lost silently.
  for (const book of parsed.books)
    skipped.push({
      file: book.file,
      row: book.row,
      reason: `“${book.title}” names no web page${book.highlights.length ? ` (${book.highlights.length} highlights)` : ''}: not imported (notes without a bookmark are not imported yet)`,
    });
  const links = [...byUrl.values()].map(({ url, items }) => link(url, items, now));
  return {
    format: parsed.format,
    rows: parsed.items.length + parsed.skipped.length + parsed.books.length,
    links,
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
  const found: { quote: string; comment: string | null; saved: Date }[] = [];
  for (const highlight of items.flatMap((item) => item.highlights ?? []))
    if (!found.some((kept) => sameHighlight(kept.quote, highlight.quote)))
      found.push({ ...highlight, saved: highlight.saved ?? added ?? now });
  const highlights = inSavedOrder(found.sort((a, b) => a.saved.getTime() - b.saved.getTime()));
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

/** The save core's ports, and where an export's readable copies are kept (none: they are left out). */
export interface ImportPorts extends SaveBookmarkPorts {
  readonly articles?: ImportedArticles | null;
}

/** Saves in flight at once: enough to import thousands of links in one run, few enough to stay polite. */
const CONCURRENT_SAVES = 8;

async function importLinks(
  ports: ImportPorts,
  userId: string,
  links: readonly ImportLink[],
  onProgress: (done: number, total: number) => void = () => {},
): Promise<ImportCounts> {
  const counts = { imported: 0, merged: 0, highlights: 0, articles: 0, over_cap: 0 };
  let noteCap: number | null = null;
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < links.length) {
      const link = links[next++]!;
      // Once one save meets the cap, the rest are not tried: each would only meet it again.
      const outcome = noteCap === null ? await importOne(ports, userId, link) : null;
      if (outcome === null || 'limit' in outcome) {
        noteCap ??= outcome!.limit;
        counts.over_cap++;
      } else {
        counts[outcome.kind]++;
        counts.highlights += outcome.highlights;
        counts.articles += outcome.article ? 1 : 0;
      }
      onProgress(++done, links.length);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT_SAVES }, worker));
  return { ...counts, note_cap: noteCap };
}

/** An export read and imported in one go (the CLI; the API's worker runs `importLinks` in chunks). */
export async function importExport(
  ports: ImportPorts,
  userId: string,
  parsed: ParsedImport,
  onProgress?: (done: number, total: number) => void,
): Promise<ImportReport> {
  const prepared = prepareImport(parsed, ports.now());
  const counts = await importLinks(ports, userId, prepared.links, onProgress);
  return {
    format: prepared.format,
    rows: prepared.rows,
    ...counts,
    skipped: prepared.skipped,
    notices: prepared.notices,
  };
}

type Outcome = { kind: 'imported' | 'merged'; highlights: number; article?: boolean } | { limit: number };

async function importOne(ports: ImportPorts, userId: string, link: ImportLink): Promise<Outcome> {
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
      if (!outcome.isNewBookmark)
        return { kind: 'merged', highlights: await appendNewHighlights(ports, outcome.bookmark, highlights) };
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

/** The highlights a saved note does not hold yet, appended one by one with their own times; how many were. */
async function appendNewHighlights(
  ports: SaveBookmarkPorts,
  bookmark: { id: string; noteId: string },
  highlights: readonly { quote: string; comment: string | null; saved: Date }[],
): Promise<number> {
  let appended = 0;
  for (const highlight of highlights) {
    const update = await ports.store
      .updateSavedNote(
        { bookmarkId: bookmark.id, noteId: bookmark.noteId },
        (note) => {
          if (highlightsOfBody(note.body).some((kept) => sameHighlight(kept.quote, highlight.quote))) return null;
          const body = appendHighlight(note.body, { selection: highlight.quote, comment: highlight.comment });
          if (NoteBody.of(note).refusal({ ...note, body, lastHighlight: highlight.quote })) return null;
          return {
            body,
            tags: note.tags,
            lastHighlight: highlight.quote,
            highlight: {
              id: ports.newId(),
              noteId: note.id,
              userId: note.userId,
              quote: highlight.quote.trim(),
              comment: highlight.comment?.trim() || null,
              saved: isoTimestamp(highlight.saved),
            },
          };
        },
        isoTimestamp(ports.now()),
        null,
      )
      .catch((error: unknown) => {
        // The note is full (DynamoDB refused its size after all): the rest of its highlights cannot fit either.
        if (error instanceof NoteTooLargeError) return null;
        throw error;
      });
    if (update?.kind === 'updated') appended++;
  }
  return appended;
}
