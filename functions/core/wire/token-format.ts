// crc-32 is CommonJS whose named exports Node's ESM loader cannot see (npm start, the CLI): take the default.
import CRC32 from 'crc-32';

/**
 * The shape of a personal access token, GitHub-style: `gln_` + 30 random base62 characters + a
 * 6-character base62 CRC32 of them. The checksum lets a typo or a scanner's guess be rejected without
 * a database call. Shared by the server and the browser extension (which checks a pasted token with
 * the same rule before it stores it), so it imports nothing but crc-32.
 */
export const TOKEN_PREFIX = 'gln';

export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const TOKEN_RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const TOKEN_PATTERN = new RegExp(
  `^${TOKEN_PREFIX}_([0-9A-Za-z]{${TOKEN_RANDOM_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);

export type TokenProblem = 'prefix' | 'shape' | 'checksum';

/** Why a string is not a token, or null when it has the token's shape and its checksum matches. */
export function tokenProblem(token: string): TokenProblem | null {
  if (!token.startsWith(`${TOKEN_PREFIX}_`)) return 'prefix';
  const match = TOKEN_PATTERN.exec(token);
  if (!match) return 'shape';
  return tokenChecksum(match[1]!) === match[2] ? null : 'checksum';
}

/** True when the string has the token's shape and its checksum matches. */
export function isWellFormedToken(token: string): boolean {
  return tokenProblem(token) === null;
}

/** The checksum part of a token: the CRC32 of its random part, in base62. */
export function tokenChecksum(random: string): string {
  let value = CRC32.str(random) >>> 0;
  let encoded = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    encoded = BASE62_ALPHABET[value % 62] + encoded;
    value = Math.floor(value / 62);
  }
  return encoded;
}
