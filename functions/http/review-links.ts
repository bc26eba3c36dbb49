import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { ReviewLinks } from '../core/review/use-cases';
import { webPaths } from '../core/web/paths';
import { routeUrl } from '../platform/routes';
import { serviceBaseUrl } from './base-url';

/**
 * The addresses of the review feed (on the API's address, as published feeds are) and of the web
 * app's Review page (on the web app's address), for the per-user API and the signed-in pages alike.
 */
export function reviewLinks(
  event: APIGatewayProxyEvent,
  addresses: { readonly publicBaseUrl: string | null; readonly webBaseUrl: string | null },
): ReviewLinks {
  const baseUrl = serviceBaseUrl(event, addresses.publicBaseUrl, false);
  return {
    feed: (secret) => routeUrl(baseUrl, 'GetReviewFeed', { secret }),
    reviewPage: `${addresses.webBaseUrl ?? baseUrl}${webPaths.review}`,
  };
}
