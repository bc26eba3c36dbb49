/**
 * The spaced-repetition scheduler of highlights: one FSRS card per highlight (`ts-fsrs`, default
 * parameters, so no fuzz: the same ratings at the same times give the same card). Loaded only where a
 * review is rated or a card recomputed (card.ts holds the card as data). Pure: no AWS, no I/O.
 */
import { type Card, fsrs, type Grade, Rating, State } from 'ts-fsrs';
import {
  type CardPhase,
  newCard,
  type ReviewCard,
  type ReviewLogEntry,
  type ReviewRating,
  type Schedule,
} from './card';

const GRADES: Record<Exclude<ReviewRating, 'discard'>, Grade> = {
  again: Rating.Again,
  hard: Rating.Hard,
  good: Rating.Good,
  easy: Rating.Easy,
};

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

const scheduler = fsrs();

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
