/**
 * Hashtags in a save comment become tags on the note: `#Reading` → `reading`.
 * A tag is letters, digits, `_` and `-` (any script), not purely numeric (`#1` is an ordinal, not a
 * tag), and never part of a URL (`https://x.test/#section`) or of a word (`C#`, `a#b`).
 */

export const TAG_MAX_LENGTH = 64;

const URL_LIKE = /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S+/giu;
const HASHTAG = /(?<![\p{L}\p{N}\p{M}_&#/-])#([\p{L}\p{N}\p{M}_-]+)/gu;

export function extractHashtags(text: string | null | undefined): string[] {
  if (!text) return [];
  const withoutUrls = text.replace(URL_LIKE, ' ');
  const tags: string[] = [];
  for (const match of withoutUrls.matchAll(HASHTAG)) {
    const tag = normalizeTag(match[1]!);
    if (tag && !tags.includes(tag)) tags.push(tag);
  }
  return tags;
}

/** Lower-cased, without trailing `-`/`_`; null when nothing tag-like remains. */
export function normalizeTag(raw: string): string | null {
  const tag = raw.toLowerCase().replace(/[-_]+$/u, '');
  if (!tag || tag.length > TAG_MAX_LENGTH || /^\p{N}+$/u.test(tag)) return null;
  return tag;
}

/** A folder name, label or listed tag as a tag: `Reading List` → `reading-list`, `#Géo` → `géo`. */
export function asTag(name: string): string | null {
  const words = name
    .trim()
    .replace(/^#/, '')
    .replace(/[^\p{L}\p{N}\p{M}_-]+/gu, '-')
    .replace(/^-+/, '');
  return words ? normalizeTag(words) : null;
}
