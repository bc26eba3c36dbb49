import {
  type FeedRepresentation,
  makePublishedFeedHandler,
  type PublishedFeedDeps,
  publishedFeedDeps,
} from '../http/published-feed';
import { deferred, type Environment } from '../platform/env';

/** GET /feeds/{feed_id}/atom — the feed as Atom 1.0, for feed readers. */
const atom: FeedRepresentation = {
  variant: 'atom',
  contentType: 'application/atom+xml; charset=utf-8',
  // xmlbuilder2 and markdown-it load with the first 200: a cold start that answers 304 or 404 never pays for them.
  render: async (feed, notes, urls) =>
    (await import('../core/feed/atom')).renderAtom(feed, notes, {
      selfUrl: urls.currentPage ?? urls.atom,
      nextUrl: urls.nextPage ?? null,
      pageUrl: urls.page,
      entryLink: (note) => `${urls.json}#${note.id}`,
    }),
  paged: { self: (urls) => urls.atom },
};

export const makeHandler = (deps: PublishedFeedDeps) => makePublishedFeedHandler(deps, atom);
export const createHandler = (env: Environment) => makeHandler(publishedFeedDeps(env));
export const handler = deferred(() => createHandler(process.env));
