import { type BookmarkSaveResult, describeDetail, fieldName, type SaveAnswer, type SaveRequest } from './save-api';

/**
 * The outbox every save goes through. Manifest V3 stops an idle service worker at any moment, so
 * nothing lives only in memory: the queue is written to extension storage before each send, and a
 * stopped worker (or a restarted browser) picks it up where it was. Pure apart from its ports, so the
 * retry policy is tested with a fake clock.
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
  /** Epoch ms before which the item is not sent again (backoff). */
  readonly nextAttemptAt: number;
  /** Set when the item waits for the person rather than the clock (note cap reached, wrong server address). */
  readonly held: boolean;
  /** Why it is still here, in words for the popup. */
  readonly problem: string | null;
}

export interface OutboxState {
  readonly items: readonly OutboxItem[];
  /** A 401: nothing is sent until a new token is saved in the options. */
  readonly tokenRefused: boolean;
  /** Epoch ms before which no save is sent at all (a 429, or RateLimit-Remaining 0). */
  readonly quietUntil: number;
  /** Epoch ms since which every send has failed (unreachable or a server error): the backoff grows with it. */
  readonly failingSince?: number | null;
}

export const EMPTY_OUTBOX: OutboxState = { items: [], tokenRefused: false, quietUntil: 0, failingSince: null };

/** What became of one save, for the popup's answer, the badge and notifications. */
export type Delivery =
  | { readonly kind: 'saved'; readonly item: OutboxItem; readonly result: BookmarkSaveResult }
  /** Still in the outbox; sent again automatically (`retryAt`) or once the person acts (`held`/`token-refused`). */
  | { readonly kind: 'queued'; readonly item: OutboxItem; readonly reason: string; readonly retryAt: number | null }
  | { readonly kind: 'held'; readonly item: OutboxItem; readonly reason: string }
  | { readonly kind: 'token-refused'; readonly item: OutboxItem }
  /** Refused for good (a 422 names the field): removed from the outbox. */
  | { readonly kind: 'dropped'; readonly item: OutboxItem; readonly reason: string; readonly field: string | null };

export interface OutboxPorts {
  load(): Promise<OutboxState | undefined>;
  store(state: OutboxState): Promise<void>;
  /** Sends one save, the same request every time; `not-configured` when there is no server address or token yet. */
  send(item: OutboxItem): Promise<SaveAnswer | { kind: 'not-configured' }>;
  now(): number;
  /** In [0, 1): spreads retries so queued browsers do not all come back at once. */
  random(): number;
  newId(): string;
}

/**
 * Backoff while the server fails: wait as long as it has been failing, at least 30 s and at most
 * 30 min, ±20 % (30 s, 1 min, 2 min, … when nothing else is sent). It follows the outage's length, so
 * saves made meanwhile (each tries at once) do not push the next try further away.
 */
export const RETRY_BASE_MS = 30_000;
export const RETRY_MAX_MS = 30 * 60_000;
/** A 429 without Retry-After waits this long. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;
/** After this many "try again later" answers a save moves aside (held, with a notification) and the rest go on. */
export const MAX_SERVER_FAILURES = 5;
/** A 404 is taken for a wrong server address only when it comes again after a retry (a server starting up answers 404). */
const NOT_FOUND_LIMIT = 2;

export function backoffMs(failingForMs: number, random: number): number {
  const base = Math.min(Math.max(failingForMs, RETRY_BASE_MS), RETRY_MAX_MS);
  return Math.round(base * (0.8 + 0.4 * random));
}

export class Outbox {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly ports: OutboxPorts) {}

  /** The stored state, read without waiting for a send in progress. */
  async state(): Promise<OutboxState> {
    return (await this.ports.load()) ?? EMPTY_OUTBOX;
  }

  /**
   * Adds a save and sends what is due, this save included: what became of it (`delivery`), and of
   * every save sent along (`sent`, older ones first).
   */
  add(request: SaveRequest, source: SaveSource): Promise<{ delivery: Delivery; sent: Delivery[] }> {
    return this.exclusive(async () => {
      const now = this.ports.now();
      const item: OutboxItem = {
        id: this.ports.newId(),
        createdAt: now,
        source,
        request,
        attempts: 0,
        nextAttemptAt: now,
        held: false,
        problem: null,
      };
      const state = await this.state();
      // A person saving is a good moment to try what waits for backoff too; order is kept.
      await this.ports.store({
        ...state,
        items: [...state.items.map((queued) => (queued.held ? queued : { ...queued, nextAttemptAt: now })), item],
      });
      const sent = await this.sendDue();
      return { delivery: sent.find((delivery) => delivery.item.id === item.id) ?? (await this.waiting(item.id)), sent };
    });
  }

  /** Sends what is due, oldest first (an alarm, the worker starting, the browser coming online). */
  flush(): Promise<Delivery[]> {
    return this.exclusive(() => this.sendDue());
  }

  /** "Retry now": everything waiting, held items included, is due at once (a rate limit still holds). */
  retryNow(): Promise<Delivery[]> {
    return this.exclusive(() => this.retryAll({}));
  }

  /** New settings were saved: a queue stopped by a 401 or waiting for setup goes on. */
  resume(): Promise<Delivery[]> {
    return this.exclusive(() => this.retryAll({ tokenRefused: false }));
  }

  discard(id: string): Promise<void> {
    return this.exclusive(async () => {
      const state = await this.state();
      await this.ports.store({ ...state, items: state.items.filter((item) => item.id !== id) });
    });
  }

  /** When the next send is due (for the alarm), or null when nothing waits for the clock. */
  static nextWake(state: OutboxState): number | null {
    const head = state.items.find((item) => !item.held);
    if (!head || state.tokenRefused) return null;
    return Math.max(head.nextAttemptAt, state.quietUntil);
  }

  /** One operation at a time: a save, an alarm and a popup click may all arrive together. */
  private exclusive<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(operation);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async retryAll(change: Partial<OutboxState>): Promise<Delivery[]> {
    const state = await this.state();
    const now = this.ports.now();
    await this.ports.store({
      ...state,
      ...change,
      items: state.items.map((item) => ({ ...item, held: false, nextAttemptAt: now })),
    });
    return this.sendDue();
  }

  private async sendDue(): Promise<Delivery[]> {
    const deliveries: Delivery[] = [];
    for (;;) {
      const state = await this.state();
      // Saves go out in the order they were made (appends to one note keep their order).
      const head = state.items.find((item) => !item.held);
      const now = this.ports.now();
      if (!head || state.tokenRefused || now < state.quietUntil || now < head.nextAttemptAt) return deliveries;

      // Stored before the send: a worker stopped mid-send finds the save still here and sends it again.
      const sending: OutboxItem = { ...head, attempts: head.attempts + 1 };
      await this.ports.store(replace(state, sending));
      const answer = await this.ports.send(sending);
      const { delivery, next } = settle(await this.state(), sending, answer, this.ports.now(), this.ports.random());
      await this.ports.store(next);
      deliveries.push(delivery);
      if (delivery.kind === 'queued' || delivery.kind === 'token-refused') return deliveries;
    }
  }

  private async waiting(id: string): Promise<Delivery> {
    const state = await this.state();
    const item = state.items.find((candidate) => candidate.id === id)!;
    if (state.tokenRefused) return { kind: 'token-refused', item };
    const retryAt = Math.max(item.nextAttemptAt, state.quietUntil);
    return {
      kind: 'queued',
      item,
      reason:
        state.quietUntil > this.ports.now() ? 'Waiting for the rate limit to reset' : 'Waiting behind earlier saves',
      retryAt,
    };
  }
}

/** The retry policy: what one answer does to the item and to the queue. */
function settle(
  state: OutboxState,
  item: OutboxItem,
  answer: SaveAnswer | { kind: 'not-configured' },
  now: number,
  random: number,
): { delivery: Delivery; next: OutboxState } {
  const quietUntil =
    'rateLimit' in answer && answer.rateLimit?.remaining === 0
      ? Math.max(state.quietUntil, now + answer.rateLimit.resetSeconds * 1000)
      : state.quietUntil;
  const failing = answer.kind === 'unreachable' || (answer.kind === 'refused' && isTemporary(answer.status));
  const failingSince = failing ? (state.failingSince ?? now) : null;
  const after = { ...state, quietUntil, failingSince };
  const without = { ...after, items: state.items.filter((candidate) => candidate.id !== item.id) };
  const retry = (problem: string, waitAtLeastMs = 0, counted: Partial<OutboxItem> = {}) => {
    const retryAt = now + Math.max(backoffMs(now - failingSince!, random), waitAtLeastMs);
    const waiting = { ...item, ...counted, nextAttemptAt: retryAt, problem };
    return {
      delivery: { kind: 'queued', item: waiting, reason: problem, retryAt } as const,
      next: replace(after, waiting),
    };
  };
  const hold = (problem: string, counted: Partial<OutboxItem> = {}) => {
    const held = { ...item, ...counted, held: true, problem };
    return { delivery: { kind: 'held', item: held, reason: problem } as const, next: replace(after, held) };
  };

  switch (answer.kind) {
    case 'saved':
      return { delivery: { kind: 'saved', item, result: answer.result }, next: without };
    case 'not-configured':
      return hold('Gleaner is not set up yet: add the server address and your token in the options');
    case 'unreachable':
      return retry(`Server unreachable (${answer.message})`);
  }

  const { status, detail } = answer;
  const message = describeDetail(detail);
  if (status === 401) {
    const waiting = { ...item, problem: 'Token refused: paste a new token in the options' };
    return {
      delivery: { kind: 'token-refused', item: waiting },
      next: replace({ ...after, tokenRefused: true }, waiting),
    };
  }
  if (status === 429) {
    const waitMs = answer.retryAfterSeconds !== null ? answer.retryAfterSeconds * 1000 : DEFAULT_RATE_LIMIT_WAIT_MS;
    const retryAt = now + waitMs;
    const waiting = {
      ...item,
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
    return { delivery: { kind: 'dropped', item, reason: message ?? `Refused (${status})`, field }, next: without };
  }
  if (isTemporary(status)) {
    const counted = { failures: (item.failures ?? 0) + 1, notFound: status === 404 ? (item.notFound ?? 0) + 1 : 0 };
    if (counted.notFound >= NOT_FOUND_LIMIT)
      return hold(
        'The server answered 404 (not found) again after a retry: check the server address in the options',
        counted,
      );
    const problem = `Server error ${status}${message ? `: ${message}` : ''}`;
    if (counted.failures >= MAX_SERVER_FAILURES)
      return hold(`Set aside after ${counted.failures} failed tries (${problem}): retry or discard it`, counted);
    return retry(problem, (answer.retryAfterSeconds ?? 0) * 1000, counted);
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

function replace(state: OutboxState, item: OutboxItem): OutboxState {
  return { ...state, items: state.items.map((candidate) => (candidate.id === item.id ? item : candidate)) };
}
