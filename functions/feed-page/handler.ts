import { FEED_PAGE_HEADERS, renderFeedNotFoundPage, renderFeedPage } from '../core/feed/page';
import {
  type FeedRepresentation,
  makePublishedFeedHandler,
  type PublishedFeedDeps,
  publishedFeedDeps,
} from '../http/published-feed';
import { deferred, type Environment } from '../platform/env';

/** GET /feeds/{feed_id} — the feed's public page, for people; unpublished feeds all get one 404 page. */
const page: FeedRepresentation = {
  variant: 'html',
  contentType: 'text/html; charset=utf-8',
  headers: FEED_PAGE_HEADERS,
  render: (feed, notes, urls) => renderFeedPage(feed, notes, urls),
  notFoundPage: renderFeedNotFoundPage(),
};

export const makeHandler = (deps: PublishedFeedDeps) => makePublishedFeedHandler(deps, page);
export const createHandler = (env: Environment) => makeHandler(publishedFeedDeps(env));
export const handler = deferred(() => createHandler(process.env));
