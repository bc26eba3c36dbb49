import { createArticleStore } from '../adapters/article-store';
import { DynamoBookmarkStore } from '../adapters/dynamo/bookmark-store';
import { DynamoSiteStore } from '../adapters/dynamo/site-store';
import { SqsJsonPublisher } from '../adapters/sqs/sqs';
import { articleImageUrl, MAX_IMAGE_BYTES } from '../core/article/article';
import { type FaviconRequest, parseEnrichmentRequest } from '../core/enrich/enrichment';
import { type EnrichPagePorts, enrichPage } from '../core/enrich/page-enrichment';
import { deferred, type Environment } from '../platform/env';
import { setting, settings } from '../platform/settings';
import { enrichmentWorker } from '../queue-consumer/enrichment-worker';

/**
 * Enrichment queue → the page's article into the article store, its description into the note, its
 * favicon candidates to the favicon queue.
 */
export function createHandler(env: Environment) {
  return enrichmentWorker(env, parseEnrichmentRequest, (context) => {
    const bookmarks = new DynamoBookmarkStore(context.doc, context.tableName);
    const pageMaxBytes = setting(env, settings.pageMaxBytes);
    const publicBaseUrl = setting(env, settings.publicBaseUrl) ?? '';
    const ports: EnrichPagePorts = {
      bookmarks,
      notes: bookmarks,
      sites: new DynamoSiteStore(context.doc, context.tableName),
      favicons: new SqsJsonPublisher<FaviconRequest>(context.sqs, setting(env, settings.faviconQueueUrl)),
      fetchPage: (url) =>
        context.fetch(url, { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1', maxBytes: pageMaxBytes }),
      articles: {
        store: createArticleStore(setting(env, settings.articleStore)),
        fetchImage: (url) => context.fetch(url, { accept: 'image/*', maxBytes: MAX_IMAGE_BYTES }),
        imageUrl: (articleId, fileName) => articleImageUrl(publicBaseUrl, articleId, fileName),
        now: () => new Date(),
      },
      iconRefreshMs: context.iconRefreshMs,
      now: () => new Date(),
    };
    return (request, attempt) => enrichPage(ports, request, attempt);
  });
}

export const handler = deferred(() => createHandler(process.env));
