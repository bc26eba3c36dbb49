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
