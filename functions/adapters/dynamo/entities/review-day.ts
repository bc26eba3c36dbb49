import * as z from 'zod/mini';
import type { ReviewDay, ReviewDayItem } from '../../../core/review/use-cases';
import { keys, TTL_ATTRIBUTE } from '../keys';
import { itemCodec } from './codec';

/**
 * A user's review of one local day, as built on the day's first read, in the user's partition, and
 * expiring at `expiresAt` (epoch seconds). A rating adds to its `rated` set; the next day's build sets
 * `skipsCounted`.
 */
export function reviewDayItem(userId: string, day: Pick<ReviewDay, 'date' | 'items' | 'created'>, expiresAt: number) {
  return {
    ...keys.reviewDay(userId, day.date),
    type: 'ReviewDay',
    date: day.date,
    items: day.items,
    created: day.created,
    [TTL_ATTRIBUTE]: expiresAt,
  };
}

const decodeReviewDay = itemCodec('ReviewDay', () =>
  z.object({
    date: z.string(),
    items: z.array(
      z.object({
        highlightId: z.string(),
        noteId: z.string(),
        saved: z.string(),
        reason: z.enum(['due', 'resurfaced']),
      }),
    ),
    rated: z.optional(z.set(z.string())),
    created: z.string(),
    skipsCounted: z.optional(z.boolean()),
  }),
);

/** A day item as the day's review; MalformedItemError when it is not one. */
export function readReviewDay(item: Record<string, unknown>): ReviewDay {
  const stored = decodeReviewDay(item);
  const items: readonly ReviewDayItem[] = stored.items;
  return {
    date: stored.date,
    items,
    rated: [...(stored.rated ?? [])],
    created: stored.created,
    skipsCounted: stored.skipsCounted === true,
  };
}
