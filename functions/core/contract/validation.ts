import type { core } from 'zod/mini';
import type { ValidationError } from './contract';

/**
 * Validation errors in the FastAPI / pydantic v2 form the contract calls HTTPValidationError:
 * `{"detail": [{"loc": ["body", "url"], "msg": "...", "type": "url_scheme"}]}`.
 */
export type ValidationIssue = ValidationError;

/** Zod issue params that carry a pydantic error type and message for custom checks. */
export interface PydanticIssueParams {
  readonly type: string;
  readonly msg: string;
  readonly ctx?: Record<string, unknown>;
}

const TYPE_NAMES: Record<string, [type: string, msg: string]> = {
  string: ['string_type', 'Input should be a valid string'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  object: ['model_attributes_type', 'Input should be a valid dictionary or object to extract fields from'],
};

/** Maps zod issues (parsed with `reportInput: true`) onto pydantic's error types, under `location`. */
export function toValidationIssues(
  location: 'body' | 'path' | 'query',
  issues: readonly core.$ZodIssue[],
): ValidationIssue[] {
  return issues.map((issue) => {
    const loc = [location, ...issue.path.map((key) => (typeof key === 'number' ? key : String(key)))];
    if (issue.code === 'custom' && issue.params) {
      const params = issue.params as PydanticIssueParams;
      return { loc, msg: params.msg, type: params.type, ...(params.ctx ? { ctx: params.ctx } : {}) };
    }
    if (issue.code === 'invalid_type') {
      if (issue.input === undefined) return { loc, msg: 'Field required', type: 'missing' };
      const [type, msg] = TYPE_NAMES[issue.expected] ?? [
        `${issue.expected}_type`,
        `Input should be a valid ${issue.expected}`,
      ];
      return { loc, msg, type };
    }
    if (issue.code === 'too_big' && issue.origin === 'string') {
      const max = Number(issue.maximum);
      return {
        loc,
        msg: `String should have at most ${max} characters`,
        type: 'string_too_long',
        ctx: { max_length: max },
      };
    }
    return { loc, msg: issue.message, type: 'value_error' };
  });
}

/**
 * The contract's request type is JSON. As FastAPI does, `application/json` and structured syntax
 * `application/<type>+json` count, whatever their parameters (JSON is UTF-8 by definition); any other
 * type, or none, is a 422 at the header, so a form post or a text/plain body is never saved.
 */
export function jsonContentTypeIssues(contentType: string | undefined): ValidationIssue[] {
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType === 'application/json' || /^application\/[^/\s]+\+json$/.test(mediaType)) return [];
  return [{ loc: ['header', 'content-type'], msg: 'Content-Type should be application/json', type: 'content_type' }];
}

const UUID_PATTERN = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** A UUID path parameter, canonicalised (lower case, hyphenated) as pydantic's UUID type reads it. */
export function parseUuidParameter(
  name: string,
  value: string | undefined,
): { ok: true; value: string } | { ok: false; issues: ValidationIssue[] } {
  const compact = (value ?? '').replace(/^urn:uuid:/i, '');
  if (!UUID_PATTERN.test(compact)) {
    return { ok: false, issues: [{ loc: ['path', name], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }] };
  }
  const hex = compact.replace(/-/g, '').toLowerCase();
  return {
    ok: true,
    value: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
  };
}
