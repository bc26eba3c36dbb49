import { type BookmarkSaveResult, describeDetail, fieldName, type SaveAnswer, type SaveRequest } from './save-api';

/**
 * The outbox's state and its rules, as pure functions of that state and the clock: which saves go out
 * now, what one answer does to the queue, and when to wake up next. `outbox.ts` runs them against
 * storage and the network; the unit tests run them with a fake clock.
 */

export type SaveSource = 'popup' | 'context-menu' | 'command';

export interface OutboxItem {
  /** Also the Idempotency-Key of every send of this save. */
  readonly id: string;
  readonly createdAt: number;
  readonly source: SaveSource;
  readonly request: SaveRequest;
  /**
   * Sends started. Every send is the same request with the same key, so a retry whose first answer was
   * lost gets that answer replayed instead of applying the save twice.
   */
  readonly attempts: number;
  /** Answers that said "try again later" (5xx, 408, 409, 425, a 404): at MAX_SERVER_FAILURES the save moves aside. */
  readonly failures?: number;
  /** 404s in a row: a server still starting answers 404, so only the second one means a wrong address. */
  readonly notFound?: number;
  /** Epoch ms before which the item is not sent again (backoff, or the server's Retry-After). */
  readonly nextAttemptAt: number;
  /**
   * Epoch ms the server asked this save to wait until (the Retry-After of a 5xx): nothing sends it
   * earlier, not a new save, not Retry now.
   */
  readonly notBefore?: number;
  /** Epoch ms since which this save has been answered with server errors: its backoff grows with it. */
  readonly failingSince?: number | null;
  /** Epoch ms a send of it started, while it is on its way (it cannot be discarded then). */
  readonly sendingSince?: number | null;
  /** Set when the item waits for the person rather than the clock (note cap reached, wrong server address). */
  readonly held: boolean;
  /** Why it is still here, in words for the popup. */
  readonly problem: string | null;
}

/** A save that left the outbox, kept a while so a popup (open, or opened later) can say what became of it. */
export interface SettledSave {
  readonly id: string;
  readonly url: string;
  readonly at: number;
  /** It was not settled by its first send: the person was told it waits. */
  readonly waited: boolean;
  readonly outcome:
    | { readonly kind: 'saved'; readonly result: BookmarkSaveResult }
    | { readonly kind: 'dropped'; readonly reason: string };
}

export interface OutboxState {
  readonly items: readonly OutboxItem[];
  /** A 401: nothing is sent until a new token is saved in the options. */
  readonly tokenRefused: boolean;
  /** Epoch ms before which no save is sent at all (a 429's Retry-After, or RateLimit-Remaining 0). */
  readonly quietUntil: number;
  /** Epoch ms since which the server has been unreachable: the backoff grows with it. */
  readonly failingSince?: number | null;
  /** The last saves that left the outbox, newest last (at most SETTLED_KEPT). */
  readonly settled?: readonly SettledSave[];
}

export const EMPTY_OUTBOX: OutboxState = {
  items: [],
  tokenRefused: false,
  quietUntil: 0,
  failingSince: null,
  settled: [],
};

/** What became of one save, for the popup's answer, the badge and notifications. */
export type Delivery =
  | { readonly kind: 'saved'; readonly item: OutboxItem; readonly result: BookmarkSaveResult }
  /** Still in the outbox; sent again automatically (`retryAt`) or once the person acts (`held`/`token-refused`). */
  | { readonly kind: 'queued'; readonly item: OutboxItem; readonly reason: string; readonly retryAt: number | null }
  | { readonly kind: 'held'; readonly item: OutboxItem; readonly reason: string }
  | { readonly kind: 'token-refused'; readonly item: OutboxItem }
  /** Refused for good (a 422 names the field): removed from the outbox. */
  | { readonly kind: 'dropped'; readonly item: OutboxItem; readonly reason: string; readonly field: string | null };

/** A send that got no answer (timed out, or the connection failed or dropped): the server may well have the save. */
export const NO_ANSWER = 'No answer yet; it will be confirmed by itself';

/**
 * Backoff while the server fails: wait as long as it has been failing, at least 30 s and at most
 * 30 min, ±20 % (30 s, 1 min, 2 min, … when nothing else is sent). It follows the outage's length, so
 * saves made meanwhile do not push the next try further away.
 */
export const RETRY_BASE_MS = 30_000;
export const RETRY_MAX_MS = 30 * 60_000;
/** A 429 without Retry-After waits this long. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;
/** After this many "try again later" answers a save moves aside (held, with a notification) and the rest go on. */
export const MAX_SERVER_FAILURES = 5;
/** A 404 is taken for a wrong server address only when it comes again after a retry (a server starting up answers 404). */
const NOT_FOUND_LIMIT = 2;
/** Saves kept in `settled` for the popup. */
const SETTLED_KEPT = 20;

export function backoffMs(failingForMs: number, random: number, baseMs = RETRY_BASE_MS): number {
  const base = Math.min(Math.max(failingForMs, baseMs), RETRY_MAX_MS);
  return Math.round(base * (0.8 + 0.4 * random));
}

/**
 * The page a save belongs to, for ordering: saves of one page go out in the order they were made (the
 * save that creates the note before the highlights appended to it), saves of different pages do not
 * wait for one another. Coarser than the server's identity of a page (it keeps the path's case and
 * the query), so two saves the server puts in one note are never sent out of order.
 */
export function pageKey(url: string): string {
  try {
    const parsed = new URL(url);
    let path = parsed.pathname;
    try {
      path = decodeURIComponent(path);
    } catch {
      // Kept as written.
    }
    return `${parsed.host}${path}`.toLowerCase();
  } catch {
    return url.toLowerCase();
  }
}

/** The first save of each page still in the outbox, oldest page first: only these may be sent. */
function pageHeads(state: OutboxState): OutboxItem[] {
  const seen = new Set<string>();
  const heads: OutboxItem[] = [];
  for (const item of state.items) {
    const key = pageKey(item.request.url);
    if (seen.has(key)) continue;
    seen.add(key);
    heads.push(item);
  }
  return heads;
}

/** When a page's first save may go, or null when it waits for the person. */
function dueAt(state: OutboxState, head: OutboxItem): number | null {
  if (head.held || state.tokenRefused) return null;
  return Math.max(head.nextAttemptAt, head.notBefore ?? 0, state.quietUntil);
}

/**
 * The saves to send now: each page's first save when it is due and not already on its way. Saves
 * never sent go first (a person's new save is tried at once, however many wait), then the oldest.
 */
export function dueSaves(state: OutboxState, now: number, onTheirWay: ReadonlySet<string>): OutboxItem[] {
  const due = pageHeads(state).filter((head) => {
    const at = dueAt(state, head);
    return at !== null && at <= now && !onTheirWay.has(head.id);
  });
  return [...due.filter((head) => head.attempts === 0), ...due.filter((head) => head.attempts > 0)];
}

/**
 * When to wake the worker next (its alarm), or null when nothing waits for the clock. A save on its way
 * wakes it `sendingGraceMs` after the send began, should the browser have stopped the worker mid-send.
 */
export function nextWake(state: OutboxState, sendingGraceMs: number): number | null {
  const wakes = pageHeads(state).flatMap((head) => {
    const at = dueAt(state, head);
    if (at === null) return [];
    return [head.sendingSince ? Math.max(at, head.sendingSince + sendingGraceMs) : at];
  });
  return wakes.length ? Math.min(...wakes) : null;
}

/**
 * A new save, or Retry now: the waiting saves are due at once (`unhold` also those waiting for the
 * person), except that what the server asked for (a Retry-After, a rate limit) still holds.
 */
export function makeDue(state: OutboxState, now: number, unhold: boolean): OutboxState {
  return {
    ...state,
    items: state.items.map((item) =>
      item.held && !unhold ? item : { ...item, held: false, nextAttemptAt: Math.max(now, item.notBefore ?? 0) },
    ),
  };
}

/** Why a save that was not sent (or not settled) waits, in words for the popup. */
export function waitingReason(state: OutboxState, item: OutboxItem, now: number): string {
  if (item.problem) return item.problem;
  if (state.quietUntil > now) return 'Waiting for the rate limit to reset';
  if (state.failingSince) return 'Waiting for the server to answer';
  const head = pageHeads(state).find((candidate) => pageKey(candidate.request.url) === pageKey(item.request.url));
  return head && head.id !== item.id ? 'Waiting behind an earlier save of this page' : 'Waiting to be sent';
}

/** The retry policy: what one answer to `item` does to it and to the queue. */
export function settle(
  state: OutboxState,
  item: OutboxItem,
  answer: SaveAnswer | { kind: 'not-configured' },
  now: number,
  random: number,
  retryBaseMs = RETRY_BASE_MS,
): { delivery: Delivery; next: OutboxState } {
  const quietUntil =
    'rateLimit' in answer && answer.rateLimit?.remaining === 0
      ? Math.max(state.quietUntil, now + answer.rateLimit.resetSeconds * 1000)
      : state.quietUntil;
  // Any answer at all means the server is reachable again.
  const unreachable = answer.kind === 'unreachable';
  const failingSince = unreachable ? (state.failingSince ?? now) : null;
  const after: OutboxState = { ...state, quietUntil, failingSince };
  const done = { ...item, sendingSince: null };
  const leave = (outcome: SettledSave['outcome']): OutboxState => ({
    ...after,
    items: state.items.filter((candidate) => candidate.id !== item.id),
    settled: [
      ...(state.settled ?? []),
      {
        id: item.id,
        url: item.request.url,
        at: now,
        waited: item.attempts > 1 || item.problem !== null,
        outcome,
      },
    ].slice(-SETTLED_KEPT),
  });
  const hold = (problem: string, counted: Partial<OutboxItem> = {}) => {
    const held = { ...done, ...counted, held: true, problem };
    return { delivery: { kind: 'held', item: held, reason: problem } as const, next: replace(after, held) };
  };

  switch (answer.kind) {
    case 'saved':
      return {
        delivery: { kind: 'saved', item, result: answer.result },
        next: leave({ kind: 'saved', result: answer.result }),
      };
    case 'not-configured':
      return hold('Gleaner is not set up yet: add the server address and your token in the options');
    case 'unreachable': {
      // No answer says nothing about this save but that the server was not heard: every save waits
      // out the backoff (a new save or Retry now tries again sooner).
      const retryAt = now + backoffMs(now - failingSince!, random, retryBaseMs);
      const waiting = { ...done, nextAttemptAt: retryAt, problem: NO_ANSWER };
      const items = replace(after, waiting).items.map((other) =>
        other.id === item.id || other.held
          ? other
          : { ...other, nextAttemptAt: Math.max(other.nextAttemptAt, retryAt) },
      );
      return { delivery: { kind: 'queued', item: waiting, reason: NO_ANSWER, retryAt }, next: { ...after, items } };
    }
  }

  const { status, detail } = answer;
  const message = describeDetail(detail);
  if (status === 401) {
    const waiting = { ...done, problem: 'Token refused: paste a new token in the options' };
    return {
      delivery: { kind: 'token-refused', item: waiting },
      next: replace({ ...after, tokenRefused: true }, waiting),
    };
  }
  if (status === 429) {
    // The rate limit is the token's: no save is sent before Retry-After.
    const waitMs = answer.retryAfterSeconds !== null ? answer.retryAfterSeconds * 1000 : DEFAULT_RATE_LIMIT_WAIT_MS;
    const retryAt = now + waitMs;
    const waiting = {
      ...done,
      nextAttemptAt: retryAt,
      problem: `Rate limited: sending again in ${Math.ceil(waitMs / 1000)} s`,
    };
    return {
      delivery: { kind: 'queued', item: waiting, reason: waiting.problem, retryAt },
      next: replace({ ...after, quietUntil: Math.max(quietUntil, retryAt) }, waiting),
    };
  }
  if (status === 402) return hold(message ?? 'Note limit reached');
  if (status === 422 || status === 400 || status === 413 || status === 415) {
    const field = Array.isArray(detail) ? fieldName(detail[0]?.loc) : null;
    const reason = message ?? `Refused (${status})`;
    return { delivery: { kind: 'dropped', item, reason, field }, next: leave({ kind: 'dropped', reason }) };
  }
  if (isTemporary(status)) {
    // This save's own trouble: it (and the later saves of its page) wait, other pages' saves go on.
    const since = item.failingSince ?? now;
    const counted = {
      failures: (item.failures ?? 0) + 1,
      notFound: status === 404 ? (item.notFound ?? 0) + 1 : 0,
      failingSince: since,
    };
    if (counted.notFound >= NOT_FOUND_LIMIT)
      return hold(
        'The server answered 404 (not found) again after a retry: check the server address in the options',
        counted,
      );
    const asked = answer.retryAfterSeconds ? `; the server asked to wait ${answer.retryAfterSeconds} s` : '';
    const problem = `Server error ${status}${message ? `: ${message}` : ''}${asked}`;
    if (counted.failures >= MAX_SERVER_FAILURES)
      return hold(`Set aside after ${counted.failures} failed tries (${problem}): retry or discard it`, counted);
    const notBefore = now + (answer.retryAfterSeconds ?? 0) * 1000;
    const retryAt = Math.max(now + backoffMs(now - since, random, retryBaseMs), notBefore);
    const waiting = { ...done, ...counted, notBefore, nextAttemptAt: retryAt, problem };
    return { delivery: { kind: 'queued', item: waiting, reason: problem, retryAt }, next: replace(after, waiting) };
  }
  return hold(`The server answered ${status}${message ? `: ${message}` : ''}; check the server address in the options`);
}

/**
 * Answers that may pass: 408, 409 (the same save still in flight), 425, 5xx, and 404, which a server
 * still starting up gives before its routes are loaded. Anything else needs a person to look.
 */
function isTemporary(status: number): boolean {
  return status >= 500 || status === 404 || status === 408 || status === 409 || status === 425;
}

export function replace(state: OutboxState, item: OutboxItem): OutboxState {
  return { ...state, items: state.items.map((candidate) => (candidate.id === item.id ? item : candidate)) };
}
