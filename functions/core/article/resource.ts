import type { ArticleResource } from '../owner/api';
import type { ArticleRecord, ArticleStore } from './article';

/**
 * The kept page as its readers get it: the per-user API, MCP, the pages, the JSON export and the
 * search index. Apart from the article pipeline (article.ts), so they do not load extraction and
 * sanitizing.
 */

/** A note's kept article's text, from the store (its id is the note's bookmark's); null when none is stored. */
export async function storedArticleText(
  store: Pick<ArticleStore, 'getContent'>,
  note: { readonly bookmarkId: string | null },
): Promise<string | null> {
  return note.bookmarkId ? ((await store.getContent(note.bookmarkId))?.text ?? null) : null;
}

/** "The page is gone; this copy was kept on DATE" (the date as YYYY-MM-DD). */
function goneNotice(record: Pick<ArticleRecord, 'sourceStatus' | 'kept'>): string | null {
  if (record.sourceStatus !== 'gone' || !record.kept) return null;
  return `The page is gone; this copy was kept on ${record.kept.slice(0, 10)}`;
}

/** The kept page as the per-user API, MCP and the JSON export answer it. */
export function articleResource(
  record: ArticleRecord | null,
  content: { html: string; text: string } | null,
): ArticleResource {
  return {
    status: record?.status ?? 'pending',
    reason: record?.reason ?? null,
    title: record?.title ?? null,
    byline: record?.byline ?? null,
    site_name: record?.siteName ?? null,
    published: record?.published ?? null,
    language: record?.language ?? null,
    direction: record?.direction ?? null,
    word_count: record?.wordCount ?? 0,
    reading_minutes: record?.readingMinutes ?? 0,
    lead_image: record?.leadImage ?? null,
    text: content?.text ?? null,
    html: content?.html ?? null,
    kept: content ? (record?.kept ?? null) : null,
    source_status: record?.sourceStatus ?? null,
    notice: record ? goneNotice(record) : null,
  };
}
