import {
  type ArticleRecord,
  failedArticle,
  isGoneStatus,
  type KeepArticlePorts,
  keepArticle,
  pageGone,
} from '../article/article';
import type { Bookmark } from '../model';
import { insertDescription, NoteBody, NoteTooLargeError } from '../save/note-body';
import { type BookmarkStore, NoteNotFoundError } from '../save/save-bookmark';
import { isoTimestamp } from '../text/text';
import type { Attempt, EnrichmentRequest, FaviconRequest, FetchOutcome, PageOutcome } from './enrichment';
import { isFresh, isTransientStatus, RetryLaterError } from './enrichment';
import { decodeHtml, extractPageMetadata } from './html-metadata';
import type { SiteStore } from './icons';

/**
 * The page worker's step: fetch the saved page once, keep its article, put its description into the
 * note, hand its favicon candidates on. A request with `article` (Fetch again, the migration of older
 * notes) keeps the article only, and runs on a bookmark already enriched.
 */

export interface EnrichPagePorts {
  readonly bookmarks: {
    getBookmark(
      bookmarkId: string,
    ): Promise<(Bookmark & { pageStatus?: string | null; article?: ArticleRecord | null }) | null>;
    setIcon(bookmarkId: string, icon: string): Promise<void>;
    recordPageOutcome(bookmarkId: string, outcome: PageOutcome): Promise<void>;
    /** Records the article's row data; false when the bookmark is gone. */
    recordArticle(bookmarkId: string, article: ArticleRecord): Promise<boolean>;
  };
  readonly articles: KeepArticlePorts;
  readonly notes: Pick<BookmarkStore, 'updateSavedNote'>;
  readonly sites: Pick<SiteStore, 'getSite'>;
  readonly favicons: { publish(request: FaviconRequest): Promise<void> };
  readonly fetchPage: (url: string) => Promise<FetchOutcome>;
  readonly iconRefreshMs: number;
  readonly now: () => Date;
}

export async function enrichPage(
  ports: EnrichPagePorts,
  request: EnrichmentRequest,
  attempt: Attempt,
): Promise<PageOutcome | 'skipped'> {
  const bookmark = await ports.bookmarks.getBookmark(request.bookmarkId);
  if (!bookmark) return 'skipped'; // Deleted since.
  if (request.article) {
    const page = await fetchHtml(ports.fetchPage, bookmark.url, attempt);
    await recordArticle(ports, bookmark, await articleOf(ports, bookmark, page));
    return page.status === 'done' ? { status: 'done' } : { status: 'failed', reason: page.reason };
  }
  // Already enriched by an earlier delivery of this message.
  if (bookmark.pageStatus === 'done' || bookmark.pageStatus === 'failed') return 'skipped';

  const page = await fetchHtml(ports.fetchPage, bookmark.url, attempt);
  await recordArticle(ports, bookmark, await articleOf(ports, bookmark, page));
  const metadata = page.status === 'done' ? await extractPageMetadata(page.html, page.url) : null;
  if (request.scrapeDescription && metadata?.description) await addDescription(ports, bookmark, metadata.description);

  if (request.fetchIcon && !bookmark.icon) {
    const host = new URL(bookmark.url).host;
    const site = await ports.sites.getSite(host);
    if (site && isFresh(site.fetchedAt, ports.iconRefreshMs, ports.now())) {
      if (site.icon) await ports.bookmarks.setIcon(bookmark.id, site.icon);
    } else {
      const candidates = metadata?.iconCandidates.length
        ? metadata.iconCandidates
        : [new URL('/favicon.ico', bookmark.url).href];
      await ports.favicons.publish({ bookmarkId: bookmark.id, host, candidates });
    }
  }

  const outcome: PageOutcome = page.status === 'done' ? { status: 'done' } : { status: 'failed', reason: page.reason };
  await ports.bookmarks.recordPageOutcome(bookmark.id, outcome);
  return outcome;
}

/**
 * The article of the fetched page. A page that is gone (404, 410, a name that no longer resolves)
 * or cannot be fetched keeps the copy taken before, if there is one.
 */
async function articleOf(
  ports: EnrichPagePorts,
  bookmark: Bookmark & { article?: ArticleRecord | null },
  page: FetchedHtml,
): Promise<ArticleRecord> {
  const now = ports.now();
  if (page.status === 'done') return keepArticle(ports.articles, bookmark.id, page);
  const previous = bookmark.article ?? null;
  if (page.gone) return pageGone(previous, page.reason, now);
  if (previous?.hash) return previous;
  if (page.notHtml)
    return {
      ...failedArticle(`${page.reason}: its text is not kept`, now, false),
      status: 'partial',
      sourceStatus: 'live',
    };
  return failedArticle(page.reason, now, false);
}

/** A bookmark deleted while its article was stored leaves nothing behind. */
async function recordArticle(ports: EnrichPagePorts, bookmark: Bookmark, article: ArticleRecord): Promise<void> {
  if (!(await ports.bookmarks.recordArticle(bookmark.id, article)))
    await ports.articles.store.deleteArticle(bookmark.id);
}

/**
 * Places a scraped description above the note's source line, unless the note already has text there
 * (a supplied description, or the user's own words); a note deleted meanwhile is left deleted. The
 * bookmark's update time moves with the note's, as on any other change.
 */
async function addDescription(ports: EnrichPagePorts, bookmark: Bookmark, description: string): Promise<void> {
  try {
    await ports.notes.updateSavedNote(
      { bookmarkId: bookmark.id, noteId: bookmark.noteId },
      (note) => {
        const body = insertDescription(note.body, description);
        // A note too full for its description stays without it.
        return body === null || NoteBody.of(note).refusal({ ...note, body })
          ? null
          : { body, tags: note.tags, lastHighlight: note.lastHighlight };
      },
      isoTimestamp(ports.now()),
      null,
    );
  } catch (error) {
    if (!(error instanceof NoteNotFoundError || error instanceof NoteTooLargeError)) throw error;
  }
}

type FetchedHtml =
  | { status: 'done'; html: string; url: string; truncated: boolean }
  | { status: 'failed'; reason: string; gone: boolean; notHtml: boolean };

async function fetchHtml(fetchPage: EnrichPagePorts['fetchPage'], url: string, attempt: Attempt): Promise<FetchedHtml> {
  const response = await fetchPage(url);
  const failed = (reason: string, retryable: boolean, kind: { gone?: boolean; notHtml?: boolean } = {}) => {
    if (retryable && attempt.number < attempt.max) throw new RetryLaterError(reason);
    return { status: 'failed' as const, reason, gone: kind.gone ?? false, notHtml: kind.notHtml ?? false };
  };
  // A name that no longer resolves is final: the site is gone.
  if (!response.ok) return failed(response.reason, response.retryable, { gone: /^dns:/.test(response.reason) });
  if (response.status >= 400)
    return failed(`HTTP ${response.status}`, isTransientStatus(response.status), {
      gone: isGoneStatus(response.status),
    });
  if (!/^(text\/html|application\/xhtml\+xml)\b/i.test(response.contentType ?? ''))
    return failed(`not HTML (${response.contentType ?? 'no content type'})`, false, {
      notHtml: true,
    });
  return {
    status: 'done',
    html: decodeHtml(response.body, response.contentType),
    url: response.url,
    truncated: response.truncated,
  };
}
