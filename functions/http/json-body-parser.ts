import type { APIGatewayProxyEvent } from 'aws-lambda';
import { type BodyParse, parseJsonBody } from '../core/contract/json-body';
import type { RouteMiddleware } from './middleware';
import { header } from './responses';

/** An event whose JSON body has been parsed and read: the value, or why it was refused (422, 415). */
export type ParsedBodyEvent<T> = APIGatewayProxyEvent & { parsedBody: BodyParse<T> };

/**
 * The body parser of a JSON route (our own rather than @middy/http-json-body-parser: see
 * docs/architecture.md). It never throws: the route decides when a refused body is answered (after
 * authentication, so a caller without a token learns nothing about the body).
 */
export function jsonBodyParser<T>(read: (value: unknown) => BodyParse<T>): RouteMiddleware<ParsedBodyEvent<T>> {
  return {
    before: async ({ event }) => {
      const bytes =
        event.body === null || event.body === undefined
          ? null
          : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
      const body = parseJsonBody(bytes, header(event.headers, 'Content-Type'));
      event.parsedBody = body.ok ? read(body.value) : body;
    },
  };
}
