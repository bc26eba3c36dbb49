import {
  type BookmarkSaveResult,
  type ErrorBody,
  SAVE_PATH,
  type SaveBookmarkBody,
  type ValidationIssue,
} from '../../functions/core/wire/save';

/**
 * The one server call the extension makes: POST /api/v1/bookmarks/save (the contract's saveBookmark),
 * and what came back, classified for the outbox. No browser APIs beyond fetch, so it is unit-tested
 * in Node against a local server.
 */

export type { BookmarkSaveResult };

/** What the extension reads from a page and the person: every field of a save but `append`. */
export interface SaveRequest extends SaveBookmarkBody {
  readonly title: string | null;
  readonly selection: string | null;
  readonly comment: string | null;
  readonly description: string | null;
}

/** The four RateLimit fields of draft-ietf-httpapi-ratelimit-headers-06, when the answer had them. */
export interface RateLimitState {
  readonly remaining: number;
  /** Seconds until the window resets. */
  readonly resetSeconds: number;
}

export type SaveAnswer =
  | { readonly kind: 'saved'; readonly result: BookmarkSaveResult; readonly rateLimit: RateLimitState | null }
  | {
      readonly kind: 'refused';
      readonly status: number;
      /** The answer's `detail`: a message, an ErrorDetail object or HTTPValidationError items. */
      readonly detail: ErrorBody['detail'] | null;
      readonly retryAfterSeconds: number | null;
      readonly rateLimit: RateLimitState | null;
    }
  /** No answer: the server was not reached, the connection dropped, or the answer did not come in time. */
  | { readonly kind: 'unreachable' };

/** The save endpoint under a server address (the stack's BaseUrl, which may carry a stage path). */
export function saveEndpoint(serverUrl: string): string {
  return `${serverUrl.replace(/\/+$/, '')}${SAVE_PATH}`;
}

export async function postSave(
  fetchImpl: typeof fetch,
  server: { readonly serverUrl: string; readonly token: string },
  body: SaveBookmarkBody,
  idempotencyKey?: string,
): Promise<SaveAnswer> {
  let response: Response;
  try {
    response = await fetchImpl(saveEndpoint(server.serverUrl), {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${server.token}`,
        'Content-Type': 'application/json',
        ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
      },
      body: JSON.stringify(body),
      // Never send cookies of the server's site; the token is the only credential.
      credentials: 'omit',
    });
  } catch {
    // The browser's words ("Failed to fetch", "signal timed out") say nothing a person can act on.
    return { kind: 'unreachable' };
  }
  const rateLimit = rateLimitState(response.headers);
  const parsed = await response.json().catch(() => null);
  if (response.ok && isSaveResult(parsed)) return { kind: 'saved', result: parsed, rateLimit };
  return {
    kind: 'refused',
    status: response.ok ? 502 : response.status,
    detail: (parsed as Partial<ErrorBody> | null)?.detail ?? null,
    retryAfterSeconds: retryAfter(response.headers.get('Retry-After'), Date.now()),
    rateLimit,
  };
}

/** Retry-After in seconds: Gleaner sends a number; a proxy in front may send an HTTP date (RFC 9110). */
export function retryAfter(value: string | null, now: number): number | null {
  const counted = seconds(value);
  if (counted !== null || value === null) return counted;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

function rateLimitState(headers: Headers): RateLimitState | null {
  const remaining = seconds(headers.get('RateLimit-Remaining'));
  const resetSeconds = seconds(headers.get('RateLimit-Reset'));
  return remaining === null || resetSeconds === null ? null : { remaining, resetSeconds };
}

function seconds(value: string | null): number | null {
  if (value === null || !/^\s*\d+\s*$/.test(value)) return null;
  return Number(value);
}

function isSaveResult(value: unknown): value is BookmarkSaveResult {
  const result = value as BookmarkSaveResult | null;
  return (
    !!result &&
    typeof result.note_id === 'string' &&
    typeof result.is_new_bookmark === 'boolean' &&
    typeof result.selection_appended === 'boolean'
  );
}

/** A one-line, human reading of an error answer's `detail`. */
export function describeDetail(detail: ErrorBody['detail'] | null): string | null {
  if (typeof detail === 'string') return detail;
  if (isIssueList(detail)) return detail.map((item) => `${fieldName(item.loc)}: ${item.msg ?? 'invalid'}`).join('; ');
  if (detail && typeof detail === 'object' && typeof detail.message === 'string') return detail.message;
  return null;
}

function isIssueList(detail: ErrorBody['detail'] | null): detail is readonly ValidationIssue[] {
  return Array.isArray(detail);
}

/** `["body","url"]` → `url`; the field a person can recognise. */
export function fieldName(loc: readonly unknown[] | undefined): string {
  const path = (loc ?? []).filter((part) => part !== 'body');
  return path.length ? path.join('.') : 'request';
}

export type ConnectionTest =
  | { readonly kind: 'accepted' }
  | { readonly kind: 'refused' }
  | { readonly kind: 'unreachable'; readonly message: string }
  | { readonly kind: 'rate-limited'; readonly retryAfterSeconds: number | null }
  | { readonly kind: 'not-gleaner'; readonly status: number };

/**
 * Checks the address and token without saving anything: an empty save is refused with 422 once the
 * token is accepted (the server checks the token before the body), and with 401 when it is not.
 */
export async function testConnection(
  fetchImpl: typeof fetch,
  server: { readonly serverUrl: string; readonly token: string },
): Promise<ConnectionTest> {
  let response: Response;
  try {
    response = await fetchImpl(saveEndpoint(server.serverUrl), {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
      body: '{}',
      credentials: 'omit',
    });
  } catch (error) {
    return { kind: 'unreachable', message: error instanceof Error ? error.message : String(error) };
  }
  const body = (await response.json().catch(() => null)) as { detail?: unknown } | null;
  if (response.status === 422 && Array.isArray(body?.detail)) return { kind: 'accepted' };
  if (response.status === 401 && body?.detail !== undefined) return { kind: 'refused' };
  if (response.status === 429)
    return { kind: 'rate-limited', retryAfterSeconds: retryAfter(response.headers.get('Retry-After'), Date.now()) };
  return { kind: 'not-gleaner', status: response.status };
}
