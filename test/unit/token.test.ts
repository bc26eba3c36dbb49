import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bearerToken, hashToken, mintToken } from '../../functions/core/token/token';
import { isWellFormedToken, TOKEN_PREFIX, tokenChecksum, tokenProblem } from '../../functions/core/wire/token-format';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const PREFIX = `${TOKEN_PREFIX}_`;
const TOKEN_SHAPE = /^gln_[0-9A-Za-z]{36}$/;

/** Every token that differs from `token` by one base62 character at one of `positions`. */
function singleCharacterVariants(token: string, positions: number[]): string[] {
  return positions.flatMap((position) =>
    [...BASE62]
      .filter((char) => char !== token[position])
      .map((char) => token.slice(0, position) + char + token.slice(position + 1)),
  );
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('mintToken', () => {
  it('mints "gln_" followed by 36 base62 characters', () => {
    expect(TOKEN_PREFIX).toBe('gln');
    expect(mintToken()).toMatch(TOKEN_SHAPE);
  });

  it('mints distinct, well-formed tokens', () => {
    const tokens = Array.from({ length: 2_000 }, () => mintToken());
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(tokens.filter((token) => !TOKEN_SHAPE.test(token) || !isWellFormedToken(token))).toEqual([]);
  });
});

describe('isWellFormedToken', () => {
  const token = mintToken();

  it('accepts a minted token', () => {
    expect(isWellFormedToken(token)).toBe(true);
  });

  it('rejects every single-character change in the random part', () => {
    const variants = singleCharacterVariants(token, range(PREFIX.length, PREFIX.length + 30));
    expect(variants).toHaveLength(30 * 61);
    expect(variants.filter(isWellFormedToken)).toEqual([]);
  });

  it('rejects every single-character change in the checksum part', () => {
    const variants = singleCharacterVariants(token, range(PREFIX.length + 30, PREFIX.length + 36));
    expect(variants).toHaveLength(6 * 61);
    expect(variants.filter(isWellFormedToken)).toEqual([]);
  });

  it('rejects two random characters swapped', () => {
    const random = token.slice(PREFIX.length, PREFIX.length + 30);
    const i = range(0, 29).find((index) => random[index] !== random[index + 1])!;
    const swapped = random.slice(0, i) + random[i + 1] + random[i] + random.slice(i + 2);
    expect(isWellFormedToken(PREFIX + swapped + token.slice(PREFIX.length + 30))).toBe(false);
  });

  it('computes the checksum as the CRC32 (IEEE) of the random part, so tokens minted before still verify', () => {
    const random = token.slice(PREFIX.length, PREFIX.length + 30);
    let value = crc32(random);
    let expected = '';
    for (let i = 0; i < 6; i++) {
      expected = BASE62[value % 62] + expected;
      value = Math.floor(value / 62);
    }
    expect(tokenChecksum(random)).toBe(expected);
  });

  it('names what is wrong, for the extension to tell the person who pasted it', () => {
    expect(tokenProblem(token)).toBeNull();
    expect(tokenProblem(`ghp_${token.slice(PREFIX.length)}`)).toBe('prefix');
    expect(tokenProblem(token.slice(0, -1))).toBe('shape');
    expect(tokenProblem(token.slice(0, -1) + (token.endsWith('a') ? 'b' : 'a'))).toBe('checksum');
  });

  describe('rejects a wrong prefix', () => {
    const rest = token.slice(PREFIX.length);
    it.each([`ghp_${rest}`, `GLN_${rest}`, `gln-${rest}`, `gln${rest}`, rest, `xgln_${rest}`])('%s', (candidate) => {
      expect(isWellFormedToken(candidate)).toBe(false);
    });
  });

  describe('rejects a wrong length', () => {
    it.each([
      ['one character short', token.slice(0, -1)],
      ['one character long', `${token}a`],
      ['prefix only', PREFIX],
      ['empty', ''],
    ])('%s', (_, candidate) => {
      expect(isWellFormedToken(candidate)).toBe(false);
    });
  });

  describe('rejects characters outside base62', () => {
    it.each(['-', '_', '+', '/', '=', ' ', 'é', '０'])('%j in the random part', (char) => {
      expect(isWellFormedToken(token.slice(0, 10) + char + token.slice(11))).toBe(false);
    });
  });

  it('rejects surrounding white space', () => {
    expect(isWellFormedToken(` ${token}`)).toBe(false);
    expect(isWellFormedToken(`${token}\n`)).toBe(false);
  });
});

describe('hashToken', () => {
  it('is the lower-case hex SHA-256 of the token', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('is stable for a token and differs between tokens', () => {
    const [a, b] = [mintToken(), mintToken()];
    expect(hashToken(a)).toBe(hashToken(a));
    expect(hashToken(a)).not.toBe(hashToken(b));
    expect(hashToken(a)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('bearerToken', () => {
  it.each([
    ['Bearer gln_abc', 'gln_abc'],
    ['bearer gln_abc', 'gln_abc'],
    ['BEARER gln_abc', 'gln_abc'],
    ['Bearer    gln_abc', 'gln_abc'],
    ['Bearer\tgln_abc', 'gln_abc'],
    ['Bearer gln_abc  ', 'gln_abc'],
  ])('%j → %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });

  it.each([
    ['Basic dXNlcjpwYXNz'],
    ['Bearer'],
    ['Bearer '],
    ['Bearer a b'],
    ['Bearergln_abc'],
    ['Token gln_abc'],
    [''],
    [undefined],
  ])('%j → null', (header) => {
    expect(bearerToken(header)).toBeNull();
  });
});
