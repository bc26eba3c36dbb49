import type { FetchOutcome } from '../enrich/enrichment';
import { iconFileName, iconMediaType } from '../enrich/icons';
import { isoTimestamp } from '../text/text';
import type { ArticleContent } from './content';
import { type ExtractedArticle, extractArticle } from './extract';

/**
 * The page itself, kept beside its note: the article's sanitized HTML and text in the article store
 * (S3 on AWS, a folder locally), its metadata and content hash on the bookmark's row.
 */

/** pending: not fetched yet; kept: an article; partial: what text a non-article page had; failed: nothing. */
type ArticleStatus = 'pending' | 'kept' | 'partial' | 'failed';

/** Images kept per article, and the largest image kept. */
const MAX_ARTICLE_IMAGES = 20;
export const MAX_IMAGE_BYTES = 2 * 1024 * 1024;

/**
 * The article's row data (on the bookmark item): metadata only, never the body. The extraction's
 * fields; `reason` also says why a page failed, and `leadImage` is the kept copy when it was kept.
 */
export interface ArticleRecord extends Omit<ExtractedArticle, 'status' | 'html' | 'text'> {
  readonly status: Exclude<ArticleStatus, 'pending'>;
  /** SHA-256 of the stored content; null when nothing is stored. */
  readonly hash: string | null;
  /** Bytes stored for the article: its content and its images. */
  readonly bytes: number;
  readonly images: number;
  /** When the stored copy was taken; null when nothing is stored. */
  readonly kept: string | null;
  /** The live page as last fetched: `live`, or `gone` (404, 410, or its name no longer resolves). */
  readonly sourceStatus: 'live' | 'gone' | null;
  /** When the page was last fetched. */
  readonly checked: string;
}

/** Where kept articles live, one folder per article (its id is the bookmark's): the content and its images. */
export interface ArticleStore {
  /** Stores the content; answers its SHA-256 and size in bytes. */
  putContent(articleId: string, content: ArticleContent): Promise<{ hash: string; bytes: number }>;
  getContent(articleId: string): Promise<ArticleContent | null>;
  /** Stores one image under `<sha256>.<ext>` (a second store of the same bytes changes nothing). */
  putImage(articleId: string, fileName: string, mediaType: string, bytes: Uint8Array): Promise<void>;
  getImage(articleId: string, fileName: string): Promise<{ mediaType: string; bytes: Uint8Array } | null>;
  /** Deletes the article's content and images; answers how many objects were removed. */
  deleteArticle(articleId: string): Promise<number>;
}

export interface KeepArticlePorts {
  readonly store: ArticleStore;
  /** Fetches an image through the safe fetcher (at most MAX_IMAGE_BYTES). */
  readonly fetchImage: (url: string) => Promise<FetchOutcome>;
  /** The service's own address of a kept image. */
  readonly imageUrl: (articleId: string, fileName: string) => string;
  readonly now: () => Date;
}

/** A fetched HTML page, as the page worker hands it over. */
export interface FetchedPage {
  readonly html: string;
  readonly url: string;
  readonly truncated: boolean;
}

/**
 * Extracts the article of a fetched page, keeps its images (up to MAX_ARTICLE_IMAGES, each at most
 * MAX_IMAGE_BYTES; the others are left out of the kept copy) and stores it. Answers the row data.
 */
export async function keepArticle(
  ports: KeepArticlePorts,
  articleId: string,
  page: FetchedPage,
): Promise<ArticleRecord> {
  const article = await extractArticle(page.html, page.url, { truncated: page.truncated });
  const { imageSources, replaceImages } = await import('./sanitize'); // loaded by the extraction already
  const kept = new Map<string, string>();
  const files = new Map<string, number>();
  for (const source of imageSources(article.html, MAX_ARTICLE_IMAGES)) {
    const image = await ports.fetchImage(source);
    if (!image.ok || image.status >= 400 || image.truncated || image.body.length > MAX_IMAGE_BYTES) continue;
    const mediaType = iconMediaType(image.contentType);
    if (!mediaType || image.body.length === 0) continue;
    const { fileName } = iconFileName(image.body, mediaType);
    await ports.store.putImage(articleId, fileName, mediaType, image.body);
    files.set(fileName, image.body.length);
    kept.set(source, ports.imageUrl(articleId, fileName));
  }
  const html = replaceImages(article.html, kept);
  // A page with no text at all (an app's empty shell) stores nothing.
  const stored = article.text ? await ports.store.putContent(articleId, { html, text: article.text }) : null;
  const leadImage = article.leadImage ? (kept.get(article.leadImage) ?? article.leadImage) : null;
  return recordOf(article, {
    leadImage,
    hash: stored?.hash ?? null,
    bytes: (stored?.bytes ?? 0) + [...files.values()].reduce((sum, size) => sum + size, 0),
    images: files.size,
    kept: stored ? isoTimestamp(ports.now()) : null,
    sourceStatus: 'live',
    checked: isoTimestamp(ports.now()),
  });
}

function recordOf(
  article: ExtractedArticle,
  storage: Pick<ArticleRecord, 'leadImage' | 'hash' | 'bytes' | 'images' | 'kept' | 'sourceStatus' | 'checked'>,
): ArticleRecord {
  return {
    status: article.status,
    reason: article.reason,
    title: article.title,
    byline: article.byline,
    siteName: article.siteName,
    published: article.published,
    language: article.language,
    direction: article.direction,
    wordCount: article.wordCount,
    readingMinutes: article.readingMinutes,
    ...storage,
  };
}

/** A page that could not be kept: nothing stored, the reason said. */
export function failedArticle(reason: string, now: Date, gone: boolean): ArticleRecord {
  return {
    status: 'failed',
    reason,
    title: null,
    byline: null,
    siteName: null,
    published: null,
    language: null,
    direction: null,
    wordCount: 0,
    readingMinutes: 0,
    leadImage: null,
    hash: null,
    bytes: 0,
    images: 0,
    kept: null,
    sourceStatus: gone ? 'gone' : null,
    checked: isoTimestamp(now),
  };
}

/**
 * A refetch that found the page gone keeps the last copy: the old record, marked gone and checked
 * now. Without an earlier copy the page has failed.
 */
export function pageGone(previous: ArticleRecord | null, reason: string, now: Date): ArticleRecord {
  if (previous?.hash) return { ...previous, sourceStatus: 'gone', checked: isoTimestamp(now) };
  return failedArticle(reason, now, true);
}

/** An answer that says the page no longer exists (rather than "not now"). */
export function isGoneStatus(status: number): boolean {
  return status === 404 || status === 410;
}

/** The service's own address of a kept image: `/articles/<article id>/images/<sha256>.<ext>`. */
export function articleImageUrl(publicBaseUrl: string, articleId: string, fileName: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/articles/${articleId}/images/${fileName}`;
}
