import {
  type ExportFile,
  fromIso,
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
 * Omnivore's export zip: `metadata_{from}_to_{to}.json` arrays of
 * `{id,slug,title,description,author,url,state,readingProgress,labels,savedAt,updatedAt,publishedAt}`,
 * `highlights/{slug}.md` (`> quote ` paragraphs, each optionally followed by a `#label` paragraph and an
 * annotation) and `content/{slug}.html`, the readable copy. The export has no highlight times: the
 * item's `updatedAt` stands for them, and the report says so.
 */

export const isOmnivoreMetadata = (name: string) => /(^|\/)metadata_\d+_to_\d+\.json$/i.test(name);

const firstNumber = (name: string) => Number(/metadata_(\d+)/i.exec(name)?.[1] ?? 0);

export function parseOmnivore(files: readonly ExportFile[]): ParsedImport {
  const items: ImportItem[] = [];
  const skipped: SkippedRow[] = [];
  const bySlug = (folder: string, extension: string) =>
    new Map(
      files.flatMap((file) => {
        const match = new RegExp(`(?:^|/)${folder}/(.+)\\.${extension}$`, 'i').exec(file.name);
        return match ? [[match[1]!, file.text] as const] : [];
      }),
    );
  const highlightFiles = bySlug('highlights', 'md');
  const contentFiles = bySlug('content', 'html');
  const metadata = files
    .filter((file) => isOmnivoreMetadata(file.name))
    .sort((a, b) => firstNumber(a.name) - firstNumber(b.name));
  for (const file of metadata) {
    let entries: unknown;
    try {
      entries = JSON.parse(file.text);
    } catch {
      entries = null;
    }
    if (!Array.isArray(entries)) {
      skipped.push({ file: placeIn(files, file), row: 0, reason: 'malformed: not a JSON list' });
      continue;
    }
    entries.forEach((entry, index) => {
      const url = text(entry?.url) ?? '';
      const slug = text(entry?.slug);
      const updated = fromIso(entry?.updatedAt);
      const markdown = slug ? highlightFiles.get(slug) : undefined;
      const { highlights, labels, notes } = markdown
        ? omnivoreHighlights(markdown, updated)
        : { highlights: [], labels: [], notes: [] };
      const names = Array.isArray(entry?.labels)
        ? entry.labels.map((label: unknown) =>
            typeof label === 'string' ? label : text((label as { name?: unknown })?.name),
          )
        : [];
      items.push({
        file: placeIn(files, file),
        row: index + 1,
        url,
        title: titleOf(entry?.title, url),
        tags: tagsOf([...names, ...labels]),
        added: fromIso(entry?.savedAt),
        updated,
        description: text(entry?.description),
        comment: notes.join('\n\n') || null,
        highlights,
        archived: entry?.state === 'Archived',
        article: slug ? (contentFiles.get(slug) ?? null) : null,
      });
    });
  }
  return {
    format: 'omnivore',
    items,
    books: [],
    skipped,
    notices: ["Omnivore's export has no highlight times: each highlight takes its item's last update (updatedAt)."],
  };
}

/**
 * A `highlights/{slug}.md` file: paragraphs split on blank lines. A quote paragraph starts a
 * highlight; a paragraph of `#labels` after it gives labels (tags of the note); the paragraphs after
 * that, up to the next quote, are its annotation. Text before any quote is a note on the item.
 */
function omnivoreHighlights(
  markdown: string,
  saved: Date | null,
): { highlights: ImportedHighlight[]; labels: string[]; notes: string[] } {
  const paragraphs = markdown
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean);
  const found: { quote: string; comment: string[] }[] = [];
  const labels: string[] = [];
  const notes: string[] = [];
  for (const paragraph of paragraphs) {
    const lines = paragraph.split('\n');
    if (lines.every((line) => line.startsWith('>'))) {
      const quote = lines.map((line) => line.replace(/^> ?/, '').trimEnd()).join('\n');
      // Blank lines inside a quote are written as `> ` lines, so each quote paragraph is one highlight.
      found.push({ quote, comment: [] });
    } else if (found.length && /^(#[^\s#]+\s*)+$/u.test(paragraph) && found.at(-1)!.comment.length === 0) {
      labels.push(...paragraph.split(/\s+/).filter(Boolean));
    } else if (found.length) {
      found.at(-1)!.comment.push(paragraph);
    } else {
      notes.push(paragraph);
    }
  }
  return {
    highlights: found.flatMap(({ quote, comment }) => {
      const quoted = quote.trim();
      return quoted ? [{ quote: quoted, comment: comment.join('\n\n') || null, saved }] : [];
    }),
    labels,
    notes,
  };
}
