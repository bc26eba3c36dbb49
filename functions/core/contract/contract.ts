import * as z from 'zod/mini';

/**
 * The response bodies of the contract (spec/interface.md) as zod schemas, written once: the OpenAPI
 * document (`npm run openapi`) is generated from them, and the handlers build their answers as the
 * types inferred from them. Handlers import only those types, so no schema code reaches a bundle.
 */

/** Every schema of the document's `components.schemas`, by the name the contract gives it. */
export const contractSchemas = z.registry<{ id: string; description?: string }>();

// Any UUID (the handlers mint v4 ones; the contract promises the format, not the version).
const uuid = z.guid();
const dateTime = z.iso.datetime({ offset: true });

const bookmarkSchema = z
  .object({
    id: uuid,
    note_id: z.optional(z.nullable(uuid)),
    title: z.optional(z.nullable(z.string())),
    url: z.url(),
    icon: z.optional(z.nullable(z.url())),
    created: dateTime,
    updated: dateTime,
  })
  .register(contractSchemas, { id: 'Bookmark', description: 'A saved http(s) URL, backed by exactly one note.' });

export const bookmarkSaveResultSchema = z
  .object({
    bookmark: bookmarkSchema,
    note_id: uuid,
    is_new_bookmark: z.boolean(),
    selection_appended: z.boolean(),
  })
  .register(contractSchemas, { id: 'BookmarkSaveResult', description: 'The answer of a save.' });

const feedEntrySchema = z
  .object({
    id: uuid,
    title: z.string(),
    text: z.string(),
    updated: z.optional(z.nullable(dateTime)),
  })
  .register(contractSchemas, { id: 'FeedEntry', description: 'A published note, its body as plain text.' });

const publishedFeedSchema = z
  .object({
    id: uuid,
    title: z.string(),
    description: z.optional(z.nullable(z.string())),
    author: z.optional(z.string()),
    rss_url: z.url(),
    entries: z.array(feedEntrySchema),
  })
  .register(contractSchemas, {
    id: 'PublishedFeed',
    description: "The publisher's notes matching the feed's tag filter, newest first.",
  });

const errorDetailSchema = z
  .looseObject({
    code: z.string(),
    message: z.string(),
    hint: z.optional(z.string()),
  })
  .register(contractSchemas, {
    id: 'ErrorDetail',
    description: 'A machine-actionable error; extra context fields are allowed.',
  });

const errorSchema = z
  .object({ detail: z.union([z.string(), errorDetailSchema]) })
  .register(contractSchemas, { id: 'Error', description: 'A plain message, or an ErrorDetail.' });

const noteLimitErrorSchema = z
  .object({
    detail: z.looseObject({
      code: z.literal('note_limit'),
      message: z.string(),
      hint: z.optional(z.string()),
      used: z.int().check(z.nonnegative()),
      limit: z.int().check(z.nonnegative()),
    }),
  })
  .register(contractSchemas, { id: 'NoteLimitError', description: "The account's note cap is reached." });

/** An error a client retries after `retry_after` seconds, the value of the answer's Retry-After header. */
const retryLaterErrorSchema = <Code extends string>(code: Code) =>
  z.object({
    detail: z.looseObject({
      code: z.literal(code),
      message: z.string(),
      retry_after: z.int().check(z.nonnegative()),
    }),
  });

const rateLimitErrorSchema = retryLaterErrorSchema('rate_limited').register(contractSchemas, {
  id: 'RateLimitError',
  description: 'Over the rate limit; retry_after mirrors the Retry-After header.',
});

const idempotencyInFlightErrorSchema = retryLaterErrorSchema('idempotency_in_flight').register(contractSchemas, {
  id: 'IdempotencyInFlightError',
  description:
    'A request with the same Idempotency-Key is still being processed; retry_after mirrors the Retry-After header.',
});

const validationErrorSchema = z
  .object({
    loc: z.array(z.union([z.string(), z.int()])),
    msg: z.string(),
    type: z.string(),
    ctx: z.optional(z.record(z.string(), z.unknown())),
  })
  .register(contractSchemas, {
    id: 'ValidationError',
    description: 'One invalid input, in the FastAPI / pydantic form.',
  });

const httpValidationErrorSchema = z
  .object({ detail: z.array(validationErrorSchema) })
  .register(contractSchemas, { id: 'HTTPValidationError', description: 'The request was invalid.' });

export type BookmarkResource = z.infer<typeof bookmarkSchema>;
export type BookmarkSaveResult = z.infer<typeof bookmarkSaveResultSchema>;
export type FeedEntry = z.infer<typeof feedEntrySchema>;
export type PublishedFeed = z.infer<typeof publishedFeedSchema>;
export type ErrorBody = z.infer<typeof errorSchema>;
export type NoteLimitError = z.infer<typeof noteLimitErrorSchema>;
export type RateLimitError = z.infer<typeof rateLimitErrorSchema>;
export type IdempotencyInFlightError = z.infer<typeof idempotencyInFlightErrorSchema>;
export type ValidationError = z.infer<typeof validationErrorSchema>;
export type HTTPValidationError = z.infer<typeof httpValidationErrorSchema>;
