/**
 * The one server call the extension makes: POST /api/v1/bookmarks/save (the contract's saveBookmark),
 * and what came back, classified for the outbox. No browser APIs beyond fetch, so it is unit-tested
 * in Node against a local server.
 */

export interface SaveRequest {
  readonly url: string;
  readonly title: string | null;
  readonly selection: string | null;
  readonly comment: string | null;
  /** The page's meta description; the server then need not scrape the page for it. */
  readonly description: string | null;
}

export interface BookmarkSaveResult {
  readonly bookmark: { readonly id: string; readonly url: string; readonly title: string | null };
  readonly note_id: string;
  readonly is_new_bookmark: boolean;
  readonly selection_appended: boolean;
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
      readonly detail: unknown;
      readonly retryAfterSeconds: number | null;
      readonly rateLimit: RateLimitState | null;
    }
  | { readonly kind: 'unreachable'; readonly message: string };

export const SAVE_PATH = '/api/v1/bookmarks/save';

/** The save endpoint under a server address (the stack's BaseUrl, which may carry a stage path). */
export function saveEndpoint(serverUrl: string): string {
  return `${serverUrl.replace(/\/+$/, '')}${SAVE_PATH}`;
}

export async function postSave(
  fetchImpl: typeof fetch,
  server: { readonly serverUrl: string; readonly token: string },
  body: SaveRequest & { readonly append?: boolean },
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
  } catch (error) {
    return { kind: 'unreachable', message: error instanceof Error ? error.message : String(error) };
  }
  const rateLimit = rateLimitState(response.headers);
  const parsed = await response.json().catch(() => null);
  if (response.ok && isSaveResult(parsed)) return { kind: 'saved', result: parsed, rateLimit };
  return {
    kind: 'refused',
    status: response.ok ? 502 : response.status,
    detail: (parsed as { detail?: unknown } | null)?.detail ?? null,
    retryAfterSeconds: seconds(response.headers.get('Retry-After')),
    rateLimit,
  };
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
export function describeDetail(detail: unknown): string | null {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((item: { loc?: unknown[]; msg?: string }) => `${fieldName(item.loc)}: ${item.msg ?? 'invalid'}`)
      .join('; ');
  }
  if (detail && typeof detail === 'object' && typeof (detail as { message?: unknown }).message === 'string') {
    return (detail as { message: string }).message;
  }
  return null;
}

/** `["body","url"]` → `url`; the field a person can recognise. */
export function fieldName(loc: unknown[] | undefined): string {
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
    return { kind: 'rate-limited', retryAfterSeconds: seconds(response.headers.get('Retry-After')) };
  return { kind: 'not-gleaner', status: response.status };
}
