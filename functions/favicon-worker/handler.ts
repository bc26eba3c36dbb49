import { DynamoBookmarkStore } from '../adapters/dynamo/bookmark-store';
import { DynamoSiteStore } from '../adapters/dynamo/site-store';
import { parseFaviconRequest } from '../core/enrich/enrichment';
import { type FetchFaviconPorts, fetchFavicon } from '../core/enrich/favicon';
import { ICON_MAX_BYTES } from '../core/enrich/icons';
import { deferred, type Environment } from '../platform/env';
import { setting, settings } from '../platform/settings';
import { enrichmentWorker } from '../queue-consumer/enrichment-worker';

/** Favicon queue → the site's icon stored once by content hash and set on the bookmark. */
export function createHandler(env: Environment) {
  return enrichmentWorker(env, parseFaviconRequest, (context) => {
    const ports: FetchFaviconPorts = {
      bookmarks: new DynamoBookmarkStore(context.doc, context.tableName),
      sites: new DynamoSiteStore(context.doc, context.tableName),
      // One byte over the cap tells a too-large icon from one of exactly the maximum size.
      fetchIcon: (url) => context.fetch(url, { accept: 'image/*', maxBytes: ICON_MAX_BYTES + 1 }),
      publicBaseUrl: setting(env, settings.publicBaseUrl),
      iconRefreshMs: context.iconRefreshMs,
      now: () => new Date(),
    };
    return (request, attempt) => fetchFavicon(ports, request, attempt);
  });
}

export const handler = deferred(() => createHandler(process.env));
