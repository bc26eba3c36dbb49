/** Email addresses as accounts know them: trimmed, compared case-insensitively, shaped like an address. */

const EMAIL_MAX_LENGTH = 254;

/** The address in the form stored and looked up, or null when it does not look like one. */
export function normalizeEmail(input: string): string | null {
  const email = input.trim().toLowerCase();
  if (email.length > EMAIL_MAX_LENGTH) return null;
  return /^[^\s@<>()",;:\\[\]]+@[^\s@<>()",;:\\[\]]+\.[^\s@<>()",;:\\[\].]{2,}$/.test(email) ? email : null;
}
