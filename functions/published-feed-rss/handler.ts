import {
  type FeedRepresentation,
  makePublishedFeedHandler,
  type PublishedFeedDeps,
  publishedFeedDeps,
} from '../http/published-feed';
import { deferred, type Environment } from '../platform/env';

/** GET /api/v2/publisher/feeds/{feed_id}/rss — the same feed as RSS 2.0, for feed readers. */
const rss: FeedRepresentation = {
  variant: 'rss',
  contentType: 'application/rss+xml; charset=utf-8',
  // xmlbuilder2 and markdown-it load with the first 200: a cold start that answers 304 or 404 never pays for them.
  render: async (feed, notes, urls) =>
    // The channel link names the page for people.
    (await import('../core/feed/rss')).renderRss(feed, notes, {
      selfUrl: urls.rss,
      siteUrl: urls.page,
      entryLink: (note) => `${urls.json}#${note.id}`,
    }),
};

export const makeHandler = (deps: PublishedFeedDeps) => makePublishedFeedHandler(deps, rss);
export const createHandler = (env: Environment) => makeHandler(publishedFeedDeps(env));
export const handler = deferred(() => createHandler(process.env));
