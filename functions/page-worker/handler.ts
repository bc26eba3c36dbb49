import { DynamoBookmarkStore } from '../adapters/dynamo/bookmark-store';
import { DynamoSiteStore } from '../adapters/dynamo/site-store';
import { SqsJsonPublisher } from '../adapters/sqs/sqs';
import { type FaviconRequest, parseEnrichmentRequest } from '../core/enrich/enrichment';
import { type EnrichPagePorts, enrichPage } from '../core/enrich/page-enrichment';
import { deferred, type Environment } from '../platform/env';
import { setting, settings } from '../platform/settings';
import { enrichmentWorker } from '../queue-consumer/enrichment-worker';

/** Enrichment queue → the page's description into the note, its favicon candidates to the favicon queue. */
export function createHandler(env: Environment) {
  return enrichmentWorker(env, parseEnrichmentRequest, (context) => {
    const bookmarks = new DynamoBookmarkStore(context.doc, context.tableName);
    const ports: EnrichPagePorts = {
      bookmarks,
      notes: bookmarks,
      sites: new DynamoSiteStore(context.doc, context.tableName),
      favicons: new SqsJsonPublisher<FaviconRequest>(context.sqs, setting(env, settings.faviconQueueUrl)),
      fetchPage: (url) =>
        context.fetch(url, { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1', stopAtHeadEnd: true }),
      iconRefreshMs: context.iconRefreshMs,
      now: () => new Date(),
    };
    return (request, attempt) => enrichPage(ports, request, attempt);
  });
}

export const handler = deferred(() => createHandler(process.env));
