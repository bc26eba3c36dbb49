import { parseHTML } from 'linkedom';
import { readCsv } from './csv';
import {
  type ExportFile,
  fromSeconds,
  type ImportedHighlight,
  type ImportItem,
  type ParsedImport,
  placeIn,
  type SkippedRow,
  tagsOf,
  text,
  titleOf,
} from './items';

/**
 * Pocket's exports. The zip (October 2024 to the shutdown): `part_NNNNNN.csv` with up to 10,000 rows
 * each (`title,url,time_added[,cursor],tags[,status]`, the header of three eras), since March 2025
 * `annotations/part_NNNNNN.json` (`[{url,title,highlights:[{quote,created_at}]}]`, joined on `url`)
 * and `collections/<slug>.json` (`{slug,title,description,items:[{url,title,excerpt,note?}]}`).
 * Before that, `ril_export.html`: `<h1>Unread</h1>` and `<h1>Read Archive</h1>` lists of
 * `<a href time_added tags="a,b">`, the section giving the archive state.
 */

const byName = (a: ExportFile, b: ExportFile) => a.name.localeCompare(b.name);
const baseName = (name: string) => name.split('/').pop() ?? name;

export const isPocketPart = (name: string) => /^part_\d+\.csv$/i.test(baseName(name));
export const isPocketAnnotations = (name: string) => /(^|\/)annotations\/part_\d+\.json$/i.test(name);
export const isPocketCollection = (name: string) => /(^|\/)collections\/[^/]+\.json$/i.test(name);

export function parsePocketZip(files: readonly ExportFile[], csvFiles: readonly ExportFile[]): ParsedImport {
  const items: ImportItem[] = [];
  const skipped: SkippedRow[] = [];
  for (const file of [...csvFiles].sort(byName)) {
    const table = readCsv(files, file);
    skipped.push(...table.malformed);
    for (const row of table.rows) {
      const url = row.cell('url').trim();
      items.push({
        file: row.file,
        row: row.row,
        url,
        title: titleOf(row.cell('title'), url),
        tags: tagsOf(row.cell('tags').split('|')),
        added: fromSeconds(row.cell('time_added')),
        description: null,
        archived: row.cell('status').trim() === 'archive',
      });
    }
  }
  const byUrl = new Map(items.map((item, index) => [item.url, index]));
  /**
   * An entry of an annotations or collections file: merged into the row of its URL, or a page of its
   * own when the CSV lacks it (an annotated page, a page only in a collection).
   */
  const joinEntries = (
    file: ExportFile,
    entries: readonly Entry[],
    what: string,
    page: (entry: Entry, url: string) => Omit<ImportItem, 'file' | 'row' | 'url'>,
    merge: (item: ImportItem, entry: Entry) => ImportItem,
  ) =>
    entries.forEach((entry, index) => {
      const place = { file: placeIn(files, file), row: index + 1 };
      const url = text(entry?.url);
      if (!url) {
        skipped.push({ ...place, reason: `malformed: ${what} without a url` });
        return;
      }
      const at = byUrl.get(url);
      if (at !== undefined) items[at] = merge(items[at]!, entry);
      else {
        byUrl.set(url, items.length);
        items.push({ ...place, url, ...page(entry, url) });
      }
    });
  // Highlights join on the URL, each with its time.
  const highlightsOf = (entry: Entry): ImportedHighlight[] =>
    (Array.isArray(entry.highlights) ? entry.highlights : []).flatMap((highlight: Entry) => {
      const quote = text(highlight?.quote);
      return quote ? [{ quote, comment: null, saved: fromSeconds(highlight.created_at) }] : [];
    });
  for (const file of files.filter((candidate) => isPocketAnnotations(candidate.name)).sort(byName))
    joinEntries(
      file,
      jsonList(file, skipped, files),
      'an annotation entry',
      (entry, url) => ({
        title: titleOf(entry.title, url),
        tags: [],
        added: null,
        description: null,
        highlights: highlightsOf(entry),
      }),
      (item, entry) => ({ ...item, highlights: [...(item.highlights ?? []), ...highlightsOf(entry)] }),
    );
  // A collection is a tag on its pages (its slug); its notes on them become their comments.
  for (const file of files.filter((candidate) => isPocketCollection(candidate.name)).sort(byName)) {
    let collection: Entry;
    try {
      collection = JSON.parse(file.text);
    } catch {
      skipped.push({ file: placeIn(files, file), row: 0, reason: 'malformed: not JSON' });
      continue;
    }
    const tags = tagsOf([text(collection?.slug) ?? baseName(file.name).replace(/\.json$/i, '')]);
    joinEntries(
      file,
      Array.isArray(collection?.items) ? collection.items : [],
      'a collection item',
      (entry, url) => ({
        title: titleOf(entry.title, url),
        tags,
        added: null,
        description: text(entry.excerpt),
        comment: text(entry.note),
      }),
      (item, entry) => ({
        ...item,
        tags: tagsOf([...item.tags, ...tags]),
        description: item.description ?? text(entry.excerpt),
        comment: [item.comment, text(entry.note)].filter(Boolean).join('\n\n') || null,
      }),
    );
  }
  return {
    format: 'pocket',
    items,
    books: [],
    skipped,
    notices: ['Pocket exported no favourites, no notes on highlights and no article text.'],
  };
}

// biome-ignore lint/suspicious/noExplicitAny: entries of an export are checked field by field where read
type Entry = any;

function jsonList(file: ExportFile, skipped: SkippedRow[], files: readonly ExportFile[]): Entry[] {
  try {
    const parsed = JSON.parse(file.text);
    if (Array.isArray(parsed)) return parsed;
  } catch {
    // reported below
  }
  skipped.push({ file: placeIn(files, file), row: 0, reason: 'malformed: not a JSON list' });
  return [];
}

/** The parts of linkedom's DOM read here (its typings need the DOM lib, which this project leaves out). */
interface Element {
  readonly tagName: string;
  readonly textContent: string;
  getAttribute(name: string): string | null;
}

/** `ril_export.html`: the links of each section, archived when under "Read Archive". */
export function parsePocketHtml(files: readonly ExportFile[], file: ExportFile): ParsedImport {
  const { document } = parseHTML(file.text);
  let archived = false;
  let row = 0;
  const items: ImportItem[] = [];
  for (const element of document.querySelectorAll('h1, a') as Iterable<Element>) {
    if (element.tagName === 'H1') {
      archived = /archive/i.test(element.textContent);
      continue;
    }
    row++;
    const url = (element.getAttribute('href') ?? '').trim();
    items.push({
      file: placeIn(files, file),
      row,
      url,
      title: titleOf(element.textContent, url),
      tags: tagsOf((element.getAttribute('tags') ?? '').split(',')),
      added: fromSeconds(element.getAttribute('time_added')),
      description: null,
      archived,
    });
  }
  return {
    format: 'pocket-html',
    items,
    books: [],
    skipped: [],
    notices: ["Pocket's ril_export.html carries no highlights, favourites or notes."],
  };
}
