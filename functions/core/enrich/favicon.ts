import type { Attempt, FaviconRequest, FetchOutcome } from './enrichment';
import { isFresh, isTransientStatus, RetryLaterError } from './enrichment';
import { ICON_MAX_BYTES, iconFileName, iconMediaType, iconUrl, type SiteStore } from './icons';

/** The favicon worker's step: a site's icon, fetched at most once per refresh period and stored by content hash. */

export interface FetchFaviconPorts {
  readonly bookmarks: { setIcon(bookmarkId: string, icon: string): Promise<void> };
  readonly sites: Pick<SiteStore, 'getSite' | 'claimFetch' | 'recordFetch' | 'putIcon'>;
  readonly fetchIcon: (url: string) => Promise<FetchOutcome>;
  readonly publicBaseUrl: string;
  readonly iconRefreshMs: number;
  readonly now: () => Date;
}

/** How long one worker may hold a site's fetch before another may take over. */
const FETCH_CLAIM_SECONDS = 120;

/** Sets the bookmark's icon from the site's favicon, fetching it only when the site has none fresh. */
export async function fetchFavicon(
  ports: FetchFaviconPorts,
  request: FaviconRequest,
  attempt: Attempt,
): Promise<string | null> {
  const now = ports.now();
  const known = await ports.sites.getSite(request.host);
  if (known && isFresh(known.fetchedAt, ports.iconRefreshMs, now)) return assign(ports, request, known.icon);

  const staleBefore = new Date(now.getTime() - ports.iconRefreshMs);
  if (!(await ports.sites.claimFetch(request.host, now, staleBefore, FETCH_CLAIM_SECONDS))) {
    throw new RetryLaterError(`another worker is fetching the favicon of ${request.host}`);
  }
  let transientFailure: string | null = null;
  for (const candidate of request.candidates) {
    const response = await ports.fetchIcon(candidate);
    if (!response.ok) {
      if (response.retryable) transientFailure = response.reason;
      continue;
    }
    if (isTransientStatus(response.status)) transientFailure = `HTTP ${response.status}`;
    const mediaType = iconMediaType(response.contentType);
    if (
      response.status !== 200 ||
      !mediaType ||
      response.truncated ||
      response.body.length === 0 ||
      response.body.length > ICON_MAX_BYTES
    )
      continue;
    const { hash, fileName } = iconFileName(response.body, mediaType);
    await ports.sites.putIcon({ hash, mediaType, bytes: response.body });
    const icon = iconUrl(ports.publicBaseUrl, fileName);
    await ports.sites.recordFetch(request.host, icon, now);
    return assign(ports, request, icon);
  }
  if (transientFailure && attempt.number < attempt.max) throw new RetryLaterError(transientFailure);
  // No usable icon: remembered too, so the site is not asked again before the refresh period ends.
  await ports.sites.recordFetch(request.host, null, now);
  return null;
}

async function assign(
  ports: Pick<FetchFaviconPorts, 'bookmarks'>,
  request: FaviconRequest,
  icon: string | null,
): Promise<string | null> {
  if (icon) await ports.bookmarks.setIcon(request.bookmarkId, icon);
  return icon;
}
