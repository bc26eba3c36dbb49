import {
  type ExportFile,
  fromIso,
  fromSeconds,
  type ImportedBook,
  type ImportedHighlight,
  type ImportItem,
  type ParsedImport,
  placeIn,
  type SkippedRow,
  tagsOf,
  text,
  titleOf,
} from './items';

/** The JSON exports of Karakeep, Linkwarden, Wallabag and Hypothesis. Their entries are checked field by field. */

// biome-ignore lint/suspicious/noExplicitAny: an export's entries are read field by field, each checked where read
type Entry = any;

const names = (list: unknown): string[] =>
  Array.isArray(list)
    ? list.flatMap((tag: Entry) => (typeof tag === 'string' ? [tag] : typeof tag?.name === 'string' ? [tag.name] : []))
    : [];

/**
 * Karakeep: `{bookmarks:[{createdAt (s), title, tags, content:{type:"link",url}|{type:"text",text},
 * note, archived, lists?}], lists:[{id,name}]}`. A text bookmark has no page: it becomes a note
 * without a bookmark. Manual lists become tags.
 */
export function parseKarakeep(files: readonly ExportFile[], file: ExportFile, document: Entry): ParsedImport {
  const lists = new Map<string, string>(
    (Array.isArray(document.lists) ? document.lists : []).flatMap((list: Entry) =>
      typeof list?.id === 'string' && typeof list?.name === 'string' ? [[list.id, list.name]] : [],
    ),
  );
  const items: ImportItem[] = [];
  const books: ImportedBook[] = [];
  const skipped: SkippedRow[] = [];
  const where = placeIn(files, file);
  (document.bookmarks as Entry[]).forEach((bookmark, index) => {
    const row = index + 1;
    const tags = tagsOf([
      ...names(bookmark?.tags),
      ...(Array.isArray(bookmark?.lists) ? bookmark.lists.map((id: unknown) => lists.get(String(id))) : []),
    ]);
    const added = fromSeconds(bookmark?.createdAt);
    const content = bookmark?.content;
    if (content?.type === 'text') {
      books.push({
        kind: 'text',
        file: where,
        row,
        title: text(bookmark.title) ?? (text(content.text) ?? '').split('\n')[0]!.slice(0, 100),
        author: null,
        tags,
        added,
        text: text(content.text),
        comment: text(bookmark.note),
        archived: bookmark.archived === true,
        highlights: [],
      });
      return;
    }
    if (content?.type !== 'link' || typeof content.url !== 'string') {
      skipped.push({ file: where, row, reason: 'malformed: neither a link nor a text bookmark' });
      return;
    }
    items.push({
      file: where,
      row,
      url: content.url.trim(),
      title: titleOf(bookmark.title, content.url),
      tags,
      added,
      description: null,
      comment: text(bookmark.note),
      archived: bookmark.archived === true,
    });
  });
  return {
    format: 'karakeep',
    items,
    books,
    skipped,
    notices: ["Karakeep's export carries no highlights and no favourites."],
  };
}

/**
 * Linkwarden's `backup.json`: `collections[{id,name,parentId,links[{name,url,description,createdAt,
 * tags[{name}]}]}]` and `pinnedLinks` (starred here). A link's collection path becomes tags.
 */
export function parseLinkwarden(files: readonly ExportFile[], file: ExportFile, document: Entry): ParsedImport {
  const collections = (document.collections as Entry[]).filter(
    (collection) => collection && typeof collection === 'object',
  );
  const byId = new Map<unknown, Entry>(collections.map((collection) => [collection.id, collection]));
  const path = (collection: Entry): string[] => {
    const seen = new Set<Entry>();
    const found: string[] = [];
    for (let at = collection; at && !seen.has(at); at = byId.get(at.parentId)) {
      seen.add(at);
      if (typeof at.name === 'string') found.unshift(at.name);
    }
    return found;
  };
  const pinned = new Set(
    (Array.isArray(document.pinnedLinks) ? document.pinnedLinks : []).map((link: Entry) => link?.id ?? link?.url),
  );
  const items: ImportItem[] = [];
  const skipped: SkippedRow[] = [];
  const where = placeIn(files, file);
  let row = 0;
  for (const collection of collections) {
    for (const link of Array.isArray(collection.links) ? collection.links : []) {
      row++;
      const url = text(link?.url);
      if (!url) {
        skipped.push({ file: where, row, reason: `malformed: a link without a url (${link?.type ?? 'no type'})` });
        continue;
      }
      items.push({
        file: where,
        row,
        url,
        title: titleOf(link.name, url),
        tags: tagsOf([...path(collection), ...names(link.tags)]),
        added: fromIso(link.createdAt) ?? fromIso(link.importDate),
        description: text(link.description),
        starred: pinned.has(link.id) || pinned.has(url),
      });
    }
  }
  return {
    format: 'linkwarden',
    items,
    books: [],
    skipped,
    notices: ["Linkwarden's backup carries no highlights."],
  };
}

/**
 * Wallabag: a list of entries with `title` (may hold markup), `url`, `is_archived`, `is_starred`,
 * `content` (the readable HTML), `created_at` (`2016-09-08T11:55:58+0200`), `tags` and
 * `annotations [{quote,text}]` (no times: the entry's update stands for them).
 */
export function parseWallabag(files: readonly ExportFile[], file: ExportFile, entries: Entry[]): ParsedImport {
  const where = placeIn(files, file);
  const items = entries.map((entry, index): ImportItem => {
    const url = text(entry?.url) ?? '';
    const updated = fromIso(entry?.updated_at);
    const highlights: ImportedHighlight[] = (Array.isArray(entry?.annotations) ? entry.annotations : []).flatMap(
      (annotation: Entry) => {
        const quote = text(annotation?.quote);
        return quote
          ? [{ quote, comment: text(annotation.text), saved: fromIso(annotation.created_at) ?? updated }]
          : [];
      },
    );
    return {
      file: where,
      row: index + 1,
      url,
      title: titleOf(typeof entry?.title === 'string' ? withoutMarkup(entry.title) : null, url),
      tags: tagsOf(names(entry?.tags)),
      added: fromIso(entry?.created_at),
      updated,
      description: null,
      highlights,
      archived: Number(entry?.is_archived) === 1 && (fromIso(entry.archived_at) ?? true),
      starred: Number(entry?.is_starred) === 1 && (fromIso(entry.starred_at) ?? true),
      article: text(entry?.content),
    };
  });
  return {
    format: 'wallabag',
    items,
    books: [],
    skipped: [],
    notices: ["Wallabag's annotations carry no times: each takes its entry's last update."],
  };
}

/** A title's text without tags, its common entities decoded (Wallabag titles may hold markup). */
function withoutMarkup(title: string): string {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return title
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) =>
      name.startsWith('#x') || name.startsWith('#X')
        ? String.fromCodePoint(Number.parseInt(name.slice(2), 16))
        : name.startsWith('#')
          ? String.fromCodePoint(Number(name.slice(1)))
          : (entities[name.toLowerCase()] ?? whole),
    );
}

/**
 * Hypothesis: the client's export `{export_date, annotations:[…]}` (or the API's list). Annotations
 * of one `uri` make one note: each `TextQuoteSelector` `exact` a highlight with its `text` as comment
 * and its `created` time; a page note (no selector) and a reply (`references`) are its comments.
 */
export function parseHypothesis(files: readonly ExportFile[], file: ExportFile, annotations: Entry[]): ParsedImport {
  const where = placeIn(files, file);
  const byUri = new Map<string, { item: ImportItem; comments: string[] }>();
  const skipped: SkippedRow[] = [];
  annotations.forEach((annotation, index) => {
    const row = index + 1;
    const url = text(annotation?.uri);
    if (!url) {
      skipped.push({ file: where, row, reason: 'malformed: an annotation without a uri' });
      return;
    }
    const created = fromIso(annotation.created);
    const selectors = (Array.isArray(annotation.target) ? annotation.target : []).flatMap((target: Entry) =>
      Array.isArray(target?.selector) ? target.selector : [],
    );
    const exact = text(selectors.find((selector: Entry) => selector?.type === 'TextQuoteSelector')?.exact);
    const comment = text(annotation.text);
    const entry = byUri.get(url) ?? {
      item: {
        file: where,
        row,
        url,
        title: titleOf(Array.isArray(annotation.document?.title) ? annotation.document.title[0] : null, url),
        tags: [],
        added: created,
        description: null,
        highlights: [],
      },
      comments: [],
    };
    const { item } = entry;
    entry.item = {
      ...item,
      tags: tagsOf([...item.tags, ...names(annotation.tags)]),
      added: [item.added, created].filter((date): date is Date => date !== null).sort((a, b) => +a - +b)[0] ?? null,
      highlights: exact ? [...(item.highlights ?? []), { quote: exact, comment, saved: created }] : item.highlights,
    };
    if (!exact && comment) entry.comments.push(comment);
    byUri.set(url, entry);
  });
  const items = [...byUri.values()].map(({ item, comments }) => ({ ...item, comment: comments.join('\n\n') || null }));
  return { format: 'hypothesis', items, books: [], skipped, notices: [] };
}
