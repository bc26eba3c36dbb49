import * as z from 'zod/mini';
import { newCard, REVIEW_RATINGS, type ReviewCard, type Schedule } from '../../../core/review/card';
import { keys } from '../keys';
import type { TransactionAction } from '../transactions';
import { itemCodec } from './codec';

/**
 * A highlight's review card, in its user's partition. It is only ever updated, never put whole: a
 * skip adds to it (the card may not exist yet), a rating sets its schedule conditional on its version.
 */

/**
 * An update of the card, which also sets its names (a card first written by a skip has only these and
 * its skips): `change` adds to the SET (after a comma) or to the whole expression (an ADD).
 */
function cardUpdate(
  TableName: string,
  card: Pick<ReviewCard, 'userId' | 'highlightId'>,
  noteId: string,
  change: { expression: string; values: Record<string, unknown>; condition?: string },
): TransactionAction {
  return {
    Update: {
      TableName,
      Key: keys.reviewCard(card.userId, card.highlightId),
      UpdateExpression: `SET #type = :type, userId = :user, highlightId = :highlight, noteId = :note${change.expression}`,
      ...(change.condition ? { ConditionExpression: change.condition } : {}),
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':type': 'ReviewCard',
        ':user': card.userId,
        ':highlight': card.highlightId,
        ':note': noteId,
        ...change.values,
      },
    },
  };
}

/** Counts a day the highlight was in the review and not rated. */
export function cardSkipUpdate(
  TableName: string,
  card: Pick<ReviewCard, 'userId' | 'highlightId'>,
  noteId: string,
): TransactionAction {
  return cardUpdate(TableName, card, noteId, { expression: ' ADD skips :one', values: { ':one': 1 } });
}

/** Writes a rated card's schedule, conditional on the card being still at `previousVersion` (0: never rated). */
export function cardRatingUpdate(
  TableName: string,
  card: ReviewCard,
  noteId: string,
  previousVersion: number,
): TransactionAction {
  return cardUpdate(TableName, card, noteId, {
    expression: ', schedule = :schedule, discarded = :discarded, version = :next',
    condition: previousVersion ? 'version = :version' : 'attribute_not_exists(version)',
    values: {
      ':schedule': card.schedule,
      ':discarded': card.discarded,
      ':next': card.version,
      ...(previousVersion ? { ':version': previousVersion } : {}),
    },
  });
}

/** A card's schedule as stored (the card as data, core/review/card.ts). */
export const scheduleSchema = () =>
  z.object({
    phase: z.enum(['new', 'learning', 'review', 'relearning']),
    due: z.string(),
    stability: z.number(),
    difficulty: z.number(),
    scheduledDays: z.number(),
    learningSteps: z.number(),
    reps: z.number(),
    lapses: z.number(),
    lastReview: z.nullable(z.string()),
  });

/** A rating as stored. */
export const ratingSchema = () => z.enum(REVIEW_RATINGS);

const decodeCard = itemCodec('ReviewCard', () =>
  z.object({
    userId: z.string(),
    highlightId: z.string(),
    schedule: z.optional(scheduleSchema()),
    discarded: z.optional(z.boolean()),
    skips: z.optional(z.number()),
    version: z.optional(z.number()),
  }),
);

/** A card item; one holding only skips (never rated) reads as a new card with those skips. */
export function readReviewCard(item: Record<string, unknown>): ReviewCard {
  const stored = decodeCard(item);
  const schedule: Schedule = stored.schedule ?? newCard(stored.userId, stored.highlightId, new Date(0)).schedule;
  return {
    highlightId: stored.highlightId,
    userId: stored.userId,
    schedule,
    discarded: stored.discarded === true,
    skips: stored.skips ?? 0,
    version: stored.version ?? 0,
  };
}
