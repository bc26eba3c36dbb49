import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Outbox, type OutboxPorts } from '../../extension/src/outbox';
import {
  backoffMs,
  type Delivery,
  MAX_SERVER_FAILURES,
  NO_ANSWER,
  nextWake,
  type OutboxItem,
  type OutboxState,
  pageKey,
  RETRY_BASE_MS,
  RETRY_MAX_MS,
  waitingReason,
} from '../../extension/src/queue';
import type { SaveAnswer, SaveRequest } from '../../extension/src/save-api';

/** The extension's outbox and retry policy, with a fake clock, fake storage and a scripted server. */

type Answer = SaveAnswer | { kind: 'not-configured' };

/** A save on its way wakes the worker this long after it began (the worker's send timeout and a second). */
const GRACE = 21_000;

function harness(answers: Answer[] = []) {
  let now = 1_000_000;
  let stored: OutboxState | undefined;
  let ids = 0;
  const sent: { id: string; url: string; item: OutboxItem }[] = [];
  /** Answers for one page's saves, before the shared list. */
  const byPage = new Map<string, Answer[]>();
  const ports: OutboxPorts = {
    load: async () => stored && structuredClone(stored),
    store: async (state) => {
      stored = structuredClone(state);
    },
    send: async (item: OutboxItem) => {
      sent.push({ id: item.id, url: item.request.url, item });
      return byPage.get(item.request.url)?.shift() ?? answers.shift() ?? saved();
    },
    now: () => now,
    random: () => 0.5,
    newId: () => `save-${++ids}`,
  };
  const delivered: { delivery: Delivery; awaited: boolean }[] = [];
  const outbox = new Outbox(ports, { onDelivery: (delivery, awaited) => delivered.push({ delivery, awaited }) });
  return {
    outbox,
    /** Adds a save; what became of it. */
    add: (request: SaveRequest, source: OutboxItem['source']) => outbox.add(request, source),
    delivered,
    /** The next answers to saves of this page. */
    answerFor: (path: string, ...scripted: Answer[]) => byPage.set(page(path).url, scripted),
    ports,
    sent,
    answers,
    advance: (ms: number) => (now += ms),
    get now() {
      return now;
    },
    get stored() {
      return stored!;
    },
  };
}

const page = (path: string): SaveRequest => ({
  url: `https://example.com/${path}`,
  title: path,
  selection: `quote from ${path}`,
  comment: null,
  description: null,
});
const saved = (
  overrides: Partial<{ remaining: number; resetSeconds: number; appended: boolean }> = {},
): SaveAnswer => ({
  kind: 'saved',
  result: {
    bookmark: { id: 'b', url: 'u', title: null },
    note_id: 'n',
    is_new_bookmark: !overrides.appended,
    selection_appended: !!overrides.appended,
  },
  rateLimit: { remaining: overrides.remaining ?? 100, resetSeconds: overrides.resetSeconds ?? 60 },
});
const unreachable: SaveAnswer = { kind: 'unreachable' };
const refused = (
  status: number,
  detail: Extract<SaveAnswer, { kind: 'refused' }>['detail'],
  retryAfterSeconds: number | null = null,
): SaveAnswer => ({
  kind: 'refused',
  status,
  detail,
  retryAfterSeconds,
  rateLimit: null,
});

describe('the extension outbox', () => {
  it('sends a save at once and leaves nothing behind', async () => {
    const h = harness([saved({ appended: true })]);
    const delivery = await h.add(page('a'), 'popup');
    expect(delivery).toMatchObject({ kind: 'saved', result: { selection_appended: true } });
    expect(h.sent.map(({ id, url }) => ({ id, url }))).toEqual([{ id: 'save-1', url: 'https://example.com/a' }]);
    expect(h.stored.items).toEqual([]);
  });

  it('retries a network failure with growing waits, sending the same request under the same key', async () => {
    const h = harness([unreachable, unreachable, unreachable]);
    const first = await h.add(page('a'), 'command');
    expect(first).toMatchObject({
      kind: 'queued',
      retryAt: h.now + RETRY_BASE_MS,
      reason: NO_ANSWER,
    });

    expect(await h.outbox.flush()).toEqual([]);
    h.advance(RETRY_BASE_MS - 1);
    expect(await h.outbox.flush()).toEqual([]);
    // Each wait is as long as the server has been failing: 30 s, 30 s, 1 min, 2 min, …
    h.advance(1);
    expect(await h.outbox.flush()).toMatchObject([{ kind: 'queued', retryAt: h.now + RETRY_BASE_MS }]);
    h.advance(RETRY_BASE_MS);
    expect(await h.outbox.flush()).toMatchObject([{ kind: 'queued', retryAt: h.now + 2 * RETRY_BASE_MS }]);
    h.advance(2 * RETRY_BASE_MS);
    expect(await h.outbox.flush()).toMatchObject([{ kind: 'saved' }]);
    // A lost answer is replayed by the key only if the retry is the very same request.
    expect(h.sent).toHaveLength(4);
    for (const send of h.sent) {
      expect(send.id).toBe('save-1');
      expect(send.item.request).toEqual(page('a'));
    }
    expect(h.stored).toMatchObject({ items: [], failingSince: null });
  });

  it('waits as long as the server has been failing: at least 30 s, at most 30 minutes, ±20 %', () => {
    expect(backoffMs(0, 0)).toBe(RETRY_BASE_MS * 0.8);
    expect(backoffMs(0, 0.999_999)).toBeCloseTo(RETRY_BASE_MS * 1.2, -1);
    expect(backoffMs(5 * 60_000, 0.5)).toBe(5 * 60_000);
    expect(backoffMs(10 * 3_600_000, 0.5)).toBe(RETRY_MAX_MS);
  });

  it('backs off by how long the server has been down, not by how many saves were made meanwhile', async () => {
    const h = harness(Array(100).fill(unreachable));
    await h.add(page('first'), 'command');
    // Six saves in the next minute: each tries the queue at once, and each fails.
    for (let i = 0; i < 6; i++) {
      h.advance(10_000);
      await h.add(page(`more-${i}`), 'command');
    }
    const head = h.stored.items[0]!;
    expect(head.attempts).toBe(7);
    // Down for a minute: the next try is about a minute away, not 2^6 × 30 s.
    expect(head.nextAttemptAt - h.now).toBe(60_000);
  });

  it('moves a save that keeps failing with a server error aside, tells why, and sends the rest', async () => {
    const h = harness(Array(MAX_SERVER_FAILURES).fill(refused(500, 'Internal Server Error')));
    expect(await h.add(page('poison'), 'command')).toMatchObject({ kind: 'queued' });
    for (let failure = 2; failure < MAX_SERVER_FAILURES; failure++) {
      h.advance(RETRY_MAX_MS);
      expect(await h.outbox.flush()).toMatchObject([{ kind: 'queued', item: { failures: failure } }]);
    }
    h.advance(RETRY_MAX_MS);
    const [setAside, ...rest] = await h.outbox.flush();
    expect(setAside).toMatchObject({
      kind: 'held',
      reason: expect.stringContaining(`Set aside after ${MAX_SERVER_FAILURES} failed tries`),
    });
    expect(rest).toEqual([]);
    // Later saves flow past it; it waits for the person (Retry now, or Discard).
    expect(await h.add(page('next'), 'command')).toMatchObject({ kind: 'saved' });
    expect(h.stored.items).toMatchObject([{ id: 'save-1', held: true }]);
    expect(nextWake(h.stored, GRACE)).toBeNull();
    expect(await h.outbox.retryNow()).toMatchObject([{ kind: 'saved', item: { id: 'save-1' } }]);
  });

  it.each([408, 409, 425, 502])('retries a %i and counts it toward setting the save aside', async (status) => {
    const h = harness([refused(status, null)]);
    expect(await h.add(page('a'), 'command')).toMatchObject({
      kind: 'queued',
      item: { failures: 1 },
      retryAt: h.now + RETRY_BASE_MS,
    });
  });

  it('keeps the saves of one page in order: a highlight never overtakes the save that creates the note', async () => {
    const h = harness();
    h.answerFor('article', refused(503, 'Service Unavailable', 600));
    expect(await h.add(page('article'), 'popup')).toMatchObject({ kind: 'queued', retryAt: h.now + 600_000 });
    const highlight = { ...page('article'), selection: 'a second quote' };
    expect(await h.add(highlight, 'command')).toMatchObject({
      kind: 'queued',
      reason: 'Waiting behind an earlier save of this page',
    });
    expect(h.sent.map((send) => send.id)).toEqual(['save-1']);
    // The same page, however its address is written, is one queue.
    expect(pageKey('https://Example.com/article?utm_source=x#top')).toBe(pageKey(page('article').url));

    h.advance(600_000);
    expect((await h.outbox.flush()).map((delivery) => [delivery.kind, delivery.item.id])).toEqual([
      ['saved', 'save-1'],
      ['saved', 'save-2'],
    ]);
    expect(h.sent.map((send) => send.id)).toEqual(['save-1', 'save-1', 'save-2']);
  });

  it('lets other pages’ saves go ahead of a page whose save keeps failing', async () => {
    const h = harness();
    h.answerFor('poison', refused(503, 'Service Unavailable', 600), refused(500, null));
    await h.add(page('poison'), 'command');
    expect(await h.add(page('next'), 'command')).toMatchObject({ kind: 'saved' });
    expect(await h.add(page('after'), 'command')).toMatchObject({ kind: 'saved' });
    expect(h.stored.items.map((item) => item.id)).toEqual(['save-1']);
    expect(nextWake(h.stored, GRACE)).toBe(h.now + 600_000);
  });

  it('sends nothing before a Retry-After, not for a new save nor for Retry now', async () => {
    const h = harness();
    h.answerFor('busy', refused(503, 'Service Unavailable', 120));
    const { retryAt } = (await h.add(page('busy'), 'command')) as Extract<Delivery, { kind: 'queued' }>;
    expect(retryAt).toBe(h.now + 120_000);
    h.advance(119_999);
    await h.add(page('other'), 'command');
    await h.outbox.retryNow();
    expect(h.sent.map((send) => send.id)).toEqual(['save-1', 'save-2']);
    h.advance(1);
    expect(await h.outbox.flush()).toMatchObject([{ kind: 'saved', item: { id: 'save-1' } }]);
  });

  it('backs off a page’s server errors by how long that save has been failing', async () => {
    const h = harness();
    h.answerFor('flaky', refused(502, null), refused(502, null), refused(502, null));
    await h.add(page('flaky'), 'command');
    const waits: number[] = [];
    for (let i = 0; i < 2; i++) {
      h.advance(h.stored.items[0]!.nextAttemptAt - h.now);
      // Another page saved meanwhile does not reset the failing page's backoff.
      await h.add(page(`fine-${i}`), 'command');
      waits.push(h.stored.items[0]!.nextAttemptAt - h.now);
    }
    expect(waits).toEqual([RETRY_BASE_MS, 2 * RETRY_BASE_MS]);
  });

  it('tries a new save at once while the server gives no answer, however many wait', async () => {
    const h = harness(Array(100).fill(unreachable));
    for (const path of ['a', 'b', 'c', 'd']) await h.add(page(path), 'command');
    h.answers.length = 0;
    h.sent.length = 0;
    expect(await h.add(page('new'), 'popup')).toMatchObject({ kind: 'saved' });
    expect(h.sent[0]!.url).toBe(page('new').url);
  });

  it('says why a save not tried yet waits: the server not answering, or an earlier save of its page', async () => {
    const h = harness();
    h.answerFor('a', unreachable);
    const { item: first } = await h.add(page('a'), 'command');
    // Before its first send (say, four saves made at once while three were on their way).
    const untried = { ...first, id: 'later', attempts: 0, problem: null, request: { ...page('a'), selection: 'more' } };
    const state = { ...h.stored, items: [...h.stored.items, untried] };
    expect(waitingReason(state, untried, h.now)).toBe('Waiting for the server to answer');
    expect(waitingReason({ ...state, failingSince: null }, untried, h.now)).toBe(
      'Waiting behind an earlier save of this page',
    );
  });

  it('holds every page back while the server gives no answer, until the backoff or a new save', async () => {
    const h = harness([unreachable, unreachable]);
    await h.add(page('a'), 'command');
    h.answerFor('b', unreachable);
    expect(await h.add(page('b'), 'command')).toMatchObject({ kind: 'queued', reason: NO_ANSWER });
    await h.outbox.flush();
    expect(h.stored.items.every((item) => item.nextAttemptAt > h.now)).toBe(true);
    const sends = h.sent.length;
    await h.outbox.flush();
    expect(h.sent).toHaveLength(sends);
  });

  it('reports what became of every send, saying which the caller of add is waiting for', async () => {
    const h = harness([unreachable]);
    await h.add(page('first'), 'command');
    h.advance(RETRY_MAX_MS);
    const delivery = await h.outbox.add(page('second'), 'popup');
    expect(delivery).toMatchObject({ kind: 'saved', item: { id: 'save-2' } });
    await h.outbox.flush();
    // The new save went first; the waiting one, due again, beside it.
    expect(h.delivered.map(({ delivery, awaited }) => [delivery.kind, delivery.item.id, awaited])).toEqual([
      ['queued', 'save-1', true],
      ['saved', 'save-2', true],
      ['saved', 'save-1', false],
    ]);
  });

  it('stores a new save at once, even while an earlier send waits for its answer', async () => {
    const h = harness();
    let answer!: (value: SaveAnswer) => void;
    const send = h.ports.send;
    h.ports.send = () => new Promise((resolve) => (answer = resolve));
    const slow = h.add(page('slow'), 'popup');
    await expect.poll(() => h.stored?.items[0]?.sendingSince).toBe(h.now);
    h.ports.send = send;
    // Another page's save goes out beside it, and is answered first.
    expect(await h.add(page('quick'), 'command')).toMatchObject({ kind: 'saved' });
    expect(h.stored.items.map((item) => item.id)).toEqual(['save-1']);
    expect(nextWake(h.stored, GRACE)).toBe(h.now + GRACE);
    answer(saved());
    expect(await slow).toMatchObject({ kind: 'saved' });
    expect(h.stored.settled?.map((save) => save.id)).toEqual(['save-2', 'save-1']);
  });

  it('serialises saves of one page that arrive together', async () => {
    const h = harness();
    const same = (quote: string) => ({ ...page('one'), selection: quote });
    await Promise.all([
      h.add(same('1'), 'command'),
      h.add(same('2'), 'context-menu'),
      h.outbox.flush(),
      h.add(same('3'), 'popup'),
    ]);
    expect(h.sent.map((send) => send.item.request.selection)).toEqual(['1', '2', '3']);
  });

  it('remembers what became of a save that waited, for a popup opened later', async () => {
    const h = harness();
    h.answerFor('a', unreachable);
    await h.add(page('a'), 'popup');
    await h.add(page('quick'), 'popup');
    h.advance(RETRY_MAX_MS);
    await h.outbox.flush();
    expect(h.stored.settled).toMatchObject([
      { id: 'save-2', waited: false, outcome: { kind: 'saved' } },
      { id: 'save-1', waited: true, url: page('a').url, outcome: { kind: 'saved' } },
    ]);
  });

  it('waits the Retry-After of a 429 before sending anything again', async () => {
    const h = harness([refused(429, { code: 'rate_limited', message: 'Rate limit exceeded', retry_after: 17 }, 17)]);
    expect(await h.add(page('a'), 'command')).toMatchObject({ kind: 'queued', retryAt: h.now + 17_000 });
    expect(await h.add(page('b'), 'command')).toMatchObject({
      kind: 'queued',
      reason: 'Waiting for the rate limit to reset',
    });
    expect(h.sent).toHaveLength(1);
    h.advance(16_999);
    await h.outbox.retryNow();
    expect(h.sent).toHaveLength(1);
    h.advance(1);
    expect(await h.outbox.flush()).toMatchObject([{ kind: 'saved' }, { kind: 'saved' }]);
  });

  it('sends nothing while RateLimit-Remaining is 0, until RateLimit-Reset', async () => {
    const h = harness([saved({ remaining: 0, resetSeconds: 9 })]);
    expect(await h.add(page('a'), 'command')).toMatchObject({ kind: 'saved' });
    expect(await h.add(page('b'), 'command')).toMatchObject({ kind: 'queued', retryAt: h.now + 9_000 });
    expect(nextWake(h.stored, GRACE)).toBe(h.now + 9_000);
    h.advance(9_000);
    expect(await h.outbox.flush()).toMatchObject([{ kind: 'saved' }]);
  });

  it('stops the queue on a 401 until new settings are saved', async () => {
    const h = harness([refused(401, 'Invalid or revoked token')]);
    expect(await h.add(page('a'), 'command')).toMatchObject({ kind: 'token-refused' });
    expect(await h.add(page('b'), 'command')).toMatchObject({ kind: 'token-refused' });
    h.advance(3_600_000);
    expect(await h.outbox.flush()).toEqual([]);
    expect(nextWake(h.stored, GRACE)).toBeNull();
    expect(h.sent).toHaveLength(1);

    expect(await h.outbox.resume()).toMatchObject([{ kind: 'saved' }, { kind: 'saved' }]);
    expect(h.stored).toMatchObject({ tokenRefused: false, items: [] });
    expect(h.sent.map((send) => send.id)).toEqual(['save-1', 'save-2', 'save-1']);
  });

  it('holds a save refused by the note cap with the server’s message, while other saves go on', async () => {
    const h = harness([
      refused(402, {
        code: 'note_limit',
        message: 'Note limit reached: your plan allows 1,000 notes.',
        used: 1000,
        limit: 1000,
      }),
    ]);
    expect(await h.add(page('a'), 'command')).toMatchObject({
      kind: 'held',
      reason: 'Note limit reached: your plan allows 1,000 notes.',
    });
    expect(await h.add(page('b'), 'command')).toMatchObject({ kind: 'saved' });
    expect(h.stored.items).toMatchObject([{ id: 'save-1', held: true }]);
    expect(nextWake(h.stored, GRACE)).toBeNull();

    expect(await h.outbox.retryNow()).toMatchObject([{ kind: 'saved', item: { id: 'save-1' } }]);
  });

  it('drops a save refused with 422 and names the field', async () => {
    const h = harness([
      refused(422, [{ loc: ['body', 'url'], msg: "URL scheme should be 'http' or 'https'", type: 'url_scheme' }]),
    ]);
    expect(await h.add(page('a'), 'context-menu')).toMatchObject({
      kind: 'dropped',
      field: 'url',
      reason: "url: URL scheme should be 'http' or 'https'",
    });
    expect(h.stored.items).toEqual([]);
  });

  it('retries a 5xx, waiting at least its Retry-After', async () => {
    const h = harness([refused(503, 'Service Unavailable', 600)]);
    expect(await h.add(page('a'), 'command')).toMatchObject({
      kind: 'queued',
      retryAt: h.now + 600_000,
      reason: 'Server error 503: Service Unavailable; the server asked to wait 600 s',
    });
  });

  it('holds saves made before the extension is set up, and sends them once it is', async () => {
    const h = harness([{ kind: 'not-configured' }]);
    expect(await h.add(page('a'), 'command')).toMatchObject({
      kind: 'held',
      reason: expect.stringContaining('not set up'),
    });
    expect(await h.outbox.resume()).toMatchObject([{ kind: 'saved' }]);
  });

  it('asks a person to check the address when the server answers something that is not Gleaner', async () => {
    const h = harness([refused(405, 'Method Not Allowed')]);
    expect(await h.add(page('a'), 'command')).toMatchObject({
      kind: 'held',
      reason: expect.stringContaining('check the server address'),
    });
  });

  it('takes a 404 for a wrong address only when it comes again after a retry (a server starting up answers 404)', async () => {
    const starting = harness([refused(404, 'Not Found')]);
    expect(await starting.add(page('a'), 'command')).toMatchObject({
      kind: 'queued',
      retryAt: starting.now + RETRY_BASE_MS,
    });
    starting.advance(RETRY_BASE_MS);
    expect(await starting.outbox.flush()).toMatchObject([{ kind: 'saved' }]);

    const wrong = harness([refused(404, 'Not Found'), refused(404, 'Not Found')]);
    await wrong.add(page('a'), 'command');
    wrong.advance(RETRY_BASE_MS);
    expect(await wrong.outbox.flush()).toMatchObject([
      { kind: 'held', reason: expect.stringContaining('check the server address') },
    ]);
  });

  it('picks up after the worker was stopped mid-send: the same request goes again', async () => {
    const h = harness();
    const send = h.ports.send;
    // The first worker stops while its request is in flight (the promise never settles).
    h.ports.send = () => new Promise(() => undefined);
    void new Outbox(h.ports).add(page('a'), 'command');
    await expect.poll(() => h.stored?.items[0]?.attempts).toBe(1);

    h.ports.send = send;
    const restarted = new Outbox(h.ports);
    expect(await restarted.flush()).toMatchObject([{ kind: 'saved', item: { id: 'save-1', attempts: 2 } }]);
    expect(h.sent.map(({ id, item }) => [id, item.request])).toEqual([['save-1', page('a')]]);
  });

  it('discards a waiting save', async () => {
    const h = harness([unreachable]);
    const { item } = await h.add(page('a'), 'command');
    await h.outbox.discard(item.id);
    expect(h.stored.items).toEqual([]);
    expect(nextWake(h.stored, GRACE)).toBeNull();
  });
});

describe('the extension outbox under any mix of faults', () => {
  type Step =
    | { readonly kind: 'save'; readonly page: number }
    | { readonly kind: 'wait'; readonly ms: number }
    | { readonly kind: 'flush' | 'retry-now' };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('save' as const), page: fc.integer({ min: 0, max: 2 }) }),
    fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 5 * 60_000 }) }),
    fc.record({ kind: fc.constantFrom('flush' as const, 'retry-now' as const) }),
  );
  const answer: fc.Arbitrary<Answer> = fc.oneof(
    fc.constant(saved()),
    fc.constant(unreachable),
    fc.integer({ min: 0, max: 900 }).map((seconds) => refused(503, 'Service Unavailable', seconds)),
    fc.integer({ min: 1, max: 120 }).map((seconds) => refused(429, 'Too Many Requests', seconds)),
  );

  it('keeps each page’s order, never sends before a Retry-After, and stores every save once all is well', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 25 }),
        fc.array(answer, { maxLength: 30 }),
        async (steps, answers) => {
          const h = harness();
          const scripted = [...answers];
          /** Per save: the earliest the server allowed its next send; and the token's quiet time. */
          const notBefore = new Map<string, number>();
          let quietUntil = 0;
          const made: { id: string; page: string }[] = [];
          const done = new Set<string>();
          const send = h.ports.send;
          h.ports.send = async (item) => {
            const now = h.now;
            expect(now).toBeGreaterThanOrEqual(Math.max(notBefore.get(item.id) ?? 0, quietUntil));
            // Every earlier save of this page has been stored already.
            const page = pageKey(item.request.url);
            const earlier = made.slice(
              0,
              made.findIndex((save) => save.id === item.id),
            );
            for (const save of earlier) if (save.page === page) expect(done.has(save.id)).toBe(true);
            const reply = scripted.shift() ?? (await send(item));
            // Saves sent side by side left before this answer came: what it asks for holds from here on.
            await null;
            if (reply.kind === 'saved') done.add(item.id);
            if (reply.kind === 'refused' && reply.status === 503)
              notBefore.set(item.id, now + reply.retryAfterSeconds! * 1000);
            if (reply.kind === 'refused' && reply.status === 429) quietUntil = now + reply.retryAfterSeconds! * 1000;
            return reply;
          };
          const runStep = async (each: Step) => {
            if (each.kind === 'save') {
              const id = `save-${made.length + 1}`;
              made.push({ id, page: pageKey(page(`p${each.page}`).url) });
              await h.add({ ...page(`p${each.page}`), selection: id }, 'command');
            } else if (each.kind === 'wait') h.advance(each.ms);
            else if (each.kind === 'flush') await h.outbox.flush();
            else await h.outbox.retryNow();
          };
          for (const each of steps) await runStep(each);
          // The server is well again: everything goes out, in the end, each save stored once.
          scripted.length = 0;
          for (let rounds = 0; rounds < 40 && h.stored?.items.length; rounds++) {
            h.advance(RETRY_MAX_MS);
            await h.outbox.retryNow();
          }
          expect(h.stored?.items ?? []).toEqual([]);
          expect([...done].sort()).toEqual(made.map((save) => save.id).sort());
        },
      ),
      { numRuns: 200 },
    );
  });
});
