import { renderAtom } from '../core/feed-atom';
import { makePublishedFeedHandler, publishedFeedDeps, type FeedRepresentation, type PublishedFeedDeps } from '../http/published-feed';
import { deferred, type Environment } from '../platform/env';

/** GET /feeds/{feed_id}/atom — the feed as Atom 1.0, for feed readers. */
const atom: FeedRepresentation = {
  variant: 'atom',
  contentType: 'application/atom+xml; charset=utf-8',
  render: (feed, notes, urls) =>
    renderAtom(feed, notes, { selfUrl: urls.currentPage ?? urls.atom, nextUrl: urls.nextPage ?? null, pageUrl: urls.page, entryLink: (note) => `${urls.json}#${note.id}` }),
  paged: { self: (urls) => urls.atom },
};

export const makeHandler = (deps: PublishedFeedDeps) => makePublishedFeedHandler(deps, atom);
export const createHandler = (env: Environment) => makeHandler(publishedFeedDeps(env));
export const handler = deferred(() => createHandler(process.env));
