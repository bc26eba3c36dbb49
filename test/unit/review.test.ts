import { createEmptyCard } from 'ts-fsrs';
import { describe, expect, it } from 'vitest';
import {
  isReviewRating,
  newCard,
  type ReviewCard,
  type ReviewLogEntry,
  type ReviewRating,
} from '../../functions/core/review/card';
import { buildDailyReview, localDate, type ReviewCandidate } from '../../functions/core/review/daily';
import { currentStreak, progressOfLog } from '../../functions/core/review/progress';
import { rateCard, replayCard } from '../../functions/core/review/schedule';
import {
  changeReviewSettings,
  DEFAULT_REVIEW_SETTINGS,
  type ReviewSettings,
} from '../../functions/core/review/settings';

const USER = 'user-a';
const DAY_MS = 86_400_000;
const T0 = new Date('2026-03-02T12:00:00Z');
const at = (days: number) => new Date(T0.getTime() + days * DAY_MS);
const daysBetween = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / DAY_MS;

/** Rates one highlight with each rating when it falls due; the cards and log entries in order. */
function rateInSequence(ratings: readonly ReviewRating[], highlightId = 'h1') {
  let card: ReviewCard | null = null;
  let now = T0;
  const cards: ReviewCard[] = [];
  const entries: ReviewLogEntry[] = [];
  for (const rating of ratings) {
    const rated = rateCard(card, rating, now, { userId: USER, highlightId });
    card = rated.card;
    cards.push(card);
    entries.push(rated.entry);
    now = new Date(card.schedule.due);
  }
  return { cards, entries };
}

const highlight = (id: string, saved = at(-10), tags: string[] = []): ReviewCandidate => ({
  highlightId: id,
  noteId: `note-${id}`,
  saved: saved.toISOString(),
  tags,
});
const settings = (change: Partial<ReviewSettings> = {}): ReviewSettings => ({ ...DEFAULT_REVIEW_SETTINGS, ...change });

describe('the schedule (ts-fsrs, default parameters)', () => {
  it("starts a highlight never rated on ts-fsrs's empty card, without loading the scheduler", () => {
    const now = new Date('2026-03-01T08:00:00.000Z');
    const empty = createEmptyCard(now);
    expect(newCard(USER, 'h', now).schedule).toEqual({
      phase: 'new',
      due: empty.due.toISOString(),
      stability: empty.stability,
      difficulty: empty.difficulty,
      scheduledDays: empty.scheduled_days,
      learningSteps: empty.learning_steps,
      reps: empty.reps,
      lapses: empty.lapses,
      lastReview: null,
    });
  });

  it('grows the interval on each Good, faster on Easy', () => {
    const good = rateInSequence(['good', 'good', 'good', 'good', 'good', 'good']).cards.map(
      (card) => card.schedule.scheduledDays,
    );
    const easy = rateInSequence(['easy', 'easy', 'easy', 'easy']).cards.map((card) => card.schedule.scheduledDays);
    // Past the learning steps (same-day), each Good schedules further out than the last.
    const reviewIntervals = good.filter((days) => days > 0);
    expect(reviewIntervals.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < reviewIntervals.length; i++)
      expect(reviewIntervals[i]).toBeGreaterThan(reviewIntervals[i - 1]!);
    for (let i = 1; i < easy.length; i++) expect(easy[i]).toBeGreaterThan(easy[i - 1]!);
    // Easy skips the learning steps and outgrows Good rating for rating.
    expect(easy[0]).toBeGreaterThan(0);
    expect(easy[3]).toBeGreaterThan(good[3]!);
  });

  it('lapses on Again: the card relearns, counts a lapse and is due again within the day', () => {
    const { cards } = rateInSequence(['good', 'good', 'good', 'good', 'again']);
    const before = cards[3]!;
    const lapsed = cards[4]!;
    expect(before.schedule.phase).toBe('review');
    expect(lapsed.schedule.phase).toBe('relearning');
    expect(lapsed.schedule.lapses).toBe(before.schedule.lapses + 1);
    expect(lapsed.schedule.stability).toBeLessThan(before.schedule.stability);
    expect(daysBetween(lapsed.schedule.lastReview!, lapsed.schedule.due)).toBeLessThan(1);
  });

  it('logs each rating with the state before and after, and recomputes the card from its log', () => {
    const { cards, entries } = rateInSequence(['good', 'hard', 'again', 'good', 'easy', 'discard']);
    expect(entries[0]!.previous).toBeNull();
    for (let i = 1; i < entries.length; i++) expect(entries[i]!.previous).toEqual(entries[i - 1]!.next);
    expect(entries.map((entry) => entry.rating)).toEqual(['good', 'hard', 'again', 'good', 'easy', 'discard']);
    // Out of order on the way in: the log is replayed by time.
    expect(replayCard([...entries].reverse())).toEqual(cards.at(-1));
    expect(replayCard([])).toBeNull();
  });

  it('keeps the schedule on Discard and marks the card', () => {
    const { cards, entries } = rateInSequence(['good', 'discard']);
    expect(cards[1]!.discarded).toBe(true);
    expect(cards[1]!.schedule).toEqual(cards[0]!.schedule);
    expect(entries[1]!.next).toEqual(entries[1]!.previous);
  });

  it('knows its ratings', () => {
    expect(['again', 'hard', 'good', 'easy', 'discard'].every(isReviewRating)).toBe(true);
    expect(['Good', 'skip', 3, null].some(isReviewRating)).toBe(false);
  });
});

describe("the day's review", () => {
  const pool = Array.from({ length: 40 }, (_, i) => highlight(`h${String(i).padStart(2, '0')}`, at(-i)));
  const build = (now: Date, change: Partial<ReviewSettings> = {}, cards = new Map<string, ReviewCard>()) =>
    buildDailyReview({ userId: USER, now, settings: settings(change), highlights: pool, cards });
  const ids = (review: { items: readonly { highlightId: string }[] }) => review.items.map((item) => item.highlightId);

  it('has the set number of highlights, none twice, even when the input repeats one', () => {
    for (const size of [3, 5, 15]) {
      const review = buildDailyReview({
        userId: USER,
        now: T0,
        settings: settings({ size }),
        highlights: [...pool, ...pool],
        cards: new Map(),
      });
      expect(review.items).toHaveLength(size);
      expect(new Set(ids(review)).size).toBe(size);
    }
  });

  it('is the same on every read of the day, whatever order the highlights come in', () => {
    const morning = build(new Date('2026-03-02T00:01:00Z'));
    const evening = build(new Date('2026-03-02T23:59:00Z'));
    const shuffled = buildDailyReview({
      userId: USER,
      now: new Date('2026-03-02T13:00:00Z'),
      settings: settings(),
      highlights: [...pool].reverse(),
      cards: new Map(),
    });
    expect(ids(evening)).toEqual(ids(morning));
    expect(ids(shuffled)).toEqual(ids(morning));
    // Another day, another draw; another user, another draw.
    expect(ids(build(new Date('2026-03-03T00:01:00Z')))).not.toEqual(ids(morning));
    expect(
      ids(buildDailyReview({ userId: 'user-b', now: T0, settings: settings(), highlights: pool, cards: new Map() })),
    ).not.toEqual(ids(morning));
  });

  it('turns the day at midnight in the user time zone (Pacific/Kiritimati, UTC+14; Pacific/Pago_Pago, UTC−11)', () => {
    // One instant, two calendar days 25 hours apart.
    const instant = new Date('2026-03-02T10:30:00Z');
    expect(localDate(instant, 'Pacific/Kiritimati')).toBe('2026-03-03');
    expect(localDate(instant, 'Pacific/Pago_Pago')).toBe('2026-03-01');
    const kiritimati = build(instant, { timeZone: 'Pacific/Kiritimati' });
    const pagoPago = build(instant, { timeZone: 'Pacific/Pago_Pago' });
    expect(kiritimati.date).toBe('2026-03-03');
    expect(pagoPago.date).toBe('2026-03-01');
    // Stable through each zone's whole day: 00:00 to 23:59 local.
    expect(ids(build(new Date('2026-03-02T10:00:00Z'), { timeZone: 'Pacific/Kiritimati' }))).toEqual(ids(kiritimati));
    expect(ids(build(new Date('2026-03-03T09:59:00Z'), { timeZone: 'Pacific/Kiritimati' }))).toEqual(ids(kiritimati));
    expect(ids(build(new Date('2026-03-01T11:00:00Z'), { timeZone: 'Pacific/Pago_Pago' }))).toEqual(ids(pagoPago));
    expect(ids(build(new Date('2026-03-02T10:59:00Z'), { timeZone: 'Pacific/Pago_Pago' }))).toEqual(ids(pagoPago));
    // One minute later, Kiritimati is on its next day and draws anew; the same local date draws the same anywhere.
    expect(build(new Date('2026-03-03T10:00:00Z'), { timeZone: 'Pacific/Kiritimati' }).date).toBe('2026-03-04');
    // Pago_Pago reaches 3 March 25 hours after Kiritimati did, and gets the review Kiritimati had that date.
    expect(ids(build(new Date('2026-03-03T12:00:00Z'), { timeZone: 'Pacific/Pago_Pago' }))).toEqual(ids(kiritimati));
  });

  it('puts due cards first, most overdue first, then resurfaced highlights', () => {
    const cards = new Map<string, ReviewCard>();
    const rate = (id: string, when: Date) =>
      cards.set(id, rateCard(null, 'good', when, { userId: USER, highlightId: id }).card);
    rate('h30', at(-3)); // Good on a new card: due within minutes, so overdue by days now
    rate('h31', at(-1));
    rate('h32', at(0.1)); // due later today: still today's
    const review = build(at(0.2), {}, cards);
    expect(review.items.slice(0, 3)).toEqual([
      { highlightId: 'h30', reason: 'due' },
      { highlightId: 'h31', reason: 'due' },
      { highlightId: 'h32', reason: 'due' },
    ]);
    expect(review.items.slice(3).every((item) => item.reason === 'resurfaced')).toBe(true);
    // More due than the review holds: only due ones, the most overdue.
    expect(ids(build(at(0.2), { size: 3 }, cards))).toEqual(['h30', 'h31', 'h32']);
  });

  it('leaves out discarded highlights and muted tags, and does not resurface what was seen lately', () => {
    const cards = new Map<string, ReviewCard>();
    for (const item of pool.slice(0, 38)) {
      const good = rateCard(null, 'easy', at(-5), { userId: USER, highlightId: item.highlightId }).card;
      cards.set(
        item.highlightId,
        item.highlightId < 'h10'
          ? rateCard(good, 'discard', at(-5), { userId: USER, highlightId: item.highlightId }).card
          : good,
      );
    }
    // h38 and h39 were never rated; the others were rated five days ago (not due, seen lately) or discarded.
    expect(ids(build(T0, {}, cards)).sort()).toEqual(['h38', 'h39']);
    const muted = buildDailyReview({
      userId: USER,
      now: T0,
      settings: settings({ mutedTags: ['noise'] }),
      highlights: [...pool.slice(0, 39), highlight('h39', at(-1), ['noise'])],
      cards,
    });
    expect(ids(muted)).toEqual(['h38']);
    // Discarded, even when due: rated Good long ago, it is due and first; discarded, it is gone.
    const rated = rateCard(null, 'good', at(-100), { userId: USER, highlightId: 'h00' }).card;
    expect(build(T0, {}, new Map([['h00', rated]])).items[0]).toEqual({ highlightId: 'h00', reason: 'due' });
    const discarded = rateCard(rated, 'discard', at(-99), { userId: USER, highlightId: 'h00' }).card;
    expect(ids(build(T0, { size: 15 }, new Map([['h00', discarded]])))).not.toContain('h00');
  });

  it('weights resurfacing by favoured tags, recency and skips', () => {
    const draws = (
      change: Partial<ReviewSettings>,
      candidates: ReviewCandidate[],
      cards = new Map<string, ReviewCard>(),
    ) => {
      const counts = new Map<string, number>();
      for (let user = 0; user < 200; user++)
        for (const id of ids(
          buildDailyReview({
            userId: `user-${user}`,
            now: T0,
            settings: settings({ size: 3, ...change }),
            highlights: candidates,
            cards,
          }),
        ))
          counts.set(id, (counts.get(id) ?? 0) + 1);
      return counts;
    };
    const old = Array.from({ length: 20 }, (_, i) => highlight(`old${i}`, at(-2000), i < 2 ? ['rust'] : []));
    const favoured = draws({ favouredTags: ['rust'] }, old);
    const plain = draws({}, old);
    expect((favoured.get('old0') ?? 0) + (favoured.get('old1') ?? 0)).toBeGreaterThan(
      2 * ((plain.get('old0') ?? 0) + (plain.get('old1') ?? 0)),
    );
    // A highlight saved yesterday comes back more than one saved years ago; one skipped often, less.
    const recent = [...old.slice(2), highlight('fresh', at(-1))];
    const freshCount = (cards?: Map<string, ReviewCard>) => draws({}, recent, cards).get('fresh') ?? 0;
    // Skipped: in nine days' reviews and never rated.
    const skipped = new Map([['fresh', { ...newCard(USER, 'fresh', at(-1)), skips: 9 }]]);
    expect(freshCount()).toBeGreaterThan((2 * (200 * 3)) / recent.length);
    expect(freshCount(skipped)).toBeLessThan(freshCount() / 3);
  });
});

describe('progress', () => {
  const entry = (reviewed: string): ReviewLogEntry => ({
    userId: USER,
    highlightId: 'h',
    rating: 'good',
    reviewed,
    previous: null,
    next: rateCard(null, 'good', new Date(reviewed), { userId: USER, highlightId: 'h' }).card.schedule,
  });

  it('counts ratings and consecutive local days', () => {
    const log = ['2026-03-01T20:00:00Z', '2026-03-02T08:00:00Z', '2026-03-02T09:00:00Z', '2026-03-03T07:00:00Z'].map(
      entry,
    );
    const utc = progressOfLog(log, 'UTC');
    expect(utc).toEqual({ count: 4, streak: 3, lastDay: '2026-03-03' });
    expect(currentStreak(utc, '2026-03-04')).toBe(3);
    expect(currentStreak(utc, '2026-03-05')).toBe(0);
    // In Kiritimati the first two ratings fall on one day (2 March 10:00 and 22:00).
    expect(progressOfLog(log, 'Pacific/Kiritimati')).toEqual({ count: 4, streak: 2, lastDay: '2026-03-03' });
    // A gap restarts the streak.
    expect(progressOfLog([entry('2026-03-01T12:00:00Z'), entry('2026-03-03T12:00:00Z')], 'UTC').streak).toBe(1);
  });
});

describe('review settings', () => {
  it('takes sizes 3–15, IANA zones and tags, and refuses the rest in the 422 form', () => {
    const changed = changeReviewSettings(DEFAULT_REVIEW_SETTINGS, {
      size: 15,
      time_zone: 'Pacific/Kiritimati',
      favoured_tags: ['#Rust', 'rust'],
      muted_tags: ['news'],
    });
    expect(changed).toEqual({
      ok: true,
      settings: { size: 15, timeZone: 'Pacific/Kiritimati', favouredTags: ['rust'], mutedTags: ['news'] },
    });
    const refused = changeReviewSettings(DEFAULT_REVIEW_SETTINGS, {
      size: 2,
      time_zone: 'Mars/Olympus',
      favoured_tags: 'rust',
    });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.issues.map((issue) => issue.loc.join('.'))).toEqual([
      'body.size',
      'body.time_zone',
      'body.favoured_tags',
    ]);
    expect(changeReviewSettings(DEFAULT_REVIEW_SETTINGS, { size: 16 }).ok).toBe(false);
    expect(changeReviewSettings(DEFAULT_REVIEW_SETTINGS, { favoured_tags: ['a'], muted_tags: ['a'] }).ok).toBe(false);
  });
});
