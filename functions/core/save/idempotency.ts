import { createHash } from 'node:crypto';
import type { ValidationIssue } from '../contract/validation';

/**
 * Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): a client that repeats a request with
 * the key it sent the first time gets the first answer again instead of a second effect.
 */

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** Idempotency keys of MCP saves: one namespace per user (the client's id goes into the key), deleted with the account. */
export const mcpIdempotencyScope = (userId: string) => `mcp:${userId}`;

/** How long an answer is kept for replay; afterwards the key is free again. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/**
 * How long a claim holds its key while the request runs: longer than the save function's timeout
 * (10 s), so a live request never loses its claim; a crashed one frees the key when it passes.
 */
export const IDEMPOTENCY_LEASE_SECONDS = 30;

/**
 * A request's hold on its key, taken before any of its work: a repeat meanwhile finds it and is
 * told to retry (409) instead of running too. The request's answer later replaces it.
 */
export interface IdempotencyClaim {
  /** Whose key it is: keys are per access token (the token's id). */
  readonly scope: string;
  readonly key: string;
  readonly fingerprint: string;
  /** This request's own id: only the request that claimed the key may complete or release it. */
  readonly claimId: string;
  /** Epoch seconds. A record that has expired counts as absent (DynamoDB's TTL deletes it only eventually). */
  readonly createdAt: number;
  readonly leaseUntil: number;
  readonly expiresAt: number;
}

/**
 * The first answer to a request made with a key, kept with the request's fingerprint. It completes
 * the request's claim in the same transaction as the request's effects (or alone, for an answer that
 * changed nothing), so the answer exists exactly when they do.
 */
export interface IdempotencyRecord<Outcome> extends Omit<IdempotencyClaim, 'leaseUntil'> {
  readonly outcome: Outcome;
}

/** What a repeated key finds: the request holding it, and its answer (null while it is still in flight). */
export interface StoredAnswer<Outcome> {
  readonly fingerprint: string;
  readonly outcome: Outcome | null;
}

export type IdempotencyKeyParse = { ok: true; key: string | null } | { ok: false; issues: ValidationIssue[] };

const LOC = ['header', 'idempotency-key'];
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** An sf-string (RFC 9651): printable ASCII in double quotes, with `"` and `\` escaped by `\`. */
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;

/**
 * The key from every value the client sent for the header (none: no key). The draft makes it an
 * sf-string (`"…"`); a bare value is accepted too, and `abc` and `"abc"` are the same key.
 */
export function parseIdempotencyKey(values: readonly string[]): IdempotencyKeyParse {
  if (values.length === 0) return { ok: true, key: null };
  if (values.length > 1) return invalid('Idempotency-Key should be sent once', 'idempotency_key_repeated');
  const value = values[0]!.replace(/^[ \t]+|[ \t]+$/g, ''); // optional whitespace (SP, HTAB) around a field value
  const quoted = SF_STRING.exec(value);
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : value;
  if ((value.startsWith('"') && !quoted) || !PRINTABLE_ASCII.test(key)) {
    return invalid(
      'Idempotency-Key should be printable ASCII characters, bare or as a quoted string ("…")',
      'string_pattern_mismatch',
    );
  }
  if (key.length === 0)
    return invalid('Idempotency-Key should have at least 1 character', 'string_too_short', { min_length: 1 });
  if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
    return invalid(`Idempotency-Key should have at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`, 'string_too_long', {
      max_length: IDEMPOTENCY_KEY_MAX_LENGTH,
    });
  }
  return { ok: true, key };
}

/** The 422 for a key already used with another request. */
export const keyReusedIssue: ValidationIssue = {
  loc: LOC,
  msg: 'This Idempotency-Key was already used with a different request; send a new key for a new request',
  type: 'idempotency_key_reused',
};

/**
 * The fingerprint of a parsed request: SHA-256 over its fields in a fixed order. Parsed rather than
 * raw bytes, so a retry that serialises the same JSON differently (key order, spacing) still matches.
 */
export function requestFingerprint(fields: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

/** A UUID-shaped id that is the same for the same `seed` (SHA-256 based, version 5 layout). */
export function derivedId(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function invalid(msg: string, type: string, ctx?: Record<string, unknown>): IdempotencyKeyParse {
  return { ok: false, issues: [{ loc: LOC, msg, type, ...(ctx ? { ctx } : {}) }] };
}
