/** Cuts to at most `max` UTF-16 units without splitting a surrogate pair. */
export function truncate(value: string, max: number): string {
  if (value.length <= max) return value;
  const cut = value.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** ISO 8601 with an explicit offset (`+00:00`), as the contract's date-time fields are written. */
export function isoTimestamp(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}
