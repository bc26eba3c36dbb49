import type { APIGatewayProxyResult } from 'aws-lambda';
import { UserNotFoundError } from '../adapters/dynamo/account-store';
import { noteLimitDetail } from '../core/contract/note-limit';
import type { ValidationIssue } from '../core/contract/validation';
import { InvalidFeedSettingsError } from '../core/feed/settings';
import { ImportInProgressError } from '../core/import/job';
import { ConflictError, InvalidInputError, NotFoundError } from '../core/owner/library';
import { NoteLimitError } from '../core/owner/trash';
import { InvalidCursorError } from '../core/workspace/listing';
import { errorResponse } from './responses';

/**
 * The one error taxonomy of the owner's side: every refusal a use case or a request's parsing raises,
 * as the kind of failure it is. `classify` is the only place that knows the error classes; the JSON
 * answer (`failureResponse`), the pages (`failurePage` in web.ts) and the MCP tools (`failureText`
 * in mcp/) each render a Failure their way. Anything `classify` does not know is a fault (null): the
 * route wrapper's last resort answers it (500, or 503 for a temporary one).
 */
export type Failure =
  /** 422: input that does not parse or make sense, as the contract's issues; `message` is what a page says. */
  | { readonly kind: 'invalid'; readonly issues: readonly ValidationIssue[]; readonly message: string }
  /** 415: a body in a charset this runtime cannot decode. */
  | { readonly kind: 'unsupported-body'; readonly message: string }
  /** 404: nothing of the caller's by that id (another user's is as absent). */
  | { readonly kind: 'not-found'; readonly message: string }
  /** 409: the change clashes with what exists; `code` (else `conflict`) and `details` say with what, when known. */
  | {
      readonly kind: 'conflict';
      readonly message: string;
      readonly code?: string;
      readonly hint?: string;
      readonly details?: Record<string, string>;
    }
  /** 402: the account's note cap is reached (a note taken back from the Trash). */
  | { readonly kind: 'note-limit'; readonly used: number; readonly limit: number; readonly message: string }
  /** 503: a part of the service this deployment does not run; retry later. */
  | { readonly kind: 'unavailable'; readonly code: string; readonly message: string; readonly retryAfter: number };

/** A body in a charset this runtime cannot decode. */
export class UnsupportedBodyError extends Error {}

/** A part of the service that is not set up here (search without an index), named by `code`. */
export class UnavailableError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryAfter = 60,
  ) {
    super(message);
  }
}

export function classify(error: unknown): Failure | null {
  if (error instanceof InvalidInputError) return { kind: 'invalid', issues: error.issues, message: error.message };
  if (error instanceof InvalidFeedSettingsError)
    return {
      kind: 'invalid',
      issues: [{ loc: ['body'], msg: error.message, type: 'value_error' }],
      message: error.message,
    };
  if (error instanceof InvalidCursorError)
    return {
      kind: 'invalid',
      issues: [{ loc: ['query', 'cursor'], msg: error.message, type: 'value_error' }],
      message: 'That page of the list no longer exists.',
    };
  if (error instanceof UnsupportedBodyError) return { kind: 'unsupported-body', message: error.message };
  if (error instanceof NotFoundError) return { kind: 'not-found', message: error.message };
  if (error instanceof UserNotFoundError) return { kind: 'not-found', message: 'No such account' };
  if (error instanceof ImportInProgressError)
    return {
      kind: 'conflict',
      message: error.message,
      code: 'import_in_progress',
      hint: 'Wait for it to finish (GET /api/v2/me/imports/{import_id}), then start the next.',
      details: { import_id: error.active },
    };
  if (error instanceof ConflictError) return { kind: 'conflict', message: error.message };
  if (error instanceof NoteLimitError)
    return { kind: 'note-limit', used: error.used, limit: error.limit, message: error.message };
  if (error instanceof UnavailableError)
    return { kind: 'unavailable', code: error.code, message: error.message, retryAfter: error.retryAfter };
  return null;
}

/** A failure as the JSON APIs answer it, in the contract's shapes. */
export function failureResponse(failure: Failure): APIGatewayProxyResult {
  switch (failure.kind) {
    case 'invalid':
      return errorResponse(422, [...failure.issues]);
    case 'unsupported-body':
      return errorResponse(415, failure.message);
    case 'not-found':
      return errorResponse(404, failure.message);
    case 'conflict':
      return errorResponse(409, {
        code: failure.code ?? 'conflict',
        message: failure.message,
        ...(failure.hint ? { hint: failure.hint } : {}),
        ...failure.details,
      });
    case 'note-limit':
      return errorResponse(402, noteLimitDetail(failure.used, failure.limit));
    case 'unavailable':
      return errorResponse(
        503,
        { code: failure.code, message: failure.message },
        { 'Retry-After': String(failure.retryAfter) },
      );
  }
}

/** Runs `operation`; a failure `classify` knows is answered by `answer`, anything else rethrown. */
export async function answeringFailures<Answer>(
  operation: () => Promise<Answer>,
  answer: (failure: Failure) => Answer,
): Promise<Answer> {
  try {
    return await operation();
  } catch (error) {
    const failure = classify(error);
    if (failure === null) throw error;
    return answer(failure);
  }
}
