import type { APIGatewayProxyEvent } from 'aws-lambda';
import { header } from './responses';

/**
 * The service's public address for a request: the configured one, else CloudFront's viewer host
 * (trusted only behind CloudFront), else API Gateway's own address with its stage.
 */
export function serviceBaseUrl(
  event: APIGatewayProxyEvent,
  publicBaseUrl: string | null | undefined,
  trustCdnHeaders: boolean,
): string {
  if (publicBaseUrl) return publicBaseUrl.replace(/\/+$/, '');
  const forwardedHost = trustCdnHeaders ? header(event.headers, 'X-Forwarded-Host') : undefined;
  if (forwardedHost) return `https://${forwardedHost}`;
  return `https://${event.requestContext.domainName}/${event.requestContext.stage}`;
}
