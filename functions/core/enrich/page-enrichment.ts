import type { Bookmark } from '../model';
import { insertDescription } from '../save/note-body';
import { type BookmarkStore, NoteNotFoundError } from '../save/save-bookmark';
import { isoTimestamp } from '../text/text';
import type { Attempt, EnrichmentRequest, FaviconRequest, FetchOutcome, PageOutcome } from './enrichment';
import { isFresh, isTransientStatus, RetryLaterError } from './enrichment';
import { decodeHtml, extractPageMetadata } from './html-metadata';
import type { SiteStore } from './icons';

/** The page worker's step: fetch the saved page once, put its description into the note, hand its favicon candidates on. */

export interface EnrichPagePorts {
  readonly bookmarks: {
    getBookmark(bookmarkId: string): Promise<(Bookmark & { pageStatus?: string | null }) | null>;
    setIcon(bookmarkId: string, icon: string): Promise<void>;
    recordPageOutcome(bookmarkId: string, outcome: PageOutcome): Promise<void>;
  };
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
  // Deleted since, or already enriched by an earlier delivery of this message.
  if (!bookmark || bookmark.pageStatus === 'done' || bookmark.pageStatus === 'failed') return 'skipped';

  const page = await fetchHtml(ports.fetchPage, bookmark.url, attempt);
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

  const outcome: PageOutcome = page.status === 'done' ? { status: 'done' } : page;
  await ports.bookmarks.recordPageOutcome(bookmark.id, outcome);
  return outcome;
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
        return body === null ? null : { body, tags: note.tags, lastHighlight: note.lastHighlight };
      },
      isoTimestamp(ports.now()),
      null,
    );
  } catch (error) {
    if (!(error instanceof NoteNotFoundError)) throw error;
  }
}

async function fetchHtml(
  fetchPage: EnrichPagePorts['fetchPage'],
  url: string,
  attempt: Attempt,
): Promise<{ status: 'done'; html: string; url: string } | { status: 'failed'; reason: string }> {
  const response = await fetchPage(url);
  const failed = (reason: string, retryable: boolean) => {
    if (retryable && attempt.number < attempt.max) throw new RetryLaterError(reason);
    return { status: 'failed' as const, reason };
  };
  if (!response.ok) return failed(response.reason, response.retryable);
  if (response.status >= 400) return failed(`HTTP ${response.status}`, isTransientStatus(response.status));
  if (!/^(text\/html|application\/xhtml\+xml)\b/i.test(response.contentType ?? ''))
    return failed(`not HTML (${response.contentType ?? 'no content type'})`, false);
  return { status: 'done', html: decodeHtml(response.body, response.contentType), url: response.url };
}
