/**
 * A highlight's review card as data (ISO times, named phases, so a store writes it as it is), the
 * ratings a review takes and the append-only log a card is recomputed from. The scheduler that rates
 * a card (schedule.ts, over ts-fsrs) is loaded only where a review is rated. Pure: no AWS, no I/O.
 */

/** What a reviewer answers: the four FSRS grades, or `discard` (never show this highlight again). */
export const REVIEW_RATINGS = ['again', 'hard', 'good', 'easy', 'discard'] as const;
export type ReviewRating = (typeof REVIEW_RATINGS)[number];

export function isReviewRating(value: unknown): value is ReviewRating {
  return typeof value === 'string' && (REVIEW_RATINGS as readonly string[]).includes(value);
}

/** Where a card is in FSRS's learning: its `State`, by name. */
export type CardPhase = 'new' | 'learning' | 'review' | 'relearning';

/** An FSRS card as data. */
export interface Schedule {
  readonly phase: CardPhase;
  /** When it is due next (ISO 8601). */
  readonly due: string;
  readonly stability: number;
  readonly difficulty: number;
  readonly scheduledDays: number;
  readonly learningSteps: number;
  readonly reps: number;
  readonly lapses: number;
  /** The last graded review (ISO 8601); null before the first. */
  readonly lastReview: string | null;
}

/** A highlight's review card: its schedule, whether it was discarded, how often it was skipped. */
export interface ReviewCard {
  readonly highlightId: string;
  readonly userId: string;
  readonly schedule: Schedule;
  readonly discarded: boolean;
  /** Days it was in a day's review and not rated. */
  readonly skips: number;
  /** Incremented on every write; writes are conditional on it. */
  readonly version: number;
}

/** One rating, as the append-only log keeps it: enough to recompute the card, and to audit it. */
export interface ReviewLogEntry {
  readonly userId: string;
  readonly highlightId: string;
  readonly rating: ReviewRating;
  /** When it was rated (ISO 8601). */
  readonly reviewed: string;
  /** The schedule before the rating (null for a highlight never rated) and after it. */
  readonly previous: Schedule | null;
  readonly next: Schedule;
}

/** The card of a highlight never rated: what ts-fsrs's `createEmptyCard(now)` is, as data (a test compares them). */
export function newCard(userId: string, highlightId: string, now: Date): ReviewCard {
  const schedule: Schedule = {
    phase: 'new',
    due: now.toISOString(),
    stability: 0,
    difficulty: 0,
    scheduledDays: 0,
    learningSteps: 0,
    reps: 0,
    lapses: 0,
    lastReview: null,
  };
  return { highlightId, userId, schedule, discarded: false, skips: 0, version: 0 };
}

/** Whether the card takes part in the schedule: rated at least once and not discarded. */
export function isScheduled(card: ReviewCard | undefined): card is ReviewCard {
  return card !== undefined && !card.discarded && card.schedule.reps > 0;
}
