import { readCsv } from './csv';
import {
  type ExportFile,
  fromIso,
  fromSeconds,
  type ImportedBook,
  type ImportedHighlight,
  type ImportItem,
  type ParsedImport,
  type SkippedRow,
  tagsOf,
  text,
  titleKey,
  titleOf,
} from './items';

/** The CSV exports of Instapaper, Readwise (Reader's documents and the highlights) and Raindrop, read by header name. */

/**
 * Instapaper: `URL,Title,Selection,Folder[,Timestamp[,Tags]]`. `Folder` is `Unread`, `Archive`,
 * `Starred` or a folder of the user's (a tag); `Selection` is the description given when saving;
 * `Tags` a JSON list in a cell. The CSV carries no highlights.
 */
export function parseInstapaper(files: readonly ExportFile[], file: ExportFile): ParsedImport {
  const table = readCsv(files, file);
  const items = table.rows.map((row): ImportItem => {
    const url = row.cell('url').trim();
    const folder = row.cell('folder').trim();
    const special = ['unread', 'archive', 'starred'].includes(folder.toLowerCase());
    return {
      file: row.file,
      row: row.row,
      url,
      title: titleOf(row.cell('title'), url),
      tags: tagsOf([special ? null : folder, ...jsonTags(row.cell('tags'))]),
      added: fromSeconds(row.cell('timestamp')),
      description: text(row.cell('selection')),
      archived: folder.toLowerCase() === 'archive',
      starred: folder.toLowerCase() === 'starred',
    };
  });
  return {
    format: 'instapaper',
    items,
    books: [],
    skipped: table.malformed,
    notices: ["Instapaper's CSV carries no highlights (only its API has them), and a starred item's archive state."],
  };
}

function jsonTags(cell: string): string[] {
  if (!cell.trim()) return [];
  try {
    const parsed = JSON.parse(cell);
    return Array.isArray(parsed) ? parsed.filter((tag): tag is string => typeof tag === 'string') : [];
  } catch {
    return cell.split(',');
  }
}

/** Python's list repr, as Reader writes `Document tags`: `['a', "it's"]`. */
function pythonList(cell: string): string[] {
  return [...cell.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)].map((match) =>
    (match[1] ?? match[2] ?? '').replace(/\\(.)/g, '$1'),
  );
}

const READWISE_DOCUMENTS = ['title', 'url', 'document tags', 'saved date', 'location'];
const READWISE_HIGHLIGHTS = ['highlight', 'book title'];
export const isReadwiseDocuments = (header: readonly string[]) =>
  READWISE_DOCUMENTS.every((name) => header.includes(name));
export const isReadwiseHighlights = (header: readonly string[]) =>
  READWISE_HIGHLIGHTS.every((name) => header.includes(name));

/**
 * Readwise: Reader's documents CSV (`Title,URL,ID,Document tags,Saved date,Reading progress,Location,Seen`;
 * `feed` rows are RSS items Reader added itself, skipped and counted) and the highlights CSV
 * (`Highlight,Book Title,Book Author,…,Note,…,Tags,…,Highlighted at,Document tags`), which has no URL:
 * its highlights join a document of the same title, and the rest become one note per book.
 */
export function parseReadwise(
  files: readonly ExportFile[],
  documents: readonly ExportFile[],
  highlightFiles: readonly ExportFile[],
): ParsedImport {
  const items: ImportItem[] = [];
  const skipped: SkippedRow[] = [];
  for (const file of documents) {
    const table = readCsv(files, file);
    skipped.push(...table.malformed);
    for (const row of table.rows) {
      const location = row.cell('location').trim().toLowerCase();
      if (location === 'feed') {
        skipped.push({ file: row.file, row: row.row, reason: 'a feed item Reader added itself (Location feed)' });
        continue;
      }
      const url = row.cell('url').trim();
      const tags = pythonList(row.cell('document tags'));
      items.push({
        file: row.file,
        row: row.row,
        url,
        title: titleOf(row.cell('title'), url),
        tags: tagsOf(tags),
        added: fromIso(row.cell('saved date')),
        description: null,
        archived: location === 'archive',
        starred: tags.some((tag) => tag.toLowerCase() === 'favorite'),
      });
    }
  }
  const byTitle = new Map(items.flatMap((item, index) => (item.title ? [[titleKey(item.title), index] as const] : [])));
  const books = new Map<string, ImportedBook>();
  for (const file of highlightFiles) {
    const table = readCsv(files, file);
    skipped.push(...table.malformed);
    for (const row of table.rows) {
      const quote = text(row.cell('highlight'));
      const title = text(row.cell('book title')) ?? 'Untitled';
      if (!quote) {
        skipped.push({ file: row.file, row: row.row, reason: 'malformed: no highlight text' });
        continue;
      }
      const highlight: ImportedHighlight = {
        quote,
        comment: text(row.cell('note')),
        saved: fromIso(row.cell('highlighted at')),
      };
      const tags = tagsOf([...row.cell('tags').split(','), ...pythonList(row.cell('document tags'))]);
      const at = byTitle.get(titleKey(title));
      if (at !== undefined) {
        const item = items[at]!;
        items[at] = {
          ...item,
          tags: tagsOf([...item.tags, ...tags]),
          highlights: [...(item.highlights ?? []), highlight],
        };
        continue;
      }
      const book = books.get(titleKey(title));
      books.set(titleKey(title), {
        kind: 'book',
        file: book?.file ?? row.file,
        row: book?.row ?? row.row,
        title: book?.title ?? title,
        author: book?.author ?? text(row.cell('book author')),
        added: book?.added ?? highlight.saved,
        text: null,
        tags: tagsOf([...(book?.tags ?? []), ...tags]),
        highlights: [...(book?.highlights ?? []), highlight],
      });
    }
  }
  return {
    format: 'readwise',
    items,
    books: [...books.values()],
    skipped,
    notices: books.size
      ? [
          "Readwise's highlights CSV has no URLs: its highlights join the document of this import with the same title; those of other books become one note per book, without a bookmark.",
        ]
      : [],
  };
}

/**
 * Raindrop: `id,title,note,excerpt,url,folder,tags,created,cover,highlights,favorite` (2023:
 * `title,description,url,folder,tags,created,cover,highlights`). The folder path (`Research/Go`) and
 * the tags (`a, b`) become tags; `note` is the user's comment; every line of `highlights` is a quote
 * (`Note:` lines, where the export writes them, are the comment of the quote above).
 */
export function parseRaindrop(files: readonly ExportFile[], file: ExportFile): ParsedImport {
  const table = readCsv(files, file);
  const items = table.rows.map((row): ImportItem => {
    const url = row.cell('url').trim();
    const added = fromIso(row.cell('created'));
    const folders = row
      .cell('folder')
      .split('/')
      .filter((name) => name.trim() !== 'Unsorted');
    return {
      file: row.file,
      row: row.row,
      url,
      title: titleOf(row.cell('title'), url),
      tags: tagsOf([...folders, ...row.cell('tags').split(',')]),
      added,
      description: text(row.cell('excerpt')) ?? text(row.cell('description')),
      comment: text(row.cell('note')),
      highlights: raindropHighlights(row.cell('highlights')),
      starred: row.cell('favorite').trim().toLowerCase() === 'true',
    };
  });
  return {
    format: 'raindrop',
    items,
    books: [],
    skipped: table.malformed,
    notices: ["Raindrop's CSV has no highlight times: each highlight takes its bookmark's time."],
  };
}

function raindropHighlights(cell: string): ImportedHighlight[] {
  const found: { quote: string; comment: string | null }[] = [];
  for (const line of cell.replace(/\r\n?/g, '\n').split('\n')) {
    const note = /^\s*note:\s*(.*)$/i.exec(line);
    if (note && found.length) {
      const last = found.at(-1)!;
      found[found.length - 1] = {
        ...last,
        comment: [last.comment, note[1]!.trim()].filter(Boolean).join('\n') || null,
      };
      continue;
    }
    const quote = text(line.replace(/^\s*highlight:\s*/i, ''));
    if (quote) found.push({ quote, comment: null });
  }
  return found.map((highlight) => ({ ...highlight, saved: null }));
}
