import { strFromU8, unzipSync } from 'fflate';
import { exportedArticlePage, InvalidExportError, parseWorkspaceExport } from '../workspace/export';
import { parseNetscapeBookmarks } from '../workspace/netscape-bookmarks';
import { csvHeader } from './csv';
import {
  isReadwiseDocuments,
  isReadwiseHighlights,
  parseInstapaper,
  parseRaindrop,
  parseReadwise,
} from './csv-services';
import { type ExportFile, ImportFileError, type ParsedImport, placeIn } from './items';
import { parseHypothesis, parseKarakeep, parseLinkwarden, parseWallabag } from './json-services';
import { isOmnivoreMetadata, parseOmnivore } from './omnivore';
import { isPocketAnnotations, isPocketCollection, isPocketPart, parsePocketHtml, parsePocketZip } from './pocket';

/**
 * Which export a file is, told by its content (its name only where the content cannot tell, as a
 * Pocket part or Omnivore's metadata), and its items. A zip is read whole; the files inside it may
 * also be given loose. A file of no known format throws UnknownFormatError naming those known.
 */

export interface UploadedFile {
  readonly name: string;
  readonly bytes: Uint8Array;
}

class UnknownFormatError extends ImportFileError {
  constructor(what: string) {
    super(`${what}; Gleaner imports: ${KNOWN_FORMATS}`);
  }
}

const KNOWN_FORMATS =
  "a Pocket zip (part_NNNNNN.csv, annotations/, collections/) or its ril_export.html, an Omnivore zip (metadata_*.json, highlights/, content/), Instapaper's CSV, Readwise Reader's documents CSV and its highlights CSV, Raindrop's CSV, a Karakeep JSON export, Linkwarden's backup.json, a Wallabag JSON export, a Hypothesis JSON export, a browser's bookmark file (Netscape HTML) or Gleaner's own export (JSON or HTML)";

const isZip = (bytes: Uint8Array) => bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

/** The files given, a zip's entries in its place (folders, macOS's `__MACOSX` and `.DS_Store` left out). */
function exportFiles(uploads: readonly UploadedFile[]): ExportFile[] {
  return uploads.flatMap((upload) => {
    if (!isZip(upload.bytes)) return [{ name: upload.name, text: decode(upload.bytes) }];
    let entries: Record<string, Uint8Array>;
    try {
      entries = unzipSync(upload.bytes, {
        filter: (entry) => !entry.name.endsWith('/') && !/(^|\/)(__MACOSX\/|\.DS_Store$)/.test(entry.name),
      });
    } catch (error) {
      throw new UnknownFormatError(`${upload.name} is not a readable zip (${(error as Error).message})`);
    }
    return Object.entries(entries).map(([name, bytes]) => ({ name, text: decode(bytes) }));
  });
}

/** UTF-8 text without its byte order mark (TextDecoder drops it). */
const decode = (bytes: Uint8Array) => strFromU8(bytes).replace(/^\uFEFF/, '');

export function readExport(uploads: readonly UploadedFile[]): ParsedImport {
  const files = exportFiles(uploads);
  if (files.length === 0) throw new UnknownFormatError('the upload holds no files');
  const headers = new Map(
    files.map((file) => [
      file,
      /\.(csv|txt)$/i.test(file.name) || !/\.\w+$/.test(file.name) ? csvHeader(file.text) : null,
    ]),
  );
  const header = (file: ExportFile) => headers.get(file) ?? null;
  const has = (file: ExportFile, ...names: string[]) => names.every((name) => header(file)?.includes(name));

  const pocketParts = files.filter((file) => isPocketPart(file.name) || has(file, 'title', 'url', 'time_added'));
  if (pocketParts.length || files.some((file) => isPocketAnnotations(file.name) || isPocketCollection(file.name)))
    return parsePocketZip(files, pocketParts);
  const json = new Map(files.map((file) => [file, parsedJson(file)]));
  if (files.some((file) => isOmnivoreMetadata(file.name) || isOmnivoreList(json.get(file))))
    return parseOmnivore(
      files.map((file) =>
        isOmnivoreList(json.get(file)) && !isOmnivoreMetadata(file.name)
          ? { ...file, name: 'metadata_0_to_0.json' }
          : file,
      ),
    );
  const documents = files.filter((file) => isReadwiseDocuments(header(file) ?? []));
  const highlights = files.filter((file) => isReadwiseHighlights(header(file) ?? []));
  if (documents.length || highlights.length) return parseReadwise(files, documents, highlights);
  for (const file of files) {
    if (has(file, 'url', 'title', 'selection', 'folder')) return parseInstapaper(files, file);
    if (has(file, 'url', 'folder', 'tags', 'created')) return parseRaindrop(files, file);
    const document = json.get(file) as
      | { bookmarks?: unknown; collections?: unknown; annotations?: unknown }
      | undefined;
    if (document !== undefined) {
      const parsed = fromJson(files, file, document);
      if (parsed) return parsed;
      continue;
    }
    if (/<a\s[^>]*href/i.test(file.text)) {
      if (/<title>\s*Pocket Export\s*<\/title>|<a\s[^>]*\btime_added=/i.test(file.text))
        return parsePocketHtml(files, file);
      return netscape(files, file);
    }
  }
  throw new UnknownFormatError(
    files.length === 1
      ? `${files[0]!.name} is not an export of a known format`
      : 'none of the files is an export of a known format',
  );
}

function parsedJson(file: ExportFile): unknown {
  const start = file.text.trimStart()[0];
  if (start !== '{' && start !== '[') return undefined;
  try {
    return JSON.parse(file.text);
  } catch {
    return undefined;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: a parsed document's shape is what is being told
const firstOf = (value: unknown): any =>
  Array.isArray(value) ? value.find((entry) => entry && typeof entry === 'object') : undefined;
const isOmnivoreList = (value: unknown) => {
  const first = firstOf(value);
  return !!first && 'slug' in first && 'savedAt' in first;
};

// biome-ignore lint/suspicious/noExplicitAny: as above
function fromJson(files: readonly ExportFile[], file: ExportFile, document: any): ParsedImport | null {
  if (Array.isArray(document?.bookmarks)) {
    const first = firstOf(document.bookmarks);
    if ((first && 'content' in first) || (!first && Array.isArray(document.lists)))
      return parseKarakeep(files, file, document);
    return gleaner(files, file);
  }
  if (Array.isArray(document?.collections)) return parseLinkwarden(files, file, document);
  const annotations = Array.isArray(document?.annotations) ? document.annotations : document;
  const first = firstOf(annotations);
  if (first && 'uri' in first && ('target' in first || 'text' in first))
    return parseHypothesis(files, file, annotations);
  if (first && 'url' in first && ('is_archived' in first || 'is_starred' in first))
    return parseWallabag(files, file, document);
  return null;
}

function netscape(files: readonly ExportFile[], file: ExportFile): ParsedImport {
  const entries = parseNetscapeBookmarks(file.text);
  const where = placeIn(files, file);
  return {
    format: 'netscape',
    items: entries.map((entry, index) => ({ ...entry, file: where, row: index + 1 })),
    books: [],
    skipped: [],
    notices: [],
  };
}

function gleaner(files: readonly ExportFile[], file: ExportFile): ParsedImport {
  let entries: ReturnType<typeof parseWorkspaceExport>;
  try {
    entries = parseWorkspaceExport(file.text);
  } catch (error) {
    if (error instanceof InvalidExportError)
      throw new UnknownFormatError(`${file.name} is not a Gleaner JSON export: ${error.message}`);
    throw error;
  }
  const where = placeIn(files, file);
  // The kept page, which the bookmark file form of an export cannot carry, is read here.
  const { bookmarks } = JSON.parse(file.text) as { bookmarks: { article?: unknown }[] };
  return {
    format: 'gleaner',
    items: entries.bookmarks.map(({ comment, ...entry }, index) => ({
      ...entry,
      file: where,
      row: index + 1,
      comment,
      article: exportedArticlePage(bookmarks[index]?.article),
    })),
    // Its notes without a bookmark follow its bookmarks, numbered on from them.
    books: entries.notes.map(({ title, tags, added, comment, note, archived, starred }, index) => ({
      kind: 'note',
      file: where,
      row: entries.bookmarks.length + index + 1,
      title,
      author: null,
      tags,
      added,
      text: null,
      highlights: [],
      comment,
      archived,
      starred,
      note,
    })),
    skipped: [],
    notices: [],
  };
}
