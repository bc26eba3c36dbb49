import { parse } from 'csv-parse/sync';
import { type ExportFile, ImportFileError, placeIn, type SkippedRow } from './items';

/**
 * A CSV export read by its header's names, never by position (Pocket's header changed three times):
 * quoted newlines, a UTF-8 BOM and CRLF line ends are all accepted. A row with another number of
 * cells than the header is reported as malformed, not guessed at.
 */

export interface CsvTable {
  /** The header's names, trimmed. */
  readonly header: readonly string[];
  readonly rows: readonly CsvRow[];
  readonly malformed: readonly SkippedRow[];
}

interface CsvRow {
  readonly file: string | null;
  readonly row: number;
  /** The cell under `name` (the header's names are matched without regard to case); '' when absent. */
  cell(name: string): string;
}

/** The header of a CSV file (its first record), lower-cased; null when the text is not CSV. */
export function csvHeader(text: string): string[] | null {
  const firstLine = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  if (!firstLine.includes(',')) return null;
  try {
    const [header] = parse(firstLine, { to_line: 1, relax_quotes: true }) as string[][];
    return header ? header.map((name) => name.trim().toLowerCase()) : null;
  } catch {
    return null;
  }
}

export function readCsv(files: readonly ExportFile[], file: ExportFile): CsvTable {
  let records: string[][];
  try {
    records = parse(file.text, { bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true });
  } catch (error) {
    // A quote never closed swallows the rest of the file: no row after it can be trusted.
    throw new ImportFileError(`${file.name} is not readable CSV: ${(error as Error).message}`);
  }
  const [head = [], ...body] = records;
  const header = head.map((name) => name.trim());
  const columns = new Map(header.map((name, index) => [name.toLowerCase(), index]));
  const where = placeIn(files, file);
  const rows: CsvRow[] = [];
  const malformed: SkippedRow[] = [];
  body.forEach((cells, index) => {
    const row = index + 1;
    if (cells.length !== header.length) {
      malformed.push({
        file: where,
        row,
        reason: `malformed: ${cells.length} cells where the header has ${header.length}`,
      });
      return;
    }
    rows.push({
      file: where,
      row,
      cell: (name) => {
        const column = columns.get(name.toLowerCase());
        return column === undefined ? '' : (cells[column] ?? '');
      },
    });
  });
  return { header, rows, malformed };
}
