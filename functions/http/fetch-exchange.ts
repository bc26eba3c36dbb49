import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/**
 * An API Gateway proxy event as a Fetch API Request, and a Fetch Response as the proxy result: for
 * libraries written against web standards (the MCP SDK's Streamable HTTP transport).
 */

/** The event's body as bytes (API Gateway hands bodies over base64-encoded: binaryMediaTypes is every type). */
export function eventBody(event: APIGatewayProxyEvent): Buffer {
  return Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
}

export function toFetchRequest(event: APIGatewayProxyEvent, baseUrl: string): Request {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}${event.path}`);
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {}))
    for (const value of values ?? []) url.searchParams.append(name, value);
  const headers = new Headers();
  const multi = event.multiValueHeaders ?? {};
  for (const [name, values] of Object.entries(multi)) for (const value of values ?? []) headers.append(name, value);
  for (const [name, value] of Object.entries(event.headers ?? {}))
    if (value !== undefined && !(name in multi)) headers.set(name, value);
  const withBody = event.httpMethod !== 'GET' && event.httpMethod !== 'HEAD';
  return new Request(url, { method: event.httpMethod, headers, ...(withBody ? { body: eventBody(event) } : {}) });
}

export async function fromFetchResponse(response: Response): Promise<APIGatewayProxyResult> {
  return {
    statusCode: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  };
}
