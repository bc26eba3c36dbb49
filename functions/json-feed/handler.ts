import {
  type FeedRepresentation,
  makePublishedFeedHandler,
  type PublishedFeedDeps,
  publishedFeedDeps,
} from '../http/published-feed';
import { deferred, type Environment } from '../platform/env';

/** GET /feeds/{feed_id}/feed.json — the feed as JSON Feed 1.1, for feed readers. */
const jsonFeed: FeedRepresentation = {
  variant: 'jsonfeed',
  contentType: 'application/feed+json; charset=utf-8',
  // markdown-it (the entries' HTML) loads with the first 200: a cold start that answers 304 or 404 never pays for it.
  render: async (feed, notes, urls) =>
    JSON.stringify(
      (await import('../core/feed/json-feed')).buildJsonFeed(feed, notes, {
        selfUrl: urls.jsonFeed,
        nextUrl: urls.nextPage ?? null,
        pageUrl: urls.page,
        entryLink: (note) => `${urls.json}#${note.id}`,
      }),
    ),
  paged: { self: (urls) => urls.jsonFeed },
};

export const makeHandler = (deps: PublishedFeedDeps) => makePublishedFeedHandler(deps, jsonFeed);
export const createHandler = (env: Environment) => makeHandler(publishedFeedDeps(env));
export const handler = deferred(() => createHandler(process.env));
