import * as z from 'zod/mini';
import { ownerApiSchemas } from '../owner/api';
import { TAG_MAX_LENGTH } from '../save/hashtags';
import { REVIEW_RATINGS } from './card';
import { MAX_LISTED_TAGS, REVIEW_SIZE, REVIEW_SIZE_MESSAGE } from './settings';

/**
 * The daily review's bodies in the per-user API (`/api/v2/me/review…`), as zod schemas registered
 * with the owner API's: the handler parses requests with them, `/openapi/v2.json` is generated from
 * them, and the use cases (use-cases.ts, shared by the API, the web app and MCP) answer in their shape.
 */

const uuid = z.guid();
const dateTime = z.iso.datetime({ offset: true });
const tag = z.string().check(z.minLength(1), z.maxLength(TAG_MAX_LENGTH));

const reviewItemSchema = z
  .object({
    highlight_id: uuid,
    position: z.int().check(z.minimum(1)),
    text: z.string(),
    comment: z.nullable(z.string()),
    note_id: uuid,
    note_title: z.string(),
    source_url: z.nullable(z.url()),
    reason: z.enum(['due', 'resurfaced']),
    rated: z.boolean(),
  })
  .register(ownerApiSchemas, {
    id: 'ReviewItem',
    description:
      'A highlight of the day’s review: its text and comment, its note’s title and source URL, its position in the review (from 1), why it is there (due under the schedule, or resurfaced), and whether it was rated today.',
  });

export const dailyReviewSchema = z
  .object({
    date: z.iso.date(),
    time_zone: z.string(),
    items: z.array(reviewItemSchema),
    completed: z.boolean(),
    streak: z.int().check(z.nonnegative()),
    reviews_done: z.int().check(z.nonnegative()),
  })
  .register(ownerApiSchemas, {
    id: 'DailyReview',
    description:
      'The review of the user’s calendar day (`date` in `time_zone`): every read that day returns the same highlights. `completed` once each is rated; `streak` counts consecutive days with a rating, `reviews_done` every rating given.',
  });

const rating = z.enum(REVIEW_RATINGS, {
  error: `Input should be ${REVIEW_RATINGS.slice(0, -1)
    .map((name) => `'${name}'`)
    .join(', ')} or '${REVIEW_RATINGS.at(-1)}'`,
});

export const ratingRequestSchema = z.object({ rating }).register(ownerApiSchemas, {
  id: 'ReviewRatingRequest',
  description: 'How well the highlight was remembered (again, hard, good, easy), or `discard`: never show it again.',
});

export const ratingResultSchema = z
  .object({
    highlight_id: uuid,
    rating,
    next_due: z.nullable(dateTime),
    streak: z.int().check(z.nonnegative()),
    reviews_done: z.int().check(z.nonnegative()),
  })
  .register(ownerApiSchemas, {
    id: 'ReviewRatingResult',
    description: 'When the highlight is due next (null once discarded), and the streak and count after this rating.',
  });

const tagList = z.array(tag).check(z.maxLength(MAX_LISTED_TAGS));

const reviewSettingsSchema = z
  .object({
    size: z
      .int()
      .check(
        z.minimum(REVIEW_SIZE.min, { error: REVIEW_SIZE_MESSAGE }),
        z.maximum(REVIEW_SIZE.max, { error: REVIEW_SIZE_MESSAGE }),
      ),
    time_zone: z.string(),
    favoured_tags: tagList,
    muted_tags: tagList,
  })
  .register(ownerApiSchemas, {
    id: 'ReviewSettings',
    description:
      'Highlights in a day’s review, the IANA time zone its day turns in, tags whose highlights come back more often (favoured) or never (muted).',
  });

export const reviewSettingsEditSchema = z.partial(reviewSettingsSchema).register(ownerApiSchemas, {
  id: 'ReviewSettingsEdit',
  description: 'What to change; absent fields stay. A tag cannot be both favoured and muted.',
});

const reviewFeedStatusSchema = z
  .object({ active: z.boolean(), issued: z.nullable(dateTime) })
  .register(ownerApiSchemas, {
    id: 'ReviewFeedStatus',
    description: 'Whether the private review feed has an address, and since when (the address itself is shown once).',
  });

const issuedReviewFeedSchema = z.object({ url: z.url(), issued: dateTime }).register(ownerApiSchemas, {
  id: 'IssuedReviewFeed',
  description:
    'The review feed’s new secret address, shown this once (only its hash is kept); the address before stops working.',
});

export type DailyReviewResource = z.infer<typeof dailyReviewSchema>;
export type RatingResultResource = z.infer<typeof ratingResultSchema>;
export type ReviewSettingsResource = z.infer<typeof reviewSettingsSchema>;
export type ReviewFeedStatusResource = z.infer<typeof reviewFeedStatusSchema>;
export type IssuedReviewFeedResource = z.infer<typeof issuedReviewFeedSchema>;
