/**
 * The spaced-repetition schedule of highlights: one FSRS card per highlight (`ts-fsrs`, default
 * parameters, so no fuzz: the same ratings at the same times give the same card), the ratings a
 * review takes, and the append-only review log a card can be recomputed from. Pure: no AWS, no I/O.
 *
 * Cards are kept as plain data (ISO times, named states) so a store writes them as they are.
 */
import { type Card, createEmptyCard, fsrs, type Grade, Rating, State } from 'ts-fsrs';

/** What a reviewer answers: the four FSRS grades, or `discard` (never show this highlight again). */
export const REVIEW_RATINGS = ['again', 'hard', 'good', 'easy', 'discard'] as const;
export type ReviewRating = (typeof REVIEW_RATINGS)[number];

export function isReviewRating(value: unknown): value is ReviewRating {
  return typeof value === 'string' && (REVIEW_RATINGS as readonly string[]).includes(value);
}

const GRADES: Record<Exclude<ReviewRating, 'discard'>, Grade> = {
  again: Rating.Again,
  hard: Rating.Hard,
  good: Rating.Good,
  easy: Rating.Easy,
};

type CardPhase = 'new' | 'learning' | 'review' | 'relearning';
const PHASES: Record<State, CardPhase> = {
  [State.New]: 'new',
  [State.Learning]: 'learning',
  [State.Review]: 'review',
  [State.Relearning]: 'relearning',
};
const STATES = Object.fromEntries(Object.entries(PHASES).map(([state, phase]) => [phase, Number(state)])) as Record<
  CardPhase,
  State
>;

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

const scheduler = fsrs();

/** The card of a highlight never rated. */
export function newCard(userId: string, highlightId: string, now: Date): ReviewCard {
  return { highlightId, userId, schedule: toSchedule(createEmptyCard(now)), discarded: false, skips: 0, version: 0 };
}

/**
 * `card` rated `rating` at `now`: the next card and the log entry that records it. A discard keeps
 * the schedule as it was and marks the card, so the highlight leaves every review from now on.
 */
export function rateCard(
  card: ReviewCard | null,
  rating: ReviewRating,
  now: Date,
  identity: { userId: string; highlightId: string },
): { card: ReviewCard; entry: ReviewLogEntry } {
  const current = card ?? newCard(identity.userId, identity.highlightId, now);
  const schedule =
    rating === 'discard'
      ? current.schedule
      : toSchedule(scheduler.next(toFsrs(current.schedule), now, GRADES[rating]).card);
  const next: ReviewCard = {
    ...current,
    schedule,
    discarded: current.discarded || rating === 'discard',
    version: current.version + 1,
  };
  return {
    card: next,
    entry: {
      userId: current.userId,
      highlightId: current.highlightId,
      rating,
      reviewed: now.toISOString(),
      previous: card ? card.schedule : null,
      next: schedule,
    },
  };
}

/**
 * The card a highlight's log gives, rating by rating from a new card (in time order), as a change of
 * scheduler parameters would recompute it. Skips are not ratings: the stored count is carried over.
 */
export function replayCard(entries: readonly ReviewLogEntry[], skips = 0): ReviewCard | null {
  const ordered = [...entries].sort((a, b) => a.reviewed.localeCompare(b.reviewed));
  let card: ReviewCard | null = null;
  for (const entry of ordered) card = rateCard(card, entry.rating, new Date(entry.reviewed), entry).card;
  return card && { ...card, skips };
}

/** Whether the card takes part in the schedule: rated at least once and not discarded. */
export function isScheduled(card: ReviewCard | undefined): card is ReviewCard {
  return card !== undefined && !card.discarded && card.schedule.reps > 0;
}

function toSchedule(card: Card): Schedule {
  return {
    phase: PHASES[card.state],
    due: card.due.toISOString(),
    stability: card.stability,
    difficulty: card.difficulty,
    scheduledDays: card.scheduled_days,
    learningSteps: card.learning_steps,
    reps: card.reps,
    lapses: card.lapses,
    lastReview: card.last_review ? card.last_review.toISOString() : null,
  };
}

function toFsrs(schedule: Schedule): Card {
  const lastReview = schedule.lastReview ? new Date(schedule.lastReview) : undefined;
  return {
    state: STATES[schedule.phase],
    due: new Date(schedule.due),
    stability: schedule.stability,
    difficulty: schedule.difficulty,
    // Deprecated in ts-fsrs 5 (it computes elapsed time from last_review); kept consistent with it.
    elapsed_days: 0,
    scheduled_days: schedule.scheduledDays,
    learning_steps: schedule.learningSteps,
    reps: schedule.reps,
    lapses: schedule.lapses,
    ...(lastReview ? { last_review: lastReview } : {}),
  };
}
