import { MAX_TAGS_PER_NOTE, mergeTags } from '../model';
import { asTag } from '../save/hashtags';
import { sameHighlight } from '../save/note-body';
import type { BookmarkFileEntry } from '../workspace/netscape-bookmarks';
import { inSavedOrder, type RestoredHighlight } from '../workspace/restored-highlights';

/**
 * What every importer turns an export into: one item per saved page (its row in the export, so a
 * skipped one can be named), highlights with their times where the export has them, and the
 * highlights that name no page (Readwise's highlights CSV has no URL column).
 */

/** Where a row sits in the export: its file (for exports of several files) and its 1-based row there. */
export interface RowPlace {
  readonly file: string | null;
  /** The first record after a CSV's header, or the first entry of a JSON list, is row 1. */
  readonly row: number;
}

export interface ImportedHighlight {
  readonly quote: string;
  readonly comment: string | null;
  /** Null when the export does not say: the item's saved time then stands for it. */
  readonly saved: Date | null;
}

/** A page of an export; `updated` is when the export says it last changed (Omnivore's `updatedAt`). */
export interface ImportItem extends Omit<BookmarkFileEntry, 'archived' | 'starred'>, RowPlace {
  /** The user's own note on the item (Raindrop's `note`, Karakeep's `note`, a Pocket collection's `note`). */
  readonly comment?: string | null;
  readonly highlights?: readonly ImportedHighlight[];
  /** Archived (done reading) or starred there: since when, or `true` when the export does not say. */
  readonly archived?: Date | boolean | null;
  readonly starred?: Date | boolean | null;
  /** The readable copy the export kept (Omnivore's `content/{slug}.html`, Wallabag's `content`). */
  readonly article?: string | null;
}

/**
 * What names no page, kept as a note without a bookmark: the highlights of one book (Readwise's
 * highlights CSV has no URL column) or a text note (Karakeep's text bookmarks).
 */
export interface ImportedBook extends RowPlace {
  /**
   * What names its note: a book's by its title (a later import's highlights of the same book join
   * it), a text note by its title and text, a Gleaner export's note by its title and creation time.
   */
  readonly kind: 'book' | 'text' | 'note';
  readonly title: string;
  readonly author: string | null;
  readonly tags: readonly string[];
  readonly added: Date | null;
  readonly text: string | null;
  readonly highlights: readonly ImportedHighlight[];
  /** The owner's own note on it (Karakeep's `note`, a Gleaner export's comment). */
  readonly comment?: string | null;
  readonly archived?: Date | boolean | null;
  readonly starred?: Date | boolean | null;
  /** A Gleaner export's note, restored whole. */
  readonly note?: ImportItem['note'];
}

export interface SkippedRow extends RowPlace {
  readonly reason: string;
}

const IMPORT_FORMATS = [
  'pocket',
  'pocket-html',
  'omnivore',
  'instapaper',
  'readwise',
  'raindrop',
  'karakeep',
  'linkwarden',
  'wallabag',
  'hypothesis',
  'netscape',
  'gleaner',
] as const;

export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ParsedImport {
  readonly format: ImportFormat;
  readonly items: readonly ImportItem[];
  readonly books: readonly ImportedBook[];
  /** Rows left out while reading (Readwise's `feed` rows, rows that are not bookmarks). */
  readonly skipped: readonly SkippedRow[];
  /** What the export could not carry, said in the report (Instapaper's highlights, Omnivore's highlight times). */
  readonly notices: readonly string[];
}

/** An upload that cannot be imported: of no known format, or of a known one but unreadable (a CSV quote never closed). */
export class ImportFileError extends Error {}

/** A file of an export: its name (a zip's entries keep their folders) and its text. */
export interface ExportFile {
  readonly name: string;
  readonly text: string;
}

/** The export's file names are only named in reports when there are several. */
export const placeIn = (files: readonly ExportFile[], file: ExportFile) => (files.length > 1 ? file.name : null);

/** Names as tags, each once, at most a note's worth. */
export function tagsOf(names: readonly (string | null | undefined)[]): string[] {
  return mergeTags(
    [],
    names.flatMap((name) => (name ? (asTag(name) ?? []) : [])),
  ).slice(0, MAX_TAGS_PER_NOTE);
}

/** Unix seconds (a number or its digits) as a date; null when absent or not a positive time. */
export function fromSeconds(value: unknown): Date | null {
  const seconds = typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : NaN;
  return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : null;
}

/**
 * An ISO-like date as exports write it: `2024-10-29T16:30:11.000Z`, Readwise's
 * `2025-01-20 22:13:02.447000+00:00` (a space, microseconds), Wallabag's `2016-09-08T11:55:58+0200`.
 */
export function fromIso(value: unknown): Date | null {
  if (typeof value !== 'string' || !value.trim()) return null;
  const iso = value
    .trim()
    .replace(/^(\d{4}-\d\d-\d\d) (\d)/, '$1T$2')
    .replace(/(\.\d{3})\d+/, '$1')
    .replace(/([+-]\d\d)(\d\d)$/, '$1:$2');
  const time = Date.parse(iso);
  return Number.isNaN(time) ? null : new Date(time);
}

/** Text with its surrounding white space trimmed; null when nothing is left. */
export function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() ? value.trim() : null;
}

/** A title on one line, or null when it is only the URL again (Pocket writes the URL for an untitled item). */
export function titleOf(title: unknown, url: string): string | null {
  const trimmed = text(title)?.replace(/\s+/g, ' ');
  return trimmed && trimmed !== url.trim() ? trimmed : null;
}

/** A title as compared when joining highlights to documents and naming a book's note: case and spacing aside. */
export const titleKey = (title: string) => title.trim().toLowerCase().replace(/\s+/g, ' ');

/**
 * Highlights each once (the first of the same quote), in the order of their times, each strictly
 * later than the one before (a note's highlights are kept in the order of their times).
 */
export function orderedHighlights(highlights: readonly RestoredHighlight[]): RestoredHighlight[] {
  const found: RestoredHighlight[] = [];
  for (const highlight of highlights)
    if (!found.some((kept) => sameHighlight(kept.quote, highlight.quote))) found.push(highlight);
  return inSavedOrder(found.sort((a, b) => a.saved.getTime() - b.saved.getTime()));
}
