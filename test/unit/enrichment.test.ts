import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import {
  type Attempt,
  type EnrichmentRequest,
  type FaviconRequest,
  type FetchOutcome,
  parseEnrichmentRequest,
  parseFaviconRequest,
  RetryLaterError,
  retryDelaySeconds,
} from '../../functions/core/enrich/enrichment';
import { type FetchFaviconPorts, fetchFavicon } from '../../functions/core/enrich/favicon';
import { ICON_MAX_BYTES } from '../../functions/core/enrich/icons';
import {
  IMPORT_RELEASE_PER_SHARD,
  type ImportWaiting,
  MAX_OUTBOX_SWEEPS,
  type PendingEnrichment,
  type SweepOutboxPorts,
  sweepOutbox,
} from '../../functions/core/enrich/outbox';
import { type EnrichPagePorts, enrichPage } from '../../functions/core/enrich/page-enrichment';
import type { Bookmark, Note } from '../../functions/core/model';
import { isoTimestamp } from '../../functions/core/text/text';
import { memoryArticlePorts } from '../support/article-ports';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const DAY_MS = 24 * 60 * 60 * 1000;
const ICON_REFRESH_MS = 7 * DAY_MS;
const FIRST: Attempt = { number: 1, max: 3 };
const LAST: Attempt = { number: 3, max: 3 };

const PAGE_URL = 'https://example.com/blog/post';
const HOST = 'example.com';
const ORIGIN_FAVICON = 'https://example.com/favicon.ico';
const PUBLIC_BASE_URL = 'https://gleaner.test';
const KNOWN_ICON = `${PUBLIC_BASE_URL}/icons/${'a'.repeat(64)}.png`;

type Site = { icon: string | null; fetchedAt: string | null };
type StoredBookmark = Bookmark & { pageStatus?: string | null };

const freshSite = (icon: string | null): Site => ({ icon, fetchedAt: new Date(NOW.getTime() - DAY_MS).toISOString() });
const staleSite = (icon: string | null): Site => ({
  icon,
  fetchedAt: new Date(NOW.getTime() - ICON_REFRESH_MS - DAY_MS).toISOString(),
});

const bookmark: StoredBookmark = {
  id: 'bookmark-1',
  userId: 'user-1',
  noteId: 'note-1',
  title: 'A post',
  url: PAGE_URL,
  normalizedUrl: PAGE_URL,
  icon: null,
  created: '2026-06-01T11:59:00+00:00',
  updated: '2026-06-01T11:59:00+00:00',
  pageStatus: 'pending',
};

const request: EnrichmentRequest = { bookmarkId: bookmark.id, scrapeDescription: true, fetchIcon: true };

type FetchResponse = Extract<FetchOutcome, { ok: true }>;

function response(status: number, contentType: string | null, body: string | Buffer, url = PAGE_URL): FetchResponse {
  return { ok: true, url, status, contentType, body: Buffer.from(body), truncated: false };
}

function htmlPage(head: string, contentType = 'text/html; charset=utf-8'): FetchResponse {
  return response(200, contentType, `<!doctype html><html><head>${head}</head><body><p>Text</p></body></html>`);
}

const fetchFailure = (reason: string, retryable: boolean): FetchOutcome => ({ ok: false, retryable, reason });

const DESCRIBED_HEAD =
  '<meta name="description" content="What the post is about."><link rel="icon" href="/static/icon.png"><link rel="apple-touch-icon" href="touch.png">';
const DESCRIBED_PAGE = htmlPage(DESCRIBED_HEAD);
const PAGE_ICONS = ['https://example.com/static/icon.png', 'https://example.com/blog/touch.png'];

function pagePorts(options: { stored?: StoredBookmark | null; site?: Site | null; page?: FetchOutcome } = {}) {
  const { stored = bookmark, site = null, page = DESCRIBED_PAGE } = options;
  return {
    bookmarks: {
      getBookmark: vi.fn<EnrichPagePorts['bookmarks']['getBookmark']>(async (id) =>
        stored?.id === id ? stored : null,
      ),
      setIcon: vi.fn<EnrichPagePorts['bookmarks']['setIcon']>(async () => {}),
      recordPageOutcome: vi.fn<EnrichPagePorts['bookmarks']['recordPageOutcome']>(async () => {}),
      recordArticle: vi.fn<EnrichPagePorts['bookmarks']['recordArticle']>(async () => true),
    },
    articles: memoryArticlePorts(() => NOW),
    notes: {
      updateSavedNote: vi.fn<EnrichPagePorts['notes']['updateSavedNote']>(async () => ({ kind: 'unchanged' }) as never),
    },
    sites: { getSite: vi.fn<EnrichPagePorts['sites']['getSite']>(async (host) => (host === HOST ? site : null)) },
    favicons: { publish: vi.fn<EnrichPagePorts['favicons']['publish']>(async () => {}) },
    fetchPage: vi.fn<EnrichPagePorts['fetchPage']>(async () => page),
    iconRefreshMs: ICON_REFRESH_MS,
    now: () => NOW,
  } satisfies EnrichPagePorts;
}

/** A note as the save wrote it, with no description yet. */
const SAVED_NOTE: Note = {
  id: 'note-1',
  userId: 'user-1',
  bookmarkId: 'bookmark-1',
  url: PAGE_URL,
  title: 'A post',
  body: `Source: [A post](${PAGE_URL})\n\n> a quote`,
  tags: [],
  lastHighlight: 'a quote',
  created: bookmark.created,
  updated: bookmark.updated,
  version: 1,
};

/** The descriptions the page step put into the note of bookmark-1 (through the store's note update, dated by its clock). */
function descriptionsAdded(ports: ReturnType<typeof pagePorts>): string[] {
  return ports.notes.updateSavedNote.mock.calls.map(([ref, change, updated]) => {
    expect(ref).toEqual({ bookmarkId: 'bookmark-1', noteId: 'note-1' });
    expect(updated).toBe(isoTimestamp(NOW));
    const body = change(SAVED_NOTE)!.body;
    expect(change({ ...SAVED_NOTE, body })).toBeNull(); // a second delivery changes nothing
    return body.slice(0, body.indexOf('\n\nSource: '));
  });
}

describe('enrichPage: which bookmarks are worked on', () => {
  it('skips a bookmark that no longer exists, without fetching', async () => {
    const ports = pagePorts({ stored: null });
    await expect(enrichPage(ports, request, FIRST)).resolves.toBe('skipped');
    expect(ports.fetchPage).not.toHaveBeenCalled();
    expect(ports.bookmarks.recordPageOutcome).not.toHaveBeenCalled();
  });

  it.each(['done', 'failed'])(
    'skips a bookmark whose page status is already %s, without fetching',
    async (pageStatus) => {
      const ports = pagePorts({ stored: { ...bookmark, pageStatus } });
      await expect(enrichPage(ports, request, FIRST)).resolves.toBe('skipped');
      expect(ports.fetchPage).not.toHaveBeenCalled();
      expect(ports.notes.updateSavedNote).not.toHaveBeenCalled();
      expect(ports.favicons.publish).not.toHaveBeenCalled();
      expect(ports.bookmarks.recordPageOutcome).not.toHaveBeenCalled();
    },
  );
});

describe('enrichPage: description', () => {
  it('fetches the bookmarked page, adds its description to the note and records done', async () => {
    const ports = pagePorts();
    await expect(enrichPage(ports, request, FIRST)).resolves.toEqual({ status: 'done' });
    expect(ports.fetchPage).toHaveBeenCalledWith(PAGE_URL);
    expect(descriptionsAdded(ports)).toEqual(['What the post is about.']);
    expect(ports.bookmarks.recordPageOutcome).toHaveBeenCalledExactlyOnceWith('bookmark-1', { status: 'done' });
  });

  it('leaves the note alone when the save supplied its own description', async () => {
    const ports = pagePorts();
    await expect(enrichPage(ports, { ...request, scrapeDescription: false }, FIRST)).resolves.toEqual({
      status: 'done',
    });
    expect(ports.notes.updateSavedNote).not.toHaveBeenCalled();
    expect(ports.bookmarks.recordPageOutcome).toHaveBeenCalledWith('bookmark-1', { status: 'done' });
  });

  it('adds nothing when the page has no description', async () => {
    const ports = pagePorts({ page: htmlPage('<title>No description</title>') });
    await expect(enrichPage(ports, request, FIRST)).resolves.toEqual({ status: 'done' });
    expect(ports.notes.updateSavedNote).not.toHaveBeenCalled();
  });
});

describe('enrichPage: failed fetches', () => {
  it('records a 404 as failed on the first attempt', async () => {
    const ports = pagePorts({ page: response(404, 'text/html', 'Not found') });
    await expect(enrichPage(ports, request, FIRST)).resolves.toEqual({ status: 'failed', reason: 'HTTP 404' });
    expect(ports.notes.updateSavedNote).not.toHaveBeenCalled();
    expect(ports.bookmarks.recordPageOutcome).toHaveBeenCalledExactlyOnceWith('bookmark-1', {
      status: 'failed',
      reason: 'HTTP 404',
    });
  });

  describe.each([
    ['HTTP 503', response(503, 'text/html', 'Busy')],
    ['HTTP 429', response(429, 'text/html', 'Slow down')],
    ['connection timed out', fetchFailure('connection timed out', true)],
  ])('a transient failure (%s)', (reason, page) => {
    it.each([FIRST, { number: 2, max: 3 }])(
      'asks to be retried later on attempt %j, recording nothing',
      async (attempt) => {
        const ports = pagePorts({ page });
        const error = await enrichPage(ports, request, attempt).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(RetryLaterError);
        expect((error as RetryLaterError).message).toBe(reason);
        expect(ports.bookmarks.recordPageOutcome).not.toHaveBeenCalled();
        expect(ports.favicons.publish).not.toHaveBeenCalled();
      },
    );

    it('is recorded as the final failure on the last attempt', async () => {
      const ports = pagePorts({ page });
      await expect(enrichPage(ports, request, LAST)).resolves.toEqual({ status: 'failed', reason });
      expect(ports.bookmarks.recordPageOutcome).toHaveBeenCalledExactlyOnceWith('bookmark-1', {
        status: 'failed',
        reason,
      });
    });
  });

  it('records a fetch failure that cannot succeed later (connection refused) at once', async () => {
    const ports = pagePorts({ page: fetchFailure('connection refused', false) });
    await expect(enrichPage(ports, request, FIRST)).resolves.toEqual({
      status: 'failed',
      reason: 'connection refused',
    });
    expect(ports.bookmarks.recordPageOutcome).toHaveBeenCalledWith('bookmark-1', {
      status: 'failed',
      reason: 'connection refused',
    });
  });

  it.each([
    ['application/pdf', 'not HTML (application/pdf)'],
    [null, 'not HTML (no content type)'],
  ])('records content type %j as a final failure at once', async (contentType, reason) => {
    const ports = pagePorts({ page: response(200, contentType, '%PDF-1.7 <meta name="description" content="no">') });
    await expect(enrichPage(ports, request, FIRST)).resolves.toEqual({ status: 'failed', reason });
    expect(ports.notes.updateSavedNote).not.toHaveBeenCalled();
  });

  it('reads XHTML pages', async () => {
    const ports = pagePorts({ page: htmlPage(DESCRIBED_HEAD, 'application/xhtml+xml') });
    await expect(enrichPage(ports, request, FIRST)).resolves.toEqual({ status: 'done' });
    expect(descriptionsAdded(ports)).toEqual(['What the post is about.']);
  });
});

describe('enrichPage: favicon', () => {
  it('gives the bookmark the icon of a site fetched recently, without asking for a fetch', async () => {
    const ports = pagePorts({ site: freshSite(KNOWN_ICON) });
    await enrichPage(ports, request, FIRST);
    expect(ports.sites.getSite).toHaveBeenCalledWith(HOST);
    expect(ports.bookmarks.setIcon).toHaveBeenCalledExactlyOnceWith('bookmark-1', KNOWN_ICON);
    expect(ports.favicons.publish).not.toHaveBeenCalled();
  });

  it('does nothing for a site recently found to have no icon', async () => {
    const ports = pagePorts({ site: freshSite(null) });
    await enrichPage(ports, request, FIRST);
    expect(ports.bookmarks.setIcon).not.toHaveBeenCalled();
    expect(ports.favicons.publish).not.toHaveBeenCalled();
  });

  it.each([
    ['an unknown', null],
    ['a stale', staleSite(KNOWN_ICON)],
    ['a claimed but never fetched', { icon: null, fetchedAt: null }],
  ])('asks for the icon of %s site with the page’s icon links, origin /favicon.ico last', async (_, site) => {
    const ports = pagePorts({ site });
    await enrichPage(ports, request, FIRST);
    expect(ports.bookmarks.setIcon).not.toHaveBeenCalled();
    expect(ports.favicons.publish).toHaveBeenCalledExactlyOnceWith({
      bookmarkId: 'bookmark-1',
      host: HOST,
      candidates: [...PAGE_ICONS, ORIGIN_FAVICON],
    } satisfies FaviconRequest);
  });

  it.each([
    ['gave no icon links', htmlPage('<title>Plain</title>')],
    ['could not be fetched', fetchFailure('connection refused', false)],
    ['was not HTML', response(200, 'image/png', 'png bytes')],
  ])('asks for the origin /favicon.ico when the page %s', async (_, page) => {
    const ports = pagePorts({ page });
    await enrichPage(ports, request, FIRST);
    expect(ports.favicons.publish).toHaveBeenCalledExactlyOnceWith({
      bookmarkId: 'bookmark-1',
      host: HOST,
      candidates: [ORIGIN_FAVICON],
    });
  });

  it('does nothing when the bookmark already has an icon', async () => {
    const ports = pagePorts({ stored: { ...bookmark, icon: KNOWN_ICON } });
    await enrichPage(ports, request, FIRST);
    expect(ports.sites.getSite).not.toHaveBeenCalled();
    expect(ports.bookmarks.setIcon).not.toHaveBeenCalled();
    expect(ports.favicons.publish).not.toHaveBeenCalled();
  });

  it('does nothing when the save did not ask for the icon', async () => {
    const ports = pagePorts();
    await enrichPage(ports, { ...request, fetchIcon: false }, FIRST);
    expect(ports.sites.getSite).not.toHaveBeenCalled();
    expect(ports.bookmarks.setIcon).not.toHaveBeenCalled();
    expect(ports.favicons.publish).not.toHaveBeenCalled();
  });
});

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000100000001008060000001ff3ff61', 'hex');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const iconResponse = (url: string, contentType: string | null, body: Buffer, status = 200) =>
  response(status, contentType, body, url);

/** An in-memory site store and icon server: `served` maps icon URLs to what fetching them gives (404 otherwise). */
function faviconPorts(
  options: { sites?: Record<string, Site>; served?: Record<string, FetchOutcome>; claimGranted?: boolean } = {},
) {
  const sites = new Map(Object.entries(options.sites ?? {}));
  const icons = new Map<string, { mediaType: string; bytes: Uint8Array }>();
  const ports = {
    bookmarks: { setIcon: vi.fn<FetchFaviconPorts['bookmarks']['setIcon']>(async () => {}) },
    sites: {
      getSite: vi.fn<FetchFaviconPorts['sites']['getSite']>(async (host) => sites.get(host) ?? null),
      claimFetch: vi.fn<FetchFaviconPorts['sites']['claimFetch']>(async () => options.claimGranted ?? true),
      recordFetch: vi.fn<FetchFaviconPorts['sites']['recordFetch']>(async (host, icon, fetchedAt) => {
        sites.set(host, { icon, fetchedAt: fetchedAt.toISOString() });
      }),
      putIcon: vi.fn<FetchFaviconPorts['sites']['putIcon']>(async ({ hash, mediaType, bytes }) => {
        icons.set(hash, { mediaType, bytes });
      }),
    },
    fetchIcon: vi.fn<FetchFaviconPorts['fetchIcon']>(
      async (url) => options.served?.[url] ?? iconResponse(url, 'text/html', Buffer.from('Not found'), 404),
    ),
    publicBaseUrl: PUBLIC_BASE_URL,
    iconRefreshMs: ICON_REFRESH_MS,
    now: () => NOW,
  } satisfies FetchFaviconPorts;
  return { ports, sites, icons };
}

const ICON_A = 'https://example.com/static/icon.png';
const ICON_B = 'https://example.com/favicon.ico';
const faviconRequest: FaviconRequest = { bookmarkId: 'bookmark-1', host: HOST, candidates: [ICON_A, ICON_B] };
const PNG_URL = `${PUBLIC_BASE_URL}/icons/${sha256(PNG)}.png`;

describe('fetchFavicon', () => {
  it('assigns the icon of a site fetched recently without claiming or fetching', async () => {
    const { ports } = faviconPorts({ sites: { [HOST]: freshSite(KNOWN_ICON) } });
    await expect(fetchFavicon(ports, faviconRequest, FIRST)).resolves.toBe(KNOWN_ICON);
    expect(ports.bookmarks.setIcon).toHaveBeenCalledExactlyOnceWith('bookmark-1', KNOWN_ICON);
    expect(ports.sites.claimFetch).not.toHaveBeenCalled();
    expect(ports.fetchIcon).not.toHaveBeenCalled();
  });

  it('asks to be retried later, without fetching, while another worker holds the site’s fetch', async () => {
    const { ports } = faviconPorts({ claimGranted: false });
    await expect(fetchFavicon(ports, faviconRequest, FIRST)).rejects.toBeInstanceOf(RetryLaterError);
    expect(ports.fetchIcon).not.toHaveBeenCalled();
    expect(ports.sites.recordFetch).not.toHaveBeenCalled();
  });

  it('claims a stale site’s fetch as of now, treating fetches older than the refresh period as stale', async () => {
    const { ports } = faviconPorts({
      sites: { [HOST]: staleSite(KNOWN_ICON) },
      served: { [ICON_A]: iconResponse(ICON_A, 'image/png', PNG) },
    });
    await fetchFavicon(ports, faviconRequest, FIRST);
    expect(ports.sites.claimFetch).toHaveBeenCalledExactlyOnceWith(
      HOST,
      NOW,
      new Date(NOW.getTime() - ICON_REFRESH_MS),
      expect.any(Number),
    );
    expect(ports.fetchIcon).toHaveBeenCalledWith(ICON_A);
  });

  it('stores the first usable candidate by content hash, records the site and sets the bookmark’s icon', async () => {
    const { ports, sites, icons } = faviconPorts({ served: { [ICON_B]: iconResponse(ICON_B, 'image/png', PNG) } });
    await expect(fetchFavicon(ports, faviconRequest, FIRST)).resolves.toBe(PNG_URL);
    expect(ports.fetchIcon.mock.calls).toEqual([[ICON_A], [ICON_B]]);
    expect(ports.sites.putIcon).toHaveBeenCalledExactlyOnceWith({
      hash: sha256(PNG),
      mediaType: 'image/png',
      bytes: PNG,
    });
    expect(icons.get(sha256(PNG))?.bytes).toEqual(PNG);
    expect(sites.get(HOST)).toEqual({ icon: PNG_URL, fetchedAt: NOW.toISOString() });
    expect(ports.bookmarks.setIcon).toHaveBeenCalledExactlyOnceWith('bookmark-1', PNG_URL);
  });

  it('stops at the first usable candidate', async () => {
    const { ports } = faviconPorts({
      served: {
        [ICON_A]: iconResponse(ICON_A, 'image/png', PNG),
        [ICON_B]: iconResponse(ICON_B, 'image/x-icon', Buffer.from('ico')),
      },
    });
    await expect(fetchFavicon(ports, faviconRequest, FIRST)).resolves.toBe(PNG_URL);
    expect(ports.fetchIcon).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['an HTML page', iconResponse(ICON_A, 'text/html', Buffer.from('<html>not an icon</html>'))],
    ['no content type', iconResponse(ICON_A, null, PNG)],
    ['an empty body', iconResponse(ICON_A, 'image/png', Buffer.alloc(0))],
    ['a truncated (too large) body', { ...iconResponse(ICON_A, 'image/png', PNG), truncated: true }],
    ['a body over the size limit', iconResponse(ICON_A, 'image/png', Buffer.alloc(ICON_MAX_BYTES + 1, 1))],
    ['an image with status 404', iconResponse(ICON_A, 'image/png', PNG, 404)],
  ])('skips a candidate that gives %s', async (_, unusable) => {
    const { ports } = faviconPorts({
      served: { [ICON_A]: unusable, [ICON_B]: iconResponse(ICON_B, 'image/png', PNG) },
    });
    await expect(fetchFavicon(ports, faviconRequest, FIRST)).resolves.toBe(PNG_URL);
    expect(ports.sites.putIcon).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ hash: sha256(PNG) }));
  });

  it('names icons after their media type', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');
    const { ports } = faviconPorts({ served: { [ICON_A]: iconResponse(ICON_A, 'image/svg+xml; charset=utf-8', svg) } });
    await expect(fetchFavicon(ports, faviconRequest, FIRST)).resolves.toBe(
      `${PUBLIC_BASE_URL}/icons/${sha256(svg)}.svg`,
    );
    expect(ports.sites.putIcon).toHaveBeenCalledWith({ hash: sha256(svg), mediaType: 'image/svg+xml', bytes: svg });
  });

  it('remembers a site without a usable icon, so it is not fetched again within the refresh period', async () => {
    const { ports, sites } = faviconPorts({ served: { [ICON_B]: fetchFailure('connection refused', false) } });
    await expect(fetchFavicon(ports, faviconRequest, FIRST)).resolves.toBeNull();
    expect(sites.get(HOST)).toEqual({ icon: null, fetchedAt: NOW.toISOString() });
    expect(ports.bookmarks.setIcon).not.toHaveBeenCalled();

    ports.fetchIcon.mockClear();
    await expect(fetchFavicon(ports, { ...faviconRequest, bookmarkId: 'bookmark-2' }, FIRST)).resolves.toBeNull();
    expect(ports.fetchIcon).not.toHaveBeenCalled();
  });

  it('asks to be retried later after a transient failure, recording nothing before the last attempt', async () => {
    const { ports } = faviconPorts({ served: { [ICON_A]: fetchFailure('connection timed out', true) } });
    await expect(fetchFavicon(ports, faviconRequest, { number: 2, max: 3 })).rejects.toThrow(
      new RetryLaterError('connection timed out'),
    );
    expect(ports.sites.recordFetch).not.toHaveBeenCalled();
  });

  it('remembers the site without an icon when a transient failure persists to the last attempt', async () => {
    const { ports, sites } = faviconPorts({ served: { [ICON_A]: fetchFailure('connection timed out', true) } });
    await expect(fetchFavicon(ports, faviconRequest, LAST)).resolves.toBeNull();
    expect(sites.get(HOST)).toEqual({ icon: null, fetchedAt: NOW.toISOString() });
  });

  it('uses a later candidate when an earlier one fails transiently', async () => {
    const { ports } = faviconPorts({
      served: {
        [ICON_A]: fetchFailure('connection timed out', true),
        [ICON_B]: iconResponse(ICON_B, 'image/png', PNG),
      },
    });
    await expect(fetchFavicon(ports, faviconRequest, FIRST)).resolves.toBe(PNG_URL);
  });

  it.each([503, 429])(
    'treats HTTP %i from the icon server as transient, not as a site without an icon',
    async (status) => {
      const { ports } = faviconPorts({
        served: { [ICON_A]: iconResponse(ICON_A, 'text/html', Buffer.from('Busy'), status) },
      });
      await expect(fetchFavicon(ports, faviconRequest, FIRST)).rejects.toBeInstanceOf(RetryLaterError);
      expect(ports.sites.recordFetch).not.toHaveBeenCalled();
    },
  );

  it('gives the same bytes the same URL, whichever site served them', async () => {
    const other = 'https://other.example/icon.png';
    const { ports, icons } = faviconPorts({
      served: {
        [ICON_A]: iconResponse(ICON_A, 'image/png', PNG),
        [other]: iconResponse(other, 'image/png', Buffer.from(PNG)),
      },
    });
    const first = await fetchFavicon(ports, faviconRequest, FIRST);
    const second = await fetchFavicon(
      ports,
      { bookmarkId: 'bookmark-2', host: 'other.example', candidates: [other] },
      FIRST,
    );
    expect(first).toBe(PNG_URL);
    expect(second).toBe(PNG_URL);
    expect([...icons.keys()]).toEqual([sha256(PNG)]);
  });
});

describe('sweepOutbox', () => {
  const pendingRequest = (bookmarkId: string): EnrichmentRequest => ({ ...request, bookmarkId });
  const SAVED = '2026-06-01T11:50:00.000+00:00';

  function sweepPorts(pending: PendingEnrichment[], imported: ImportWaiting[] = [], gone: string[] = []) {
    return {
      bookmarks: {
        importWaiting: vi.fn<SweepOutboxPorts['bookmarks']['importWaiting']>(async () => imported),
        releaseImported: vi.fn<SweepOutboxPorts['bookmarks']['releaseImported']>(async (id) => !gone.includes(id)),
        pendingEnrichments: vi.fn<SweepOutboxPorts['bookmarks']['pendingEnrichments']>(async () => pending),
        deferEnrichment: vi.fn<SweepOutboxPorts['bookmarks']['deferEnrichment']>(async () => {}),
        recordPageOutcome: vi.fn<SweepOutboxPorts['bookmarks']['recordPageOutcome']>(async () => {}),
      },
      enrichment: { publish: vi.fn<SweepOutboxPorts['enrichment']['publish']>(async () => {}) },
      imports: { enrichmentReleased: vi.fn<SweepOutboxPorts['imports']['enrichmentReleased']>(async () => {}) },
      graceSeconds: 120,
      now: () => NOW,
    } satisfies SweepOutboxPorts;
  }

  it('hands a bounded batch of imported pages to the page worker, moving them into the outbox, and counts them off their imports', async () => {
    const ports = sweepPorts(
      [],
      [
        { request: pendingRequest('i1'), userId: 'u1', importId: 'imp1' },
        { request: pendingRequest('i2'), userId: 'u1', importId: 'imp1' },
        { request: pendingRequest('i3'), userId: 'u2', importId: 'imp2' },
        { request: pendingRequest('i4'), userId: 'u2', importId: 'imp2' },
      ],
      ['i4'],
    );
    await expect(sweepOutbox(ports)).resolves.toMatchObject({ released: 3 });
    expect(ports.bookmarks.importWaiting).toHaveBeenCalledExactlyOnceWith(IMPORT_RELEASE_PER_SHARD);
    expect(ports.bookmarks.releaseImported.mock.calls.map(([id, since]) => [id, since])).toEqual(
      ['i1', 'i2', 'i3', 'i4'].map((id) => [id, '2026-06-01T12:00:00.000+00:00']),
    );
    expect(ports.imports.enrichmentReleased.mock.calls).toEqual([
      ['u1', 'imp1', 2],
      ['u2', 'imp2', 1],
    ]);
  });

  it('looks only at requests older than the grace period', async () => {
    const ports = sweepPorts([]);
    await expect(sweepOutbox(ports)).resolves.toEqual({
      republished: 0,
      abandoned: 0,
      released: 0,
      oldestPendingSeconds: 0,
    });
    expect(ports.bookmarks.pendingEnrichments).toHaveBeenCalledExactlyOnceWith(
      '2026-06-01T11:58:00.000+00:00',
      expect.any(Number),
    );
  });

  it('publishes pending requests again and defers them to now', async () => {
    const ports = sweepPorts([
      { request: pendingRequest('b1'), sweeps: 0, pendingSince: SAVED },
      { request: pendingRequest('b2'), sweeps: MAX_OUTBOX_SWEEPS - 1, pendingSince: '2026-06-01T11:00:00.000+00:00' },
    ]);
    // The oldest waits since 11:00, an hour before NOW, whatever its place in the sweep.
    await expect(sweepOutbox(ports)).resolves.toEqual({
      republished: 2,
      abandoned: 0,
      released: 0,
      oldestPendingSeconds: 3600,
    });
    expect(ports.enrichment.publish.mock.calls).toEqual([[pendingRequest('b1')], [pendingRequest('b2')]]);
    expect(ports.bookmarks.deferEnrichment.mock.calls).toEqual([
      ['b1', '2026-06-01T12:00:00.000+00:00'],
      ['b2', '2026-06-01T12:00:00.000+00:00'],
    ]);
    expect(ports.bookmarks.recordPageOutcome).not.toHaveBeenCalled();
  });

  it(`abandons requests swept ${MAX_OUTBOX_SWEEPS} times already, recording them as failed`, async () => {
    const ports = sweepPorts([
      { request: pendingRequest('b1'), sweeps: MAX_OUTBOX_SWEEPS, pendingSince: SAVED },
      { request: pendingRequest('b2'), sweeps: 3, pendingSince: SAVED },
      { request: pendingRequest('b3'), sweeps: MAX_OUTBOX_SWEEPS + 5, pendingSince: SAVED },
    ]);
    await expect(sweepOutbox(ports)).resolves.toEqual({
      republished: 1,
      abandoned: 2,
      released: 0,
      oldestPendingSeconds: 600,
    });
    expect(ports.enrichment.publish).toHaveBeenCalledExactlyOnceWith(pendingRequest('b2'));
    expect(ports.bookmarks.deferEnrichment).toHaveBeenCalledExactlyOnceWith('b2', expect.any(String));
    expect(ports.bookmarks.recordPageOutcome.mock.calls).toEqual([
      ['b1', { status: 'failed', reason: expect.any(String) }],
      ['b3', { status: 'failed', reason: expect.any(String) }],
    ]);
  });
});

describe('retryDelaySeconds', () => {
  it('doubles with every attempt, starting at the base', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelaySeconds(attempt, 30))).toEqual([30, 60, 120, 240, 480]);
  });

  it('never exceeds 12 hours (the SQS visibility maximum)', () => {
    expect(retryDelaySeconds(12, 30)).toBe(43_200);
    expect(retryDelaySeconds(40, 30)).toBe(43_200);
    expect(retryDelaySeconds(1, 100_000)).toBe(43_200);
  });
});

describe('parsing queue messages', () => {
  it('reads an enrichment request', () => {
    expect(parseEnrichmentRequest(JSON.stringify(request))).toEqual(request);
  });

  it('reads a favicon request', () => {
    expect(parseFaviconRequest(JSON.stringify(faviconRequest))).toEqual(faviconRequest);
  });

  it.each([
    ['malformed JSON', '{"bookmarkId":'],
    ['JSON null', 'null'],
    ['a missing field', JSON.stringify({ ...request, scrapeDescription: undefined })],
    ['a field of the wrong type', JSON.stringify({ ...request, fetchIcon: 'yes' })],
  ])('rejects an enrichment request with %s', (_, body) => {
    expect(() => parseEnrichmentRequest(body)).toThrow();
  });

  it.each([
    ['malformed JSON', 'not json'],
    ['a missing host', JSON.stringify({ bookmarkId: 'b1', candidates: [] })],
    ['missing candidates', JSON.stringify({ bookmarkId: 'b1', host: HOST })],
    ['candidates that are not strings', JSON.stringify({ ...faviconRequest, candidates: [1] })],
  ])('rejects a favicon request with %s', (_, body) => {
    expect(() => parseFaviconRequest(body)).toThrow();
  });
});

describe('the enrichment message', () => {
  it('carries intent only, and a message queued with the old copies of url, note and user still parses', () => {
    const old = JSON.stringify({
      bookmarkId: 'b1',
      noteId: 'n1',
      userId: 'u1',
      url: 'https://example.com/',
      scrapeDescription: true,
      fetchIcon: false,
    });
    expect(parseEnrichmentRequest(old)).toEqual({ bookmarkId: 'b1', scrapeDescription: true, fetchIcon: false });
  });
});
