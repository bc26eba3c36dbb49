/**
 * What a user sees of their reviewing: how many ratings they gave, and their streak (consecutive
 * calendar days of their time zone with at least one). Pure: no AWS, no I/O.
 */

import type { ReviewLogEntry } from './card';
import { localDate } from './daily';

export interface ReviewProgress {
  /** Ratings given, discards included. */
  readonly count: number;
  /** Consecutive days with a rating, ending on `lastDay`. */
  readonly streak: number;
  /** The last local day with a rating (`YYYY-MM-DD`); null before the first. */
  readonly lastDay: string | null;
}

export const NO_PROGRESS: ReviewProgress = { count: 0, streak: 0, lastDay: null };

/** `progress` after one more rating on the local day `day` (an earlier day, after a time-zone change, only counts). */
export function recordReview(progress: ReviewProgress, day: string): ReviewProgress {
  if (progress.lastDay !== null && day < progress.lastDay) return { ...progress, count: progress.count + 1 };
  const streak =
    progress.lastDay === day ? progress.streak : progress.lastDay === dayBefore(day) ? progress.streak + 1 : 1;
  return { count: progress.count + 1, streak, lastDay: day };
}

/** The streak as of `today`: it still stands until a whole day passes without a rating. */
export function currentStreak(progress: ReviewProgress, today: string): number {
  return progress.lastDay === today || progress.lastDay === dayBefore(today) ? progress.streak : 0;
}

/** The progress a whole review log gives, each rating dated in `timeZone`. */
export function progressOfLog(entries: readonly ReviewLogEntry[], timeZone: string): ReviewProgress {
  return [...entries]
    .sort((a, b) => a.reviewed.localeCompare(b.reviewed))
    .reduce((progress, entry) => recordReview(progress, localDate(new Date(entry.reviewed), timeZone)), NO_PROGRESS);
}

function dayBefore(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}
