import { describe, expect, it } from 'vitest';
import type { Principal } from '../../functions/core/identity/principal';
import type { Highlight } from '../../functions/core/model';
import { InvalidInputError, NotFoundError } from '../../functions/core/owner/library';
import type { ReviewCard } from '../../functions/core/review/card';
import { buildDailyReview, localDate } from '../../functions/core/review/daily';
import { NO_PROGRESS, type ReviewProgress, recordReview } from '../../functions/core/review/progress';
import { rateCard } from '../../functions/core/review/schedule';
import { DEFAULT_REVIEW_SETTINGS, type ReviewSettings } from '../../functions/core/review/settings';
import {
  editReviewSettings,
  getDailyReview,
  getReviewFeedStatus,
  getReviewSettings,
  issueReviewFeed,
  type ReviewDay,
  type ReviewStore,
  rateHighlight,
  reviewFeedDocument,
  revokeReviewFeed,
} from '../../functions/core/review/use-cases';

const A: Principal = { userId: '00000000-0000-4000-8000-00000000000a', via: 'oauth', scopes: new Set(['review']) };
const B: Principal = { userId: '00000000-0000-4000-8000-00000000000b', via: 'session', scopes: new Set(['review']) };
const NOW = new Date('2026-03-02T12:00:00Z');
const LINKS = {
  feed: (secret: string) => `https://gleaner.test/review-feed/${secret}`,
  reviewPage: 'https://x/review',
};

/**
 * The review store's behaviour over maps, built from the same core the DynamoDB store uses (the
 * integration tests prove that one): enough to see what the use cases make of it.
 */
class InMemoryReviewStore implements ReviewStore {
  readonly settings = new Map<string, ReviewSettings>();
  readonly cards = new Map<string, ReviewCard>();
  readonly progress = new Map<string, ReviewProgress>();
  readonly days = new Map<string, ReviewDay>();
  readonly secrets = new Map<string, { secret: string; issued: string }>();

  constructor(readonly highlights: readonly Highlight[]) {}

  async getSettings(userId: string) {
    return this.settings.get(userId) ?? DEFAULT_REVIEW_SETTINGS;
  }
  async saveSettings(userId: string, settings: ReviewSettings) {
    this.settings.set(userId, settings);
  }
  async getProgress(userId: string) {
    return this.progress.get(userId) ?? NO_PROGRESS;
  }
  async reviewDay(userId: string, now: Date, settings?: ReviewSettings) {
    const chosen = settings ?? (await this.getSettings(userId));
    const key = `${userId}/${localDate(now, chosen.timeZone)}`;
    const own = this.highlights.filter((highlight) => highlight.userId === userId);
    const built = buildDailyReview({
      userId,
      now,
      settings: chosen,
      highlights: own.map((h) => ({ highlightId: h.id, noteId: h.noteId, saved: h.saved, tags: [] })),
      cards: this.cards,
    });
    const day = this.days.get(key) ?? {
      date: built.date,
      items: built.items.map((item) => ({ ...item, noteId: 'n', saved: NOW.toISOString() })),
      rated: [],
      created: now.toISOString(),
      skipsCounted: false,
    };
    this.days.set(key, day);
    return day;
  }
  async reviewEntries(userId: string, day: ReviewDay) {
    return day.items.flatMap((item) => {
      const highlight = this.highlights.find((h) => h.id === item.highlightId && h.userId === userId);
      if (!highlight) return [];
      const note = { id: highlight.noteId, title: `Note of ${highlight.quote}`, url: 'https://example.com/', tags: [] };
      return [{ highlight, note, reason: item.reason, rated: day.rated.includes(item.highlightId) }];
    });
  }
  async rate(userId: string, highlightId: string, rating: Parameters<ReviewStore['rate']>[2], now: Date) {
    if (!this.highlights.some((h) => h.id === highlightId && h.userId === userId)) return null;
    const { card } = rateCard(this.cards.get(highlightId) ?? null, rating, now, { userId, highlightId });
    this.cards.set(highlightId, card);
    const progress = recordReview(await this.getProgress(userId), localDate(now, 'UTC'));
    this.progress.set(userId, progress);
    for (const [key, day] of this.days)
      if (key.startsWith(userId)) this.days.set(key, { ...day, rated: [...day.rated, highlightId] });
    return { card, progress };
  }
  async issueFeedSecret(userId: string, now: Date) {
    const secret = `${userId}.${'s'.repeat(43)}${this.secrets.size}`;
    this.secrets.set(userId, { secret, issued: now.toISOString() });
    return secret;
  }
  async revokeFeedSecret(userId: string) {
    this.secrets.delete(userId);
  }
  async feedSecretIssued(userId: string) {
    return this.secrets.get(userId)?.issued ?? null;
  }
  async userOfFeedSecret(secret: string) {
    return [...this.secrets].find(([, issued]) => issued.secret === secret)?.[0] ?? null;
  }
  async feedDays(userId: string, now: Date) {
    const day = await this.reviewDay(userId, now);
    const entries = await this.reviewEntries(userId, day);
    return [
      {
        date: day.date,
        created: day.created,
        highlights: entries.map(({ highlight, note }) => ({
          quote: highlight.quote,
          comment: highlight.comment,
          noteTitle: note.title,
          noteUrl: note.url,
        })),
      },
    ];
  }
}

/** The id of highlight `index` of user `prefix` (`a` or `b`): a UUID, as highlight ids are. */
const highlightId = (prefix: string, index: number) =>
  `${prefix.repeat(8)}-0000-4000-8000-${String(index).padStart(12, '0')}`;

function highlightsOf(principal: Principal, count: number, prefix: string): Highlight[] {
  return Array.from({ length: count }, (_, index) => ({
    id: highlightId(prefix, index),
    noteId: `${prefix}-note-${index}`,
    userId: principal.userId,
    quote: `${prefix} quote ${index}`,
    comment: index === 0 ? 'worth it' : null,
    saved: '2026-02-01T00:00:00.000Z',
  }));
}

function setup() {
  const store = new InMemoryReviewStore([...highlightsOf(A, 8, 'a'), ...highlightsOf(B, 8, 'b')]);
  return { store, ports: { review: store } };
}

describe('the daily review use cases', () => {
  it("gives the principal's day in the API's shape: positions from 1, the note's title and source, nothing of another user", async () => {
    const { ports } = setup();
    const review = await getDailyReview(ports, A, NOW);
    expect(review.date).toBe('2026-03-02');
    expect(review.time_zone).toBe('UTC');
    expect(review.items.map((item) => item.position)).toEqual([1, 2, 3, 4, 5]);
    expect(review.items.every((item) => item.highlight_id.startsWith('aaaaaaaa-'))).toBe(true);
    const first = review.items[0]!;
    expect(first).toMatchObject({ source_url: 'https://example.com/', reason: 'resurfaced', rated: false });
    expect(first.note_title).toBe(`Note of ${first.text}`);
    expect(review).toMatchObject({ completed: false, streak: 0, reviews_done: 0 });
    expect(await getDailyReview(ports, A, new Date('2026-03-02T23:59:00Z'))).toEqual(review);
  });

  it('rates: the next due date, the streak and count, and the day completed once every item is rated', async () => {
    const { ports } = setup();
    const review = await getDailyReview(ports, A, NOW);
    const [first, ...rest] = review.items;
    const good = await rateHighlight(ports, A, first!.highlight_id, 'good', NOW);
    expect(good).toMatchObject({ highlight_id: first!.highlight_id, rating: 'good', streak: 1, reviews_done: 1 });
    expect(Date.parse(good.next_due!)).toBeGreaterThan(NOW.getTime());
    for (const item of rest) await rateHighlight(ports, A, item.highlight_id, 'easy', NOW);
    expect(await getDailyReview(ports, A, NOW)).toMatchObject({ completed: true, streak: 1, reviews_done: 5 });
  });

  it('discard has no next due date', async () => {
    const { ports } = setup();
    expect(await rateHighlight(ports, A, highlightId('a', 1), 'discard', NOW)).toMatchObject({
      next_due: null,
      reviews_done: 1,
    });
  });

  it("refuses an unknown rating as a 422 issue under body.rating, and another user's highlight as not found", async () => {
    const { ports, store } = setup();
    const refused = await rateHighlight(ports, A, highlightId('a', 1), 'maybe', NOW).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidInputError);
    expect((refused as InvalidInputError).issues).toEqual([
      {
        loc: ['body', 'rating'],
        msg: "Input should be 'again', 'hard', 'good', 'easy' or 'discard'",
        type: 'value_error',
      },
    ]);
    await expect(rateHighlight(ports, A, highlightId('b', 1), 'good', NOW)).rejects.toBeInstanceOf(NotFoundError);
    expect(store.cards.has(highlightId('b', 1))).toBe(false);
    // An id that is no UUID names no highlight; an upper-case one names the same as its lower case.
    await expect(rateHighlight(ports, A, 'a-1', 'good', NOW)).rejects.toBeInstanceOf(NotFoundError);
    const upper = await rateHighlight(ports, A, highlightId('a', 2).toUpperCase(), 'good', NOW);
    expect(upper.highlight_id).toBe(highlightId('a', 2));
  });

  it('reads and changes settings in the API shape, refusing what the settings core refuses', async () => {
    const { ports } = setup();
    expect(await getReviewSettings(ports, A)).toEqual({
      size: 5,
      time_zone: 'UTC',
      favoured_tags: [],
      muted_tags: [],
    });
    expect(await editReviewSettings(ports, A, { size: 7, time_zone: 'Pacific/Kiritimati' })).toMatchObject({
      size: 7,
      time_zone: 'Pacific/Kiritimati',
    });
    await expect(editReviewSettings(ports, A, { size: 16 })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(editReviewSettings(ports, A, { time_zone: 'Mars/Olympus' })).rejects.toBeInstanceOf(InvalidInputError);
    expect((await getReviewSettings(ports, A)).size).toBe(7);
    expect((await getReviewSettings(ports, B)).size).toBe(5);
    expect((await getDailyReview(ports, A, NOW)).items).toHaveLength(7);
  });

  it('issues, serves, and revokes the review feed', async () => {
    const { ports } = setup();
    expect(await getReviewFeedStatus(ports, A)).toEqual({ active: false, issued: null });
    const issued = await issueReviewFeed(ports, A, LINKS, NOW);
    expect(issued.issued).toBe(NOW.toISOString());
    const secret = issued.url.split('/').pop()!;
    expect(await getReviewFeedStatus(ports, A)).toEqual({ active: true, issued: NOW.toISOString() });
    const rss = await reviewFeedDocument(ports, secret, LINKS, NOW);
    expect(rss).toContain('<rss');
    expect(rss).toContain('a quote');
    expect(rss).not.toContain('b quote');
    await revokeReviewFeed(ports, A);
    expect(await reviewFeedDocument(ports, secret, LINKS, NOW)).toBeNull();
    expect(await getReviewFeedStatus(ports, A)).toEqual({ active: false, issued: null });
  });
});
