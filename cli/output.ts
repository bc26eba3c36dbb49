/**
 * What the CLI prints for people (without --json): a resource as aligned `key: value` lines, a list
 * of resources as a table with one line each, followed by the next page's cursor when there is one.
 */
export function humanReadable(result: Record<string, unknown>): string {
  const [first, ...rest] = Object.entries(result);
  const isList = first && Array.isArray(first[1]) && rest.every(([key]) => key === 'cursor');
  if (!isList) return keyValueLines(Object.entries(result));
  const [name, rows] = first as [string, Record<string, unknown>[]];
  const next = rest.filter(([, value]) => value !== null && value !== undefined);
  return [rows.length === 0 ? `(no ${name})` : table(rows), ...(next.length ? [keyValueLines(next)] : [])].join('\n');
}

/** Resources as `key: value` lines each, a blank line between them. */
export function keyValueBlocks(resources: Record<string, unknown>[]): string {
  return resources.map((resource) => keyValueLines(Object.entries(resource))).join('\n\n');
}

function keyValueLines(entries: [string, unknown][]): string {
  const width = Math.max(...entries.map(([key]) => key.length));
  return entries.map(([key, value]) => `${`${key}:`.padEnd(width + 1)} ${cell(value, true)}`).join('\n');
}

/** Every column any row has (rows of one list may differ, as migrations count different things). */
function table(rows: Record<string, unknown>[]): string {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cells = [columns, ...rows.map((row) => columns.map((column) => cell(row[column], false)))];
  const widths = columns.map((_, index) => Math.max(...cells.map((line) => line[index]!.length)));
  return cells
    .map((line) =>
      line.map((text, index) => (index === line.length - 1 ? text : text.padEnd(widths[index]!))).join('  '),
    )
    .join('\n');
}

/** How much of a multi-line text (a note's body) a table shows: its first line, cut to this length. */
const TABLE_TEXT_PREVIEW = 60;

/**
 * One value as text: lists comma-separated, nothing as "-", multi-line text indented under its key,
 * or in a table its first line, cut short with "…" (the whole is in `--json` and the get command).
 */
function cell(value: unknown, multiline: boolean): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.length ? value.map((item) => cell(item, false)).join(', ') : '-';
  if (typeof value === 'object') return JSON.stringify(value);
  const text = String(value);
  if (!text.includes('\n')) return text;
  if (multiline) return `\n${text.replace(/^/gm, '  ')}`;
  const firstLine = text.trim().split('\n')[0]!.trim();
  return `${firstLine.slice(0, TABLE_TEXT_PREVIEW)}…`;
}
