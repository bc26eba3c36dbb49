import * as z from 'zod/mini';
import { type PydanticIssueParams, toValidationIssues, type ValidationIssue } from '../contract/validation';
import { storableText, truncate } from '../text/text';
import { DESCRIPTION_MAX_LENGTH } from './note-body';
import { HOST_MAX_LENGTH, parseBookmarkUrl, URL_MAX_LENGTH, type UrlProblem } from './url';

/** Upper bounds of the save request's text fields (longer values answer 422; `description` is truncated). */
export const SAVE_LIMITS = {
  title: 1_000,
  selection: 20_000,
  comment: 5_000,
  description: DESCRIPTION_MAX_LENGTH,
} as const;

export interface SaveRequest {
  readonly url: URL;
  readonly title: string | null;
  readonly selection: string | null;
  readonly comment: string | null;
  /** Already truncated to DESCRIPTION_MAX_LENGTH characters; null when omitted or blank (then it is scraped later). */
  readonly description: string | null;
  readonly append: boolean;
}

const URL_PROBLEMS: Record<UrlProblem, PydanticIssueParams> = {
  url_parsing: { type: 'url_parsing', msg: 'Input should be a valid URL, relative URL without a base' },
  url_scheme: { type: 'url_scheme', msg: "URL scheme should be 'http' or 'https'" },
  url_too_long: {
    type: 'url_too_long',
    msg: `URL should have at most ${URL_MAX_LENGTH} characters`,
    ctx: { max_length: URL_MAX_LENGTH },
  },
  // pydantic reports an unparsable host as url_parsing with the reason after the comma.
  host_too_long: {
    type: 'url_parsing',
    msg: `Input should be a valid URL, host should have at most ${HOST_MAX_LENGTH} characters`,
    ctx: { max_length: HOST_MAX_LENGTH },
  },
  host_invalid: {
    type: 'url_parsing',
    msg: 'Input should be a valid URL, every label of the host should be 1-63 letters, digits or hyphens, with no hyphen at either end',
  },
  port_invalid: { type: 'url_parsing', msg: 'Input should be a valid URL, invalid port number' },
};

const optionalText = (max?: number) =>
  z.pipe(z.nullish(max ? z.string().check(z.maxLength(max)) : z.string()), z.transform(storableText));

/**
 * The save request body. zod/mini: the same validation as classic zod at a fraction of the bundle
 * size. The OpenAPI document describes its input side; the metadata states what the transforms check.
 */
export const saveRequestSchema = z.object({
  url: z.pipe(
    z.string().register(z.globalRegistry, {
      format: 'uri',
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
      maxLength: URL_MAX_LENGTH,
      description: 'An http or https URL with a host.',
    }),
    z.transform((value: string, ctx) => {
      const parsed = parseBookmarkUrl(value);
      if (parsed.ok) return parsed.url;
      const problem = URL_PROBLEMS[parsed.problem];
      ctx.issues.push({ code: 'custom', message: problem.msg, input: value, params: problem });
      return z.NEVER;
    }),
  ),
  title: optionalText(SAVE_LIMITS.title),
  selection: optionalText(SAVE_LIMITS.selection),
  comment: optionalText(SAVE_LIMITS.comment),
  description: z.pipe(
    optionalText().register(z.globalRegistry, {
      description: `Longer values are truncated to ${SAVE_LIMITS.description} characters, not rejected.`,
    }),
    z.transform((value: string | null) => (value === null ? null : truncate(value, SAVE_LIMITS.description))),
  ),
  append: z.pipe(
    z.nullish(z.boolean()).register(z.globalRegistry, { default: false }),
    z.transform((value) => value ?? false),
  ),
});

export type SaveRequestParse = { ok: true; request: SaveRequest } | { ok: false; issues: ValidationIssue[] };

/** The save request from its JSON body (see parseJsonBody): a body that is no object is a 422 like any other. */
export function parseSaveRequest(data: unknown): SaveRequestParse {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return {
      ok: false,
      issues: [
        {
          loc: ['body'],
          msg: 'Input should be a valid dictionary or object to extract fields from',
          type: 'model_attributes_type',
        },
      ],
    };
  }
  const result = saveRequestSchema.safeParse(data, { reportInput: true });
  return result.success
    ? { ok: true, request: result.data }
    : { ok: false, issues: toValidationIssues('body', result.error.issues) };
}
