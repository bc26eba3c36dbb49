import {
  type Delivery,
  dueSaves,
  EMPTY_OUTBOX,
  makeDue,
  type OutboxItem,
  type OutboxState,
  replace,
  type SaveSource,
  settle,
  waitingReason,
} from './queue';
import type { SaveAnswer, SaveRequest } from './save-api';

/**
 * The outbox every save goes through. Manifest V3 stops an idle service worker at any moment, so
 * nothing lives only in memory: the queue is written to extension storage before each send, and a
 * stopped worker (or a restarted browser) picks it up where it was. The rules are `queue.ts`'s; this
 * runs them: one change of the stored state at a time, the sends themselves outside that, so a new
 * save is stored (and the badge shows it) at once even while a slow send is on its way, and saves of
 * different pages go out side by side. Pure apart from its ports, so it is tested with a fake clock.
 */

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

export interface OutboxOptions {
  /**
   * What became of every send, as it comes. `awaited` when the `add` that made the save is still
   * waiting for it and returns it too (the popup shows that one itself).
   */
  readonly onDelivery?: (delivery: Delivery, awaited: boolean) => void;
  /** The shortest wait after a failure (30 s; the tests' build waits less). */
  readonly retryBaseMs?: number;
}

/** Saves of different pages on their way at once. */
const SENDS_AT_ONCE = 3;

export class Outbox {
  private changes: Promise<unknown> = Promise.resolve();
  /** The sends on their way from this worker, by save id. */
  private readonly onTheirWay = new Map<string, Promise<void>>();
  /** `add` calls waiting for what becomes of their save. */
  private readonly waiters = new Map<string, (delivery: Delivery) => void>();
  private run: { readonly promise: Promise<Delivery[]>; readonly deliveries: Delivery[] } | null = null;
  /** Wakes a run waiting for answers: a new save may be due. */
  private kick = () => {};
  private startAgain = false;
  private readonly failures: unknown[] = [];

  constructor(
    private readonly ports: OutboxPorts,
    private readonly options: OutboxOptions = {},
  ) {}

  /** The stored state, read without waiting for a change in progress. */
  async state(): Promise<OutboxState> {
    return (await this.ports.load()) ?? EMPTY_OUTBOX;
  }

  /**
   * Adds a save and sends what is due, this save included (unless an earlier save of its page still
   * waits): what became of it, once its first send is answered or it is left waiting.
   */
  async add(request: SaveRequest, source: SaveSource): Promise<Delivery> {
    let delivered!: Promise<Delivery>;
    const item = await this.change(async (state, now) => {
      const added: OutboxItem = {
        id: this.ports.newId(),
        createdAt: now,
        source,
        request,
        attempts: 0,
        nextAttemptAt: now,
        held: false,
        problem: null,
      };
      delivered = new Promise((resolve) => this.waiters.set(added.id, resolve));
      // A person saving is a good moment to try what waits for backoff; what the server asked for still holds.
      const due = makeDue(state, now, false);
      await this.ports.store({ ...due, items: [...due.items, added] });
      return added;
    });
    const pumped = this.pump().then(() => null);
    // A failure after this save's answer came concerns other saves: they stay stored and are sent again.
    pumped.catch(() => undefined);
    try {
      return (await Promise.race([delivered, pumped])) ?? (await this.waiting(item.id));
    } finally {
      this.waiters.delete(item.id);
    }
  }

  /** Sends what is due (an alarm, the worker starting, the browser coming online): what became of each. */
  flush(): Promise<Delivery[]> {
    return this.pump();
  }

  /** "Retry now": everything waiting, held items included, is due at once (a Retry-After or rate limit still holds). */
  async retryNow(): Promise<Delivery[]> {
    await this.change((state, now) => this.ports.store(makeDue(state, now, true)));
    return this.pump();
  }

  /** New settings were saved: a queue stopped by a 401 or waiting for setup goes on. */
  async resume(): Promise<Delivery[]> {
    await this.change((state, now) => this.ports.store({ ...makeDue(state, now, true), tokenRefused: false }));
    return this.pump();
  }

  discard(id: string): Promise<void> {
    return this.change(async (state) => {
      if (this.onTheirWay.has(id)) throw new Error('This save is being sent right now; wait for its answer.');
      await this.ports.store({ ...state, items: state.items.filter((item) => item.id !== id) });
    });
  }

  /** One change of the stored state at a time: a save, an answer, an alarm and a popup click may all arrive together. */
  private change<T>(operation: (state: OutboxState, now: number) => Promise<T>): Promise<T> {
    const result = this.changes.then(async () => operation(await this.state(), this.ports.now()));
    this.changes = result.catch(() => undefined);
    return result;
  }

  /**
   * Sends until nothing is due and nothing is on its way; a call while that runs joins it (and has it
   * look for due saves again). What became of each save sent since the call, as the answers came.
   */
  private pump(): Promise<Delivery[]> {
    this.startAgain = true;
    this.kick();
    if (!this.run) {
      const deliveries: Delivery[] = [];
      const promise = (async () => {
        try {
          while (this.startAgain || this.onTheirWay.size) {
            const kicked = new Promise<void>((resolve) => (this.kick = resolve));
            if (this.startAgain) {
              this.startAgain = false;
              await this.change((state, now) => this.startDue(state, now, deliveries));
            }
            if (this.onTheirWay.size && !this.startAgain) await Promise.race([...this.onTheirWay.values(), kicked]);
            if (this.failures.length) throw this.failures.splice(0)[0];
          }
          return deliveries;
        } finally {
          this.run = null;
        }
      })();
      this.run = { promise, deliveries };
    }
    const from = this.run.deliveries.length;
    return this.run.promise.then((deliveries) => deliveries.slice(from));
  }

  private async startDue(state: OutboxState, now: number, deliveries: Delivery[]): Promise<void> {
    const room = SENDS_AT_ONCE - this.onTheirWay.size;
    const due = dueSaves(state, now, new Set(this.onTheirWay.keys())).slice(0, Math.max(room, 0));
    if (!due.length) return;
    // Stored before the send: a worker stopped mid-send finds the save still here and sends it again.
    const sending = due.map((item) => ({ ...item, attempts: item.attempts + 1, sendingSince: now }));
    await this.ports.store(sending.reduce(replace, state));
    for (const item of sending) this.onTheirWay.set(item.id, this.send(item, deliveries));
  }

  private send(item: OutboxItem, deliveries: Delivery[]): Promise<void> {
    const sendAndSettle = async () => {
      const answer = await this.ports.send(item);
      const delivery = await this.change(async (state, now) => {
        const { delivery, next } = settle(state, item, answer, now, this.ports.random(), this.options.retryBaseMs);
        await this.ports.store(next);
        return delivery;
      });
      deliveries.push(delivery);
      const waiter = this.waiters.get(item.id);
      this.options.onDelivery?.(delivery, waiter !== undefined);
      waiter?.(delivery);
    };
    return sendAndSettle()
      .catch((error: unknown) => {
        this.failures.push(error);
      })
      .finally(() => {
        this.onTheirWay.delete(item.id);
        this.startAgain = true;
      });
  }

  /** What became of a save that was not answered in this run: it waits, and now says why. */
  private waiting(id: string): Promise<Delivery> {
    return this.change(async (state, now) => {
      const item = state.items.find((candidate) => candidate.id === id);
      if (!item) throw new Error('The save was discarded before it was sent.');
      const marked = { ...item, problem: waitingReason(state, item, now) };
      await this.ports.store(replace(state, marked));
      if (state.tokenRefused) return { kind: 'token-refused', item: marked };
      if (item.held) return { kind: 'held', item: marked, reason: marked.problem };
      const retryAt = Math.max(item.nextAttemptAt, item.notBefore ?? 0, state.quietUntil);
      return { kind: 'queued', item: marked, reason: marked.problem, retryAt };
    });
  }
}
