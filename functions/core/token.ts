import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Personal access tokens, GitHub-style: `gln_` + 30 random base62 characters + a 6-character base62
 * CRC32 of them. The checksum lets a typo or a scanner's guess be rejected without a database call;
 * only the SHA-256 of a token is ever stored.
 */
export const TOKEN_PREFIX = 'gln';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const TOKEN_PATTERN = new RegExp(`^${TOKEN_PREFIX}_([0-9A-Za-z]{${RANDOM_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);

export function mintToken(): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(BASE62.length)];
  return `${TOKEN_PREFIX}_${random}${checksum(random)}`;
}

/** True when the string has the token's shape and its checksum matches. */
export function isWellFormedToken(token: string): boolean {
  const match = TOKEN_PATTERN.exec(token);
  return !!match && checksum(match[1]!) === match[2];
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The token from an `Authorization: Bearer …` header value, or null when the header has another form. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return match ? match[1]! : null;
}

function checksum(random: string): string {
  let value = crc32(random);
  let encoded = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    encoded = BASE62[value % 62] + encoded;
    value = Math.floor(value / 62);
  }
  return encoded;
}
