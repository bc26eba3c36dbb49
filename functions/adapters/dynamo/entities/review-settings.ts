import * as z from 'zod/mini';
import { NO_PROGRESS, type ReviewProgress } from '../../../core/review/progress';
import { DEFAULT_REVIEW_SETTINGS, type ReviewSettings } from '../../../core/review/settings';
import { keys } from '../keys';
import { itemCodec } from './codec';

/**
 * A user's review records, one item each in the user's partition: the settings, the progress
 * (count and streak) and the review feed's secret (its hash, and when it was issued).
 */

export function reviewSettingsItem(userId: string, settings: ReviewSettings) {
  return { ...keys.reviewSettings(userId), type: 'ReviewSettings', settings };
}

const decodeSettings = itemCodec('ReviewSettings', () =>
  z.object({
    settings: z.object({
      size: z.number(),
      timeZone: z.string(),
      favouredTags: z.array(z.string()),
      mutedTags: z.array(z.string()),
    }),
  }),
);

/** The settings a settings item holds; the defaults when there is none (undefined). */
export function readReviewSettings(item: Record<string, unknown> | undefined): ReviewSettings {
  return item ? decodeSettings(item).settings : DEFAULT_REVIEW_SETTINGS;
}

export function reviewProgressItem(userId: string, progress: ReviewProgress) {
  return { ...keys.reviewProgress(userId), type: 'ReviewProgress', progress };
}

const decodeProgress = itemCodec('ReviewProgress', () =>
  z.object({ progress: z.object({ count: z.number(), streak: z.number(), lastDay: z.nullable(z.string()) }) }),
);

/** The progress a progress item holds; none yet when there is no item (undefined). */
export function readReviewProgress(item: Record<string, unknown> | undefined): ReviewProgress {
  return item ? decodeProgress(item).progress : NO_PROGRESS;
}

export function reviewFeedItem(userId: string, secretHash: string, issued: string) {
  return { ...keys.reviewFeed(userId), type: 'ReviewFeed', secretHash, issued };
}

const decodeFeedSecret = itemCodec('ReviewFeed', () =>
  z.object({ secretHash: z.optional(z.string()), issued: z.optional(z.string()) }),
);

/** The review feed's current secret (its hash) and when it was issued; nulls when it has none (revoked, or never issued). */
export function readReviewFeed(item: Record<string, unknown> | undefined): {
  secretHash: string | null;
  issued: string | null;
} {
  const stored = item ? decodeFeedSecret(item) : {};
  return stored.secretHash
    ? { secretHash: stored.secretHash, issued: stored.issued ?? null }
    : { secretHash: null, issued: null };
}
