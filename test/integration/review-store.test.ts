import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import type { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import type { DynamoFeedStore } from '../../functions/adapters/dynamo/feed-store';
import { DynamoReviewStore } from '../../functions/adapters/dynamo/review-store';
import { DEFAULT_REVIEW_SETTINGS } from '../../functions/core/review/settings';
import { saveBookmark } from '../../functions/core/save/save-bookmark';
import { newUser } from '../../functions/core/workspace/accounts';
import { createTestStores, type createTestTable } from '../support/dynamo';
import { quietSavePorts } from '../support/save-ports';

/** The daily review against DynamoDB Local, with two users whose ids are tried on each other. */

let table: Awaited<ReturnType<typeof createTestTable>>;
let accounts: DynamoAccountStore;
let bookmarks: DynamoBookmarkStore;
let feeds: DynamoFeedStore;
let review: DynamoReviewStore;

beforeAll(async () => {
  ({ table, accounts, bookmarks, feeds } = await createTestStores());
  review = new DynamoReviewStore(table.doc, table.tableName);
});
afterAll(() => table.client.destroy());

const DAY = new Date('2026-03-02T12:00:00Z');
const nextDay = (days: number) => new Date(DAY.getTime() + days * 86_400_000);

/** A user with `pages` saved pages of `perPage` highlights each; their highlight ids. */
async function reader(pages: number, perPage: number): Promise<{ userId: string; highlightIds: string[] }> {
  const userId = randomUUID();
  await accounts.createUser(newUser({ id: userId, name: 'Reader', now: new Date() }));
  const noteIds: string[] = [];
  for (let page = 0; page < pages; page++)
    for (let n = 0; n < perPage; n++) {
      const outcome = await saveBookmark(quietSavePorts(bookmarks), {
        userId,
        request: {
          url: new URL(`https://example.com/${userId}/${page}`),
          title: `Page ${page}`,
          selection: `Quote ${n} of page ${page}`,
          comment: page === 0 ? '#rust' : null,
          description: null,
          append: true,
        },
        siteIcon: null,
        idempotency: null,
      });
      if (outcome.kind === 'saved' && !noteIds.includes(outcome.bookmark.noteId)) noteIds.push(outcome.bookmark.noteId);
    }
  const highlights = await feeds.highlightsOf(noteIds);
  return { userId, highlightIds: highlights.map((highlight) => highlight.id) };
}

const ids = (day: { items: readonly { highlightId: string }[] }) => day.items.map((item) => item.highlightId);

describe('the daily review store', () => {
  it("builds a user's day once, from that user's highlights only, and every read returns it", async () => {
    const a = await reader(3, 3);
    const b = await reader(2, 2);
    const [first, concurrent] = await Promise.all([review.reviewDay(a.userId, DAY), review.reviewDay(a.userId, DAY)]);
    expect(first.items).toHaveLength(5);
    expect(ids(concurrent)).toEqual(ids(first));
    expect(ids(first).every((id) => a.highlightIds.includes(id))).toBe(true);
    expect(ids(await review.reviewDay(a.userId, new Date('2026-03-02T23:00:00Z')))).toEqual(ids(first));

    const entries = await review.reviewEntries(a.userId, first);
    expect(entries.map((entry) => entry.highlight.id)).toEqual(ids(first));
    expect(entries[0]!.highlight.quote).toMatch(/^Quote \d of page \d$/);
    expect(entries[0]!.note.title).toMatch(/^Page \d$/);
    expect(entries[0]!.note.url).toMatch(/^https:\/\/example\.com\//);
    // Another user's stored day never leaks into this user's entries.
    expect(await review.reviewEntries(b.userId, first)).toEqual([]);

    const other = await review.reviewDay(b.userId, DAY);
    expect(ids(other).every((id) => b.highlightIds.includes(id))).toBe(true);
    expect(ids(other).some((id) => a.highlightIds.includes(id))).toBe(false);
  });

  it("rates only the user's own highlights, logs every rating, and recomputes the card from the log", async () => {
    const a = await reader(1, 2);
    const b = await reader(1, 1);
    const [mine] = a.highlightIds;
    expect(await review.rate(a.userId, b.highlightIds[0]!, 'good', DAY)).toBeNull();
    expect(await review.cards(b.userId)).toEqual(new Map());

    const first = await review.rate(a.userId, mine!, 'good', DAY);
    const second = await review.rate(a.userId, mine!, 'easy', new Date(first!.card.schedule.due));
    expect(second!.card.schedule.reps).toBe(2);
    expect(new Date(second!.card.schedule.due).getTime()).toBeGreaterThan(DAY.getTime() + 86_400_000);
    const log = await review.log(a.userId, mine);
    expect(log.map((entry) => entry.rating)).toEqual(['good', 'easy']);
    expect(log[0]!.previous).toBeNull();
    expect(log[1]!.previous).toEqual(log[0]!.next);
    expect(await review.recomputedCard(a.userId, mine!)).toEqual((await review.cards(a.userId)).get(mine!));
    expect(await review.getProgress(a.userId)).toEqual({ count: 2, streak: 1, lastDay: '2026-03-02' });
    expect(await review.log(b.userId)).toEqual([]);
  });

  it('never shows a discarded highlight again, and counts a day left unrated as skipped', async () => {
    const a = await reader(2, 2);
    const settings = { ...DEFAULT_REVIEW_SETTINGS, size: 3 };
    await review.saveSettings(a.userId, settings);
    const today = await review.reviewDay(a.userId, DAY);
    expect(today.items).toHaveLength(3);
    const [discarded, rated] = ids(today);
    await review.rate(a.userId, discarded!, 'discard', DAY);
    await review.rate(a.userId, rated!, 'good', DAY);
    expect([...(await review.reviewDay(a.userId, DAY)).rated].sort()).toEqual([discarded, rated].sort());

    const tomorrow = await review.reviewDay(a.userId, nextDay(1));
    const cards = await review.cards(a.userId);
    // The one left unrated yesterday was skipped once; rated ones were not.
    const unrated = ids(today)[2]!;
    expect(cards.get(unrated)?.skips).toBe(1);
    expect(cards.get(rated!)?.skips).toBe(0);
    // Yesterday's skips are counted once, however often tomorrow is read.
    await review.reviewDay(a.userId, nextDay(1));
    expect((await review.cards(a.userId)).get(unrated)?.skips).toBe(1);
    expect(ids(tomorrow)).not.toContain(discarded);
    for (let day = 2; day < 30; day++)
      expect(ids(await review.reviewDay(a.userId, nextDay(day)))).not.toContain(discarded);
  });

  it('takes the day in the user time zone', async () => {
    const a = await reader(1, 4);
    await review.saveSettings(a.userId, { ...DEFAULT_REVIEW_SETTINGS, timeZone: 'Pacific/Kiritimati' });
    expect((await review.reviewDay(a.userId, new Date('2026-03-02T10:30:00Z'))).date).toBe('2026-03-03');
    await review.saveSettings(a.userId, { ...DEFAULT_REVIEW_SETTINGS, timeZone: 'Pacific/Pago_Pago' });
    expect((await review.reviewDay(a.userId, new Date('2026-03-02T10:30:00Z'))).date).toBe('2026-03-01');
    expect((await review.recentDays(a.userId, 5)).map((day) => day.date)).toEqual(['2026-03-03', '2026-03-01']);
  });

  it("opens the review feed to its current secret only, and to no other user's", async () => {
    const a = await reader(1, 1);
    const b = await reader(1, 1);
    expect(await review.feedSecretIssued(a.userId)).toBeNull();
    const secret = await review.issueFeedSecret(a.userId, DAY);
    expect(await review.feedSecretIssued(a.userId)).toBe(DAY.toISOString());
    expect(await review.feedSecretIssued(b.userId)).toBeNull();
    // The feed has today's review even when no one opened it yet, and only A's highlights.
    const [today] = await review.feedDays(a.userId, DAY, 30);
    expect(today!.date).toBe('2026-03-02');
    expect(today!.highlights.map((highlight) => highlight.quote)).toEqual(['Quote 0 of page 0']);
    expect(await review.feedDays(b.userId, DAY, 30)).toHaveLength(1);
    expect(await review.userOfFeedSecret(secret)).toBe(a.userId);
    // B's id with A's secret part, or a made-up secret, opens nothing.
    expect(await review.userOfFeedSecret(secret.replace(a.userId, b.userId))).toBeNull();
    expect(await review.userOfFeedSecret(`${a.userId}.${'A'.repeat(43)}`)).toBeNull();
    const reissued = await review.issueFeedSecret(a.userId, DAY);
    expect(await review.userOfFeedSecret(secret)).toBeNull();
    expect(await review.userOfFeedSecret(reissued)).toBe(a.userId);
    await review.revokeFeedSecret(a.userId);
    expect(await review.userOfFeedSecret(reissued)).toBeNull();
    expect(await review.feedSecretIssued(a.userId)).toBeNull();
  });
});
