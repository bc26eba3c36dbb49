import type { APIGatewayProxyEvent } from 'aws-lambda';
import type * as z from 'zod/mini';
import { type BodyParse, parseJsonBody } from '../core/contract/json-body';
import { toValidationIssues } from '../core/contract/validation';
import { InvalidInputError } from '../core/owner/library';
import { UnsupportedBodyError } from './failures';
import { eventBody } from './fetch-exchange';
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

/**
 * The JSON body of a request to the owner's side, as `schema` reads it, by the save route's rules
 * (parseJsonBody: the bytes decoded in the declared charset, bytes invalid in it refused, not
 * replaced). Refusals are thrown for the route's failure answer (failures.ts): InvalidInputError with
 * every issue (422), or UnsupportedBodyError for a charset this runtime cannot decode (415).
 */
export function parseBody<Schema extends z.ZodMiniType>(schema: Schema, event: APIGatewayProxyEvent): z.output<Schema> {
  const body = parseJsonBody(eventBody(event), header(event.headers, 'Content-Type'));
  if (!body.ok) throw body.status === 415 ? new UnsupportedBodyError(body.detail) : new InvalidInputError(body.issues);
  const parsed = schema.safeParse(body.value, { reportInput: true });
  if (!parsed.success) throw new InvalidInputError(toValidationIssues('body', parsed.error.issues));
  return parsed.data;
}
