/**
 * A user's review settings: how many highlights a day, in which time zone the day turns, and the
 * tags whose highlights come back more often (favoured) or never (muted). Pure: no AWS, no I/O.
 */
import type { ValidationIssue } from '../contract/validation';
import { normalizeTag } from '../save/hashtags';

export interface ReviewSettings {
  /** Highlights in a day's review. */
  readonly size: number;
  /** IANA time zone the review's calendar day is taken in. */
  readonly timeZone: string;
  readonly favouredTags: readonly string[];
  readonly mutedTags: readonly string[];
}

export const REVIEW_SIZE = { min: 3, max: 15, default: 5 } as const;
export const REVIEW_SIZE_MESSAGE = `Input should be an integer from ${REVIEW_SIZE.min} to ${REVIEW_SIZE.max}`;
/** Tags in each list; more would only be noise in the weights (and keep the settings item small). */
export const MAX_LISTED_TAGS = 50;

export const DEFAULT_REVIEW_SETTINGS: ReviewSettings = {
  size: REVIEW_SIZE.default,
  timeZone: 'UTC',
  favouredTags: [],
  mutedTags: [],
};

/** Whether `name` is an IANA time zone this runtime knows (aliases such as `US/Samoa` included). */
function isTimeZone(name: string): boolean {
  if (!name) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * `change` applied to `current`: sizes outside 3–15, unknown time zones and tags that are no tag are
 * issues in the contract's 422 form (under `body`); a tag named in both lists is an issue too.
 */
export function changeReviewSettings(
  current: ReviewSettings,
  change: Record<string, unknown>,
): { ok: true; settings: ReviewSettings } | { ok: false; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  let { size, timeZone, favouredTags, mutedTags } = current;
  if ('size' in change) {
    const value = change.size;
    if (Number.isInteger(value) && (value as number) >= REVIEW_SIZE.min && (value as number) <= REVIEW_SIZE.max)
      size = value as number;
    else
      issues.push({
        loc: ['body', 'size'],
        msg: REVIEW_SIZE_MESSAGE,
        type: 'review_size',
      });
  }
  if ('time_zone' in change) {
    const value = change.time_zone;
    if (typeof value === 'string' && isTimeZone(value)) timeZone = value;
    else issues.push({ loc: ['body', 'time_zone'], msg: 'Input should be an IANA time zone', type: 'time_zone' });
  }
  const tagList = (field: 'favoured_tags' | 'muted_tags', fallback: readonly string[]) => {
    if (!(field in change)) return fallback;
    const value = change[field];
    const tags = Array.isArray(value)
      ? value.map((tag) => (typeof tag === 'string' ? normalizeTag(tag.replace(/^#/, '')) : null))
      : null;
    if (!tags || tags.includes(null) || tags.length > MAX_LISTED_TAGS) {
      issues.push({
        loc: ['body', field],
        msg: `Input should be a list of at most ${MAX_LISTED_TAGS} tags`,
        type: 'tags',
      });
      return fallback;
    }
    return [...new Set(tags as string[])];
  };
  favouredTags = tagList('favoured_tags', favouredTags);
  mutedTags = tagList('muted_tags', mutedTags);
  if (favouredTags.some((tag) => mutedTags.includes(tag)))
    issues.push({ loc: ['body', 'muted_tags'], msg: 'A tag cannot be both favoured and muted', type: 'tags' });
  return issues.length > 0
    ? { ok: false, issues }
    : { ok: true, settings: { size, timeZone, favouredTags, mutedTags } };
}
