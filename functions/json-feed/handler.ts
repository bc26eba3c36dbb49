import { buildJsonFeed } from '../core/feed-json-feed';
import { makePublishedFeedHandler, publishedFeedDeps, type FeedRepresentation, type PublishedFeedDeps } from '../http/published-feed';
import { deferred, type Environment } from '../platform/env';

/** GET /feeds/{feed_id}/feed.json — the feed as JSON Feed 1.1, for feed readers. */
const jsonFeed: FeedRepresentation = {
  variant: 'jsonfeed',
  contentType: 'application/feed+json; charset=utf-8',
  render: (feed, notes, urls) =>
    JSON.stringify(buildJsonFeed(feed, notes, { selfUrl: urls.jsonFeed, nextUrl: urls.nextPage ?? null, pageUrl: urls.page, entryLink: (note) => `${urls.json}#${note.id}` })),
  paged: { self: (urls) => urls.jsonFeed },
};

export const makeHandler = (deps: PublishedFeedDeps) => makePublishedFeedHandler(deps, jsonFeed);
export const createHandler = (env: Environment) => makeHandler(publishedFeedDeps(env));
export const handler = deferred(() => createHandler(process.env));
