import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Highlight, Note } from '../../core/model';
import { newCard, type ReviewCard, type ReviewLogEntry, type ReviewRating } from '../../core/review/card';
import { buildDailyReview, localDate, type ReviewCandidate } from '../../core/review/daily';
import type { ReviewFeedDay } from '../../core/review/feed';
import { feedSecretMatches, feedSecretUser, hashFeedSecret, mintFeedSecret } from '../../core/review/feed-secret';
import { type ReviewProgress, recordReview } from '../../core/review/progress';
import type { ReviewSettings } from '../../core/review/settings';
import type { ReviewDay, ReviewEntry, ReviewStore } from '../../core/review/use-cases';
import { batchGetAll } from './batch-get';
import { readHighlight } from './entities/highlight';
import { readNote } from './entities/note';
import { cardRatingUpdate, cardSkipUpdate, readReviewCard } from './entities/review-card';
import { readReviewDay, reviewDayItem } from './entities/review-day';
import { readReviewLogEntry, reviewLogItem } from './entities/review-log';
import {
  readReviewFeed,
  readReviewProgress,
  readReviewSettings,
  reviewFeedItem,
  reviewProgressItem,
  reviewSettingsItem,
} from './entities/review-settings';
import { keys, LOOKUP_INDEX, REVIEW_CARD_PREFIX, REVIEW_DAY_PREFIX, REVIEW_LOG_PREFIX } from './keys';
import { queryAll } from './query-all';
import { backoff, cancellationReasons, retryOnConflict } from './transactions';

/** The FSRS scheduler (ts-fsrs), only where a review is rated or a card recomputed. */
const scheduler = () => import('../../core/review/schedule');

/** Days' reviews are kept this long (the review feed lists the recent ones), then expire through TTL. */
const REVIEW_DAY_RETENTION_DAYS = 60;
/** A rating that keeps losing races to others on the same card gives up after this many attempts. */
const MAX_RATING_ATTEMPTS = 10;

/** The candidates' notes: title, URL and tags only. */
type NoteSummary = Pick<Note, 'id' | 'title' | 'url' | 'tags'>;

/**
 * The daily review in the single table: a card per rated (or skipped) highlight, the append-only
 * review log, settings, progress, each day's review as built on its first read, and the review
 * feed's secret, all in the user's partition.
 */
export class DynamoReviewStore implements ReviewStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async getSettings(userId: string): Promise<ReviewSettings> {
    return readReviewSettings(await this.get(keys.reviewSettings(userId)));
  }

  async saveSettings(userId: string, settings: ReviewSettings): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.tableName, Item: reviewSettingsItem(userId, settings) }));
  }

  async getProgress(userId: string): Promise<ReviewProgress> {
    return readReviewProgress(await this.get(keys.reviewProgress(userId)));
  }

  /**
   * The user's review for the local day `now` falls on, built on the day's first read and stored, so
   * every later read (and a concurrent first one) returns the same highlights. Building it counts a
   * skip for each highlight of the user's previous review left unrated.
   */
  async reviewDay(userId: string, now: Date, settings?: ReviewSettings): Promise<ReviewDay> {
    const chosen = settings ?? (await this.getSettings(userId));
    const date = localDate(now, chosen.timeZone);
    const stored = await this.get(keys.reviewDay(userId, date), true);
    if (stored) return readReviewDay(stored);

    const [highlights, notes, cards, previous] = await Promise.all([
      this.userHighlights(userId),
      this.noteSummaries(userId),
      this.cards(userId),
      this.previousDay(userId, date),
    ]);
    const skipped =
      previous && !previous.skipsCounted
        ? previous.items.filter((item) => !previous.rated.includes(item.highlightId))
        : [];
    for (const item of skipped) {
      const card = cards.get(item.highlightId) ?? newCard(userId, item.highlightId, now);
      cards.set(item.highlightId, { ...card, skips: card.skips + 1 });
    }
    const byId = new Map(highlights.map((highlight) => [highlight.id, highlight]));
    const candidates: ReviewCandidate[] = highlights.flatMap((highlight) => {
      const note = notes.get(highlight.noteId);
      return note ? [{ highlightId: highlight.id, noteId: note.id, saved: highlight.saved, tags: note.tags }] : [];
    });
    const built = buildDailyReview({ userId, now, settings: chosen, highlights: candidates, cards });
    const day: ReviewDay = {
      date,
      items: built.items.map(({ highlightId, reason }) => {
        const highlight = byId.get(highlightId)!;
        return { highlightId, noteId: highlight.noteId, saved: highlight.saved, reason };
      }),
      rated: [],
      created: now.toISOString(),
      skipsCounted: false,
    };
    try {
      await retryOnConflict(() =>
        this.doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: this.tableName,
                  Item: reviewDayItem(
                    userId,
                    day,
                    Math.floor(now.getTime() / 1000) + REVIEW_DAY_RETENTION_DAYS * 86_400,
                  ),
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
              // The previous day's skips are counted once: with the day that follows it.
              ...(previous && skipped.length > 0
                ? [
                    {
                      Update: {
                        TableName: this.tableName,
                        Key: keys.reviewDay(userId, previous.date),
                        UpdateExpression: 'SET skipsCounted = :yes',
                        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(skipsCounted)',
                        ExpressionAttributeValues: { ':yes': true },
                      },
                    },
                    ...skipped.map((item) =>
                      cardSkipUpdate(this.tableName, { userId, highlightId: item.highlightId }, item.noteId),
                    ),
                  ]
                : []),
            ],
          }),
        ),
      );
      return day;
    } catch (error) {
      // Another read built the day first (or counted the skips): its review is the day's.
      if (!cancellationReasons(error)?.some((reason) => reason.Code === 'ConditionalCheckFailed')) throw error;
      const winner = await this.get(keys.reviewDay(userId, date), true);
      if (winner) return readReviewDay(winner);
      // The previous day's skips were counted by a build that then lost its own day: build again.
      return this.reviewDay(userId, now, chosen);
    }
  }

  /** The day's review with each highlight's text and note, in the review's order. */
  async reviewEntries(userId: string, day: ReviewDay): Promise<ReviewEntry[]> {
    const items = await batchGetAll(this.doc, this.tableName, [
      ...day.items.map((item) => keys.highlight(item.noteId, item.saved, item.highlightId)),
      ...[...new Set(day.items.map((item) => item.noteId))].map(keys.note),
    ]);
    const highlights = new Map(
      items.filter((item) => item.type === 'Highlight' && item.userId === userId).map((item) => [item.id, item]),
    );
    const notes = new Map(
      items
        .filter((item) => item.type === 'Note' && item.userId === userId && !item.trashedAt)
        .map((item) => [item.id, readNote(item)]),
    );
    // A highlight deleted since the day was built (its note deleted, or in the Trash) leaves the review.
    return day.items.flatMap((item) => {
      const highlight = highlights.get(item.highlightId);
      const note = notes.get(item.noteId);
      if (!highlight || !note) return [];
      return [
        {
          highlight: readHighlight(highlight),
          note: { id: note.id, title: note.title, url: note.url, tags: note.tags },
          reason: item.reason,
          rated: day.rated.includes(item.highlightId),
        },
      ];
    });
  }

  /** The user's stored days' reviews, newest first (at most `limit`). */
  async recentDays(userId: string, limit: number): Promise<ReviewDay[]> {
    const { Items = [] } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.user(userId).pk, ':prefix': REVIEW_DAY_PREFIX },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return Items.map(readReviewDay);
  }

  /**
   * The review feed's days: today's review (built now if no read built it yet) and the days before
   * it, newest first, each with its highlights' text and notes.
   */
  async feedDays(userId: string, now: Date, limit: number): Promise<ReviewFeedDay[]> {
    await this.reviewDay(userId, now);
    const days = await this.recentDays(userId, limit);
    return Promise.all(
      days.map(async (day) => ({
        date: day.date,
        created: day.created,
        highlights: (await this.reviewEntries(userId, day)).map(({ highlight, note }) => ({
          quote: highlight.quote,
          comment: highlight.comment,
          noteTitle: note.title,
          noteUrl: note.url,
        })),
      })),
    );
  }

  /** The user's highlight with this id; null when there is none (another user's id included) or its note is in the Trash. */
  async findHighlight(userId: string, highlightId: string): Promise<Highlight | null> {
    const index = keys.userHighlightsIndex(userId, highlightId);
    const { Items = [] } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: LOOKUP_INDEX,
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
        ExpressionAttributeValues: { ':pk': index.gsi1pk, ':sk': index.gsi1sk },
      }),
    );
    if (!Items[0]) return null;
    const highlight = readHighlight(Items[0]);
    const note = await this.get(keys.note(highlight.noteId));
    return note && !note.trashedAt ? highlight : null;
  }

  /**
   * Rates the user's highlight: the card, a log entry and the progress in one transaction conditional
   * on the card's version (a concurrent rating makes this one re-read and apply after it), and the
   * day's review marks it rated. Null when the highlight is not the user's.
   */
  async rate(
    userId: string,
    highlightId: string,
    rating: ReviewRating,
    now: Date,
  ): Promise<{ card: ReviewCard; progress: ReviewProgress } | null> {
    const highlight = await this.findHighlight(userId, highlightId);
    if (!highlight) return null;
    const settings = await this.getSettings(userId);
    const date = localDate(now, settings.timeZone);
    for (let attempt = 1; ; attempt++) {
      const [cardItem, progressItem, dayItem] = await Promise.all([
        this.get(keys.reviewCard(userId, highlightId), true),
        this.get(keys.reviewProgress(userId), true),
        this.get(keys.reviewDay(userId, date), true),
      ]);
      const current = cardItem ? readReviewCard(cardItem) : null;
      // A card holding only skips (version 0) has never been rated: the schedule starts now.
      const { card, entry } = (await scheduler()).rateCard(current?.version ? current : null, rating, now, {
        userId,
        highlightId,
      });
      const written: ReviewCard = { ...card, skips: current?.skips ?? 0, version: (current?.version ?? 0) + 1 };
      const before = readReviewProgress(progressItem);
      const progress = recordReview(before, date);
      const inToday = dayItem && readReviewDay(dayItem).items.some((item) => item.highlightId === highlightId);
      try {
        await retryOnConflict(() =>
          this.doc.send(
            new TransactWriteCommand({
              TransactItems: [
                cardRatingUpdate(this.tableName, written, highlight.noteId, current?.version ?? 0),
                {
                  Put: {
                    TableName: this.tableName,
                    Item: reviewLogItem(entry),
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
                {
                  Put: {
                    TableName: this.tableName,
                    Item: reviewProgressItem(userId, progress),
                    ConditionExpression: progressItem ? 'progress.#count = :count' : 'attribute_not_exists(pk)',
                    ...(progressItem
                      ? {
                          ExpressionAttributeNames: { '#count': 'count' },
                          ExpressionAttributeValues: { ':count': before.count },
                        }
                      : {}),
                  },
                },
                ...(inToday
                  ? [
                      {
                        Update: {
                          TableName: this.tableName,
                          Key: keys.reviewDay(userId, date),
                          UpdateExpression: 'ADD rated :rated',
                          ExpressionAttributeValues: { ':rated': new Set([highlightId]) },
                        },
                      },
                    ]
                  : []),
              ],
            }),
          ),
        );
        return { card: written, progress };
      } catch (error) {
        const lostRace = cancellationReasons(error)?.some((reason) => reason.Code === 'ConditionalCheckFailed');
        if (!lostRace || attempt >= MAX_RATING_ATTEMPTS) throw error;
        await backoff(Math.min(attempt, 6));
      }
    }
  }

  /** Every card of the user (rated or skipped highlights), by highlight id. */
  async cards(userId: string): Promise<Map<string, ReviewCard>> {
    const items = await this.queryUserPartition(userId, REVIEW_CARD_PREFIX);
    return new Map(items.map(readReviewCard).map((card) => [card.highlightId, card]));
  }

  /** The review log, of one highlight or of them all, in time order per highlight. */
  async log(userId: string, highlightId?: string): Promise<ReviewLogEntry[]> {
    const items = await this.queryUserPartition(userId, `${REVIEW_LOG_PREFIX}${highlightId ? `${highlightId}#` : ''}`);
    return items.map(readReviewLogEntry);
  }

  /** The card the highlight's log gives (as new scheduler parameters would recompute it). */
  async recomputedCard(userId: string, highlightId: string): Promise<ReviewCard | null> {
    const [entries, stored] = await Promise.all([
      this.log(userId, highlightId),
      this.get(keys.reviewCard(userId, highlightId), true),
    ]);
    const current = stored ? readReviewCard(stored) : null;
    const card = (await scheduler()).replayCard(entries, current?.skips ?? 0);
    return card && { ...card, version: current?.version ?? card.version };
  }

  /** A new address secret for the user's review feed, issued `now`; the one before stops working. */
  async issueFeedSecret(userId: string, now: Date): Promise<string> {
    const secret = mintFeedSecret(userId);
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: reviewFeedItem(userId, hashFeedSecret(secret), now.toISOString()),
      }),
    );
    return secret;
  }

  async feedSecretIssued(userId: string): Promise<string | null> {
    return readReviewFeed(await this.get(keys.reviewFeed(userId), true)).issued;
  }

  async revokeFeedSecret(userId: string): Promise<void> {
    await this.doc
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.reviewFeed(userId),
          UpdateExpression: 'REMOVE secretHash, issued',
          ConditionExpression: 'attribute_exists(pk)',
        }),
      )
      .catch((error) => {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      });
  }

  /** The user whose current review feed secret this is; null for any other string. */
  async userOfFeedSecret(secret: string): Promise<string | null> {
    const userId = feedSecretUser(secret);
    if (!userId) return null;
    const { secretHash } = readReviewFeed(await this.get(keys.reviewFeed(userId), true));
    return feedSecretMatches(secret, secretHash) ? userId : null;
  }

  /** Every highlight of the user, without its text (from the user's highlights index: no note is read). */
  private async userHighlights(userId: string): Promise<Pick<Highlight, 'id' | 'noteId' | 'saved'>[]> {
    const items = await queryAll(this.doc, {
      TableName: this.tableName,
      IndexName: LOOKUP_INDEX,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.userHighlightsIndex(userId).gsi1pk },
      ProjectionExpression: 'id, noteId, saved',
    });
    return items.map((item) => ({ id: item.id as string, noteId: item.noteId as string, saved: item.saved as string }));
  }

  /** Every note of the user: title, URL and tags (what weights the review and names its highlights). */
  private async noteSummaries(userId: string): Promise<Map<string, NoteSummary>> {
    const items = await queryAll(this.doc, {
      TableName: this.tableName,
      IndexName: LOOKUP_INDEX,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.userNotesIndex(userId).gsi1pk },
      ProjectionExpression: 'id, title, #url, tags',
      ExpressionAttributeNames: { '#url': 'url' },
    });
    return new Map(
      items.map((item) => [
        item.id as string,
        {
          id: item.id as string,
          title: item.title as string,
          url: (item.url as string | undefined) ?? null,
          tags: (item.tags as string[] | undefined) ?? [],
        },
      ]),
    );
  }

  /** The user's latest stored review before `date`. */
  private async previousDay(userId: string, date: string): Promise<ReviewDay | null> {
    const { Items = [] } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :today',
        ExpressionAttributeValues: {
          ':pk': keys.user(userId).pk,
          ':first': REVIEW_DAY_PREFIX,
          ':today': keys.reviewDay(userId, date).sk,
        },
        ScanIndexForward: false,
        Limit: 2,
        ConsistentRead: true,
      }),
    );
    const before = Items.map(readReviewDay).find((day) => day.date < date);
    return before ?? null;
  }

  private queryUserPartition(userId: string, prefix: string): Promise<Record<string, unknown>[]> {
    return queryAll(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.user(userId).pk, ':prefix': prefix },
      ConsistentRead: true,
    });
  }

  private async get(key: { pk: string; sk: string }, consistent = false): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: consistent }),
    );
    return Item;
  }
}
