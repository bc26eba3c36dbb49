import { buildPublishedFeed } from '../core/feed/feed';
import {
  type FeedRepresentation,
  makePublishedFeedHandler,
  type PublishedFeedDeps,
  publishedFeedDeps,
} from '../http/published-feed';
import { deferred, type Environment } from '../platform/env';

/** GET /api/v2/publisher/feeds/{feed_id}/public — the PublishedFeed as JSON, for site embeds. */
const json: FeedRepresentation = {
  variant: 'json',
  contentType: 'application/json',
  render: (feed, notes, urls) => JSON.stringify(buildPublishedFeed(feed, notes, { rssUrl: urls.rss })),
};

export const makeHandler = (deps: PublishedFeedDeps) => makePublishedFeedHandler(deps, json);
export const createHandler = (env: Environment) => makeHandler(publishedFeedDeps(env));
export const handler = deferred(() => createHandler(process.env));
