/**
 * The day's review: which highlights a user reviews on a calendar day of their time zone. Pure: no
 * AWS, no I/O.
 *
 * Due cards come first (most overdue first), then a weighted resurfacing of highlights never rated
 * or not seen for long. Resurfacing draws without replacement with Efraimidis–Spirakis keys
 * (`u^(1/weight)`, largest first) whose `u` is a hash of the user, the local date and the highlight:
 * the same state on the same local day gives the same review, whatever order the highlights come in.
 */
import { isScheduled, type ReviewCard } from './card';
import type { ReviewSettings } from './settings';

/** A highlight as the review builder sees it: when it was saved and its note's tags. */
export interface ReviewCandidate {
  readonly highlightId: string;
  readonly noteId: string;
  /** ISO 8601. */
  readonly saved: string;
  readonly tags: readonly string[];
}

export type ReviewReason = 'due' | 'resurfaced';

export interface DailyReview {
  /** The user's calendar day it is for (`YYYY-MM-DD` in their time zone). */
  readonly date: string;
  readonly items: readonly { readonly highlightId: string; readonly reason: ReviewReason }[];
}

const DAY_MS = 86_400_000;
/** A highlight rated before comes back by resurfacing once it has not been seen for this long. */
const RESURFACE_AFTER_DAYS = 30;
/** Newly saved highlights come back more often: their extra weight halves every this many days. */
const RECENCY_HALF_LIFE_DAYS = 30;
/** A favoured tag multiplies a highlight's weight by this. */
const FAVOURED_WEIGHT = 3;

/** One formatter per time zone: building one costs far more than formatting with it. */
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date (`YYYY-MM-DD`) of `instant` in the IANA time zone `timeZone`. */
export function localDate(instant: Date, timeZone: string): string {
  let format = dateFormats.get(timeZone);
  if (!format) {
    // en-CA writes dates as YYYY-MM-DD.
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dateFormats.set(timeZone, format);
  }
  return format.format(instant);
}

/**
 * The review of `userId` for the local day `now` falls on: a function of the user, that date and the
 * highlights and cards only. `cards` holds the cards of highlights rated or skipped before (by
 * highlight id); a highlight without one was never rated.
 */
export function buildDailyReview(input: {
  readonly userId: string;
  readonly now: Date;
  readonly settings: ReviewSettings;
  readonly highlights: readonly ReviewCandidate[];
  readonly cards: ReadonlyMap<string, ReviewCard>;
}): DailyReview {
  const { userId, now, settings, highlights, cards } = input;
  const date = localDate(now, settings.timeZone);
  // Weights are taken at the local day's noon (UTC reading), not at `now`: every read of the day agrees.
  const dayInstant = new Date(`${date}T12:00:00Z`);
  const muted = new Set(settings.mutedTags);
  const favoured = new Set(settings.favouredTags);
  const eligible = uniqueById(highlights).filter(
    (highlight) => !cards.get(highlight.highlightId)?.discarded && !highlight.tags.some((tag) => muted.has(tag)),
  );

  // Due today in the user's calendar, not only by this instant: a card due this afternoon is today's.
  const due = eligible
    .flatMap((highlight) => {
      const card = cards.get(highlight.highlightId);
      return isScheduled(card) && localDate(new Date(card.schedule.due), settings.timeZone) <= date
        ? [{ highlightId: highlight.highlightId, due: card.schedule.due }]
        : [];
    })
    .sort((a, b) => a.due.localeCompare(b.due) || a.highlightId.localeCompare(b.highlightId))
    .slice(0, settings.size);

  const chosen = new Set(due.map((item) => item.highlightId));
  const resurfaced = eligible
    .flatMap((highlight) => {
      if (chosen.has(highlight.highlightId)) return [];
      const weight = resurfacingWeight(highlight, cards.get(highlight.highlightId), favoured, dayInstant);
      return weight > 0 ? [{ highlightId: highlight.highlightId, key: drawKey(userId, date, highlight, weight) }] : [];
    })
    .sort((a, b) => b.key - a.key || a.highlightId.localeCompare(b.highlightId))
    .slice(0, settings.size - due.length);

  return {
    date,
    items: [
      ...due.map(({ highlightId }) => ({ highlightId, reason: 'due' as const })),
      ...resurfaced.map(({ highlightId }) => ({ highlightId, reason: 'resurfaced' as const })),
    ],
  };
}

/**
 * How strongly a highlight is resurfaced (0: not at all). Never rated: 1, plus up to 2 more for a
 * recent save (recency). Rated before: only once not seen for `RESURFACE_AFTER_DAYS`, growing with
 * the time since (up to 3). Divided by one more than its skips, tripled by a favoured tag.
 */
function resurfacingWeight(
  highlight: ReviewCandidate,
  card: ReviewCard | undefined,
  favoured: ReadonlySet<string>,
  now: Date,
): number {
  const daysSince = (iso: string) => Math.max(0, (now.getTime() - Date.parse(iso)) / DAY_MS);
  let recency: number;
  if (!card?.schedule.lastReview) recency = 1 + 2 * 0.5 ** (daysSince(highlight.saved) / RECENCY_HALF_LIFE_DAYS);
  else {
    const unseen = daysSince(card.schedule.lastReview);
    if (unseen < RESURFACE_AFTER_DAYS) return 0;
    recency = Math.min(3, unseen / RESURFACE_AFTER_DAYS);
  }
  const tagFactor = highlight.tags.some((tag) => favoured.has(tag)) ? FAVOURED_WEIGHT : 1;
  return (recency * tagFactor) / (1 + (card?.skips ?? 0));
}

/** The Efraimidis–Spirakis key `u^(1/weight)`, with `u` in (0, 1) fixed by user, day and highlight. */
function drawKey(userId: string, date: string, highlight: ReviewCandidate, weight: number): number {
  const u = (hash53(`${userId}\n${date}\n${highlight.highlightId}`) + 1) / (2 ** 53 + 1);
  return u ** (1 / weight);
}

/**
 * A well-mixed 53-bit hash of a string (cyrb53): uniform enough to draw with and ten times cheaper
 * than SHA-256 at 10,000 highlights. Nothing secret depends on it.
 */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ char, 2654435761);
    h2 = Math.imul(h2 ^ char, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 2 ** 21 * (h2 >>> 0) + (h1 >>> 11);
}

function uniqueById(highlights: readonly ReviewCandidate[]): ReviewCandidate[] {
  const seen = new Set<string>();
  return highlights.filter((highlight) => !seen.has(highlight.highlightId) && seen.add(highlight.highlightId));
}
