import * as z from 'zod/mini';
import type { ReviewLogEntry } from '../../../core/review/card';
import { keys } from '../keys';
import { itemCodec } from './codec';
import { ratingSchema, scheduleSchema } from './review-card';

/** One rating in the append-only review log: in its user's partition, a highlight's entries together in time order. */
export function reviewLogItem(entry: ReviewLogEntry) {
  return { ...keys.reviewLogEntry(entry.userId, entry.highlightId, entry.reviewed), type: 'ReviewLog', ...entry };
}

const decodeLogEntry = itemCodec('ReviewLog', () =>
  z.object({
    userId: z.string(),
    highlightId: z.string(),
    rating: ratingSchema(),
    reviewed: z.string(),
    previous: z.nullable(scheduleSchema()),
    next: scheduleSchema(),
  }),
);

/** A log item as the log entry; MalformedItemError when it is not one. */
export function readReviewLogEntry(item: Record<string, unknown>): ReviewLogEntry {
  const { userId, highlightId, rating, reviewed, previous, next } = decodeLogEntry(item);
  return { userId, highlightId, rating, reviewed, previous, next };
}
