/**
 * What a user does with their daily review, whoever asks: the per-user API, the web app's Review
 * page and the MCP tools (`get_daily_review`, `rate_highlight`) call these with a principal and the
 * time, and get the per-user API's shapes back (api.ts). Nothing here knows HTTP. Every read is by
 * the principal's user id, so another user's highlight is as absent as one that never existed.
 */

import { parseUuidParameter, toValidationIssues } from '../contract/validation';
import type { Principal } from '../identity/principal';
import type { Highlight, Note } from '../model';
import { InvalidInputError, NotFoundError } from '../owner/library';
import type {
  DailyReviewResource,
  IssuedReviewFeedResource,
  RatingResultResource,
  ReviewFeedStatusResource,
  ReviewSettingsResource,
} from './api';
import type { ReviewCard, ReviewRating } from './card';
import type { ReviewReason } from './daily';
import type { ReviewFeedDay } from './feed';
import { currentStreak, type ReviewProgress } from './progress';
import { changeReviewSettings, type ReviewSettings } from './settings';

/** One highlight of a stored day's review (keys enough to read the highlight back). */
export interface ReviewDayItem {
  readonly highlightId: string;
  readonly noteId: string;
  readonly saved: string;
  readonly reason: ReviewReason;
}

/** A stored day's review: what it holds, and which of its highlights were rated. */
export interface ReviewDay {
  readonly date: string;
  readonly items: readonly ReviewDayItem[];
  readonly rated: readonly string[];
  /** When it was built (ISO 8601). */
  readonly created: string;
  /** Whether its unrated highlights were counted as skipped (by the build of the day after it). */
  readonly skipsCounted: boolean;
}

/** A highlight of a day's review with what a reviewer sees of it. */
export interface ReviewEntry {
  readonly highlight: Highlight;
  readonly note: Pick<Note, 'id' | 'title' | 'url' | 'tags'>;
  readonly reason: ReviewReason;
  readonly rated: boolean;
}

/** The review's storage (functions/adapters/dynamo/review-store.ts). */
export interface ReviewStore {
  getSettings(userId: string): Promise<ReviewSettings>;
  saveSettings(userId: string, settings: ReviewSettings): Promise<void>;
  getProgress(userId: string): Promise<ReviewProgress>;
  /** The day's review `now` falls on in the user's time zone: built on its first read, then the same. */
  reviewDay(userId: string, now: Date, settings?: ReviewSettings): Promise<ReviewDay>;
  reviewEntries(userId: string, day: ReviewDay): Promise<ReviewEntry[]>;
  /** Null when the highlight is not the user's. */
  rate(
    userId: string,
    highlightId: string,
    rating: ReviewRating,
    now: Date,
  ): Promise<{ card: ReviewCard; progress: ReviewProgress } | null>;
  /** A new feed secret; the one before stops working. */
  issueFeedSecret(userId: string, now: Date): Promise<string>;
  revokeFeedSecret(userId: string): Promise<void>;
  /** When the current feed secret was issued; null when there is none. */
  feedSecretIssued(userId: string): Promise<string | null>;
  userOfFeedSecret(secret: string): Promise<string | null>;
  feedDays(userId: string, now: Date, limit: number): Promise<ReviewFeedDay[]>;
}

export interface ReviewPorts {
  readonly review: ReviewStore;
}

/** Where the review feed and the review page are read (the caller knows the service's address). */
export interface ReviewLinks {
  readonly feed: (secret: string) => string;
  readonly reviewPage: string;
}

/** Days the review feed lists, newest first: about two weeks of a feed reader's unread items. */
const FEED_DAYS = 14;

/** The principal's review for the day `now` falls on in their time zone, with their streak and count. */
export async function getDailyReview(
  ports: ReviewPorts,
  principal: Principal,
  now: Date,
): Promise<DailyReviewResource> {
  const { userId } = principal;
  const settings = await ports.review.getSettings(userId);
  const [day, progress] = await Promise.all([
    ports.review.reviewDay(userId, now, settings),
    ports.review.getProgress(userId),
  ]);
  const entries = await ports.review.reviewEntries(userId, day);
  return {
    date: day.date,
    time_zone: settings.timeZone,
    items: entries.map((entry, index) => ({
      highlight_id: entry.highlight.id,
      position: index + 1,
      text: entry.highlight.quote,
      comment: entry.highlight.comment,
      note_id: entry.note.id,
      note_title: entry.note.title,
      source_url: entry.note.url,
      reason: entry.reason,
      rated: entry.rated,
    })),
    completed: entries.every((entry) => entry.rated),
    streak: currentStreak(progress, day.date),
    reviews_done: progress.count,
  };
}

/**
 * Rates one of the principal's highlights (in today's review or not): its next due date, or null once
 * discarded. A rating that is none of the five is a 422 issue under `body.rating`; a highlight that is
 * not the principal's is not found.
 */
export async function rateHighlight(
  ports: ReviewPorts,
  principal: Principal,
  highlightId: string,
  rating: string,
  now: Date,
): Promise<RatingResultResource> {
  // The API's own check, so every caller (a body, an MCP tool's argument) gets the same 422 issues;
  // its schemas load with the first rating, not at a cold start.
  const { ratingRequestSchema } = await import('./api');
  const parsed = ratingRequestSchema.safeParse({ rating }, { reportInput: true });
  if (!parsed.success) throw new InvalidInputError(toValidationIssues('body', parsed.error.issues));
  // Highlight ids are UUIDs: anything else names no highlight (as another user's id does).
  const id = parseUuidParameter('highlight_id', highlightId);
  const rated = id.ok && (await ports.review.rate(principal.userId, id.value, parsed.data.rating, now));
  if (!rated) throw new NotFoundError('No such highlight');
  return {
    highlight_id: id.value,
    rating: parsed.data.rating,
    next_due: rated.card.discarded ? null : rated.card.schedule.due,
    streak: rated.progress.streak,
    reviews_done: rated.progress.count,
  };
}

export async function getReviewSettings(ports: ReviewPorts, principal: Principal): Promise<ReviewSettingsResource> {
  return settingsResource(await ports.review.getSettings(principal.userId));
}

/** Applies the fields of `change` that are present (snake_case, as the API names them); 422 issues otherwise. */
export async function editReviewSettings(
  ports: ReviewPorts,
  principal: Principal,
  change: Record<string, unknown>,
): Promise<ReviewSettingsResource> {
  const current = await ports.review.getSettings(principal.userId);
  const changed = changeReviewSettings(current, change);
  if (!changed.ok) throw new InvalidInputError(changed.issues);
  await ports.review.saveSettings(principal.userId, changed.settings);
  return settingsResource(changed.settings);
}

export async function getReviewFeedStatus(ports: ReviewPorts, principal: Principal): Promise<ReviewFeedStatusResource> {
  const issued = await ports.review.feedSecretIssued(principal.userId);
  return { active: issued !== null, issued };
}

/** A new secret address for the principal's review feed, shown this once; the address before stops working. */
export async function issueReviewFeed(
  ports: ReviewPorts,
  principal: Principal,
  links: Pick<ReviewLinks, 'feed'>,
  now: Date,
): Promise<IssuedReviewFeedResource> {
  const secret = await ports.review.issueFeedSecret(principal.userId, now);
  return { url: links.feed(secret), issued: now.toISOString() };
}

export async function revokeReviewFeed(ports: ReviewPorts, principal: Principal): Promise<void> {
  await ports.review.revokeFeedSecret(principal.userId);
}

/** The RSS document of the review feed whose secret address this is; null for any other (revoked) secret. */
export async function reviewFeedDocument(
  ports: ReviewPorts,
  secret: string,
  links: ReviewLinks,
  now: Date,
): Promise<string | null> {
  const userId = await ports.review.userOfFeedSecret(secret);
  if (!userId) return null;
  const days = await ports.review.feedDays(userId, now, FEED_DAYS);
  // The RSS renderer (xmlbuilder2, markdown-it) loads on the feed's first read, not at every cold
  // start of the functions that serve the review's pages and API.
  const { renderReviewFeed } = await import('./feed');
  return renderReviewFeed(userId, days, { selfUrl: links.feed(secret), reviewPageUrl: links.reviewPage });
}

function settingsResource(settings: ReviewSettings): ReviewSettingsResource {
  return {
    size: settings.size,
    time_zone: settings.timeZone,
    favoured_tags: [...settings.favouredTags],
    muted_tags: [...settings.mutedTags],
  };
}
