/** Cuts to at most `max` characters (code points, so an emoji is one and is never split). */
export function truncate(value: string, max: number): string {
  if (value.length <= max) return value;
  const characters = Array.from(value);
  return characters.length <= max ? value : characters.slice(0, max).join('');
}

/** ISO 8601 with an explicit offset (`+00:00`), as the contract's date-time fields are written. */
export function isoTimestamp(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}

/** C0 controls but tab, LF and CR; DEL; C1 controls; and U+FFFE/U+FFFF, which XML cannot carry either. */
const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** U+FFFD marks text already lost to an encoding error; feed validators flag it as a bad character. */
const REPLACEMENT_CHAR = /\uFFFD/g;

/**
 * Text as every published representation shows it, JSON and RSS alike: no control characters (a
 * NUL or an ANSI escape would reach every embed), no lone surrogates and no U+FFFD (the save path
 * stores a lone surrogate as U+FFFD). What remains is valid XML 1.0 character data that the W3C
 * feed validator finds no bad character in.
 */
export function sanitizeText(text: string): string {
  return withoutControlCharacters(text).replace(LONE_SURROGATE, '').replace(REPLACEMENT_CHAR, '');
}

/** The text without control characters (a NUL, an ANSI escape); tab and line breaks stay. */
function withoutControlCharacters(text: string): string {
  return text.replace(CONTROL_CHARS, '');
}

/**
 * Null when blank; otherwise the text without control characters (a NUL in a title; the feeds drop
 * them too) and with lone UTF-16 surrogates (valid in JSON's `\uD800`, not in Unicode) replaced by
 * U+FFFD, so everything stored and served back is valid Unicode.
 */
export function storableText(value: string | null | undefined): string | null {
  const text = value && withoutControlCharacters(value);
  return !text || text.trim() === '' ? null : text.toWellFormed();
}
