import { createHash, randomInt } from 'node:crypto';
import { BASE62_ALPHABET, TOKEN_PREFIX, TOKEN_RANDOM_LENGTH, tokenChecksum } from '../wire/token-format';

/**
 * Personal access tokens on the server: minting and hashing (the format itself, shared with the
 * browser extension, is in core/wire/token-format.ts). Only the SHA-256 of a token is ever stored.
 */

export function mintToken(): string {
  let random = '';
  for (let i = 0; i < TOKEN_RANDOM_LENGTH; i++) random += BASE62_ALPHABET[randomInt(BASE62_ALPHABET.length)];
  return `${TOKEN_PREFIX}_${random}${tokenChecksum(random)}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The token from an `Authorization: Bearer …` header value, or null when the header has another form. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return match ? match[1]! : null;
}
