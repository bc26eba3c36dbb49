import { describe, expect, it } from 'vitest';
import { parseIdempotencyKey, requestFingerprint } from '../../functions/core/save/idempotency';

const LOC = ['header', 'idempotency-key'];

describe('parseIdempotencyKey', () => {
  it('reads no header as no key', () => {
    expect(parseIdempotencyKey([])).toEqual({ ok: true, key: null });
  });

  it.each([
    ['a bare value', '8e03978e-40d5-43e8-bc93-6894a57f9324', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
    ['an sf-string', '"8e03978e-40d5-43e8-bc93-6894a57f9324"', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
    ['an sf-string with escapes', String.raw`"say \"hi\" \\ bye"`, String.raw`say "hi" \ bye`],
    ['a bare value with spaces inside', 'order 42', 'order 42'],
    ['surrounding whitespace', '  abc\t', 'abc'],
    ['one character', 'x', 'x'],
    ['255 characters', 'k'.repeat(255), 'k'.repeat(255)],
    ['255 characters quoted', `"${'k'.repeat(255)}"`, 'k'.repeat(255)],
  ])('accepts %s', (_, value, key) => {
    expect(parseIdempotencyKey([value])).toEqual({ ok: true, key });
  });

  it('takes a bare value and its quoted form as the same key', () => {
    expect(parseIdempotencyKey(['abc'])).toEqual(parseIdempotencyKey(['"abc"']));
  });

  it.each([
    ['empty', '', 'string_too_short'],
    ['only whitespace', '   ', 'string_too_short'],
    ['an empty sf-string', '""', 'string_too_short'],
    ['256 characters', 'k'.repeat(256), 'string_too_long'],
    ['256 characters quoted', `"${'k'.repeat(256)}"`, 'string_too_long'],
    ['an unterminated sf-string', '"abc', 'string_pattern_mismatch'],
    ['text after an sf-string', '"abc"def', 'string_pattern_mismatch'],
    ['an unescaped quote inside an sf-string', '"a"b"', 'string_pattern_mismatch'],
    ['a stray backslash in an sf-string', String.raw`"a\b"`, 'string_pattern_mismatch'],
    ['non-ASCII characters', 'clé', 'string_pattern_mismatch'],
    ['a no-break space around it, which is not HTTP whitespace', '\u00a0abc', 'string_pattern_mismatch'],
    ['a control character', 'a\u0001b', 'string_pattern_mismatch'],
  ])('refuses %s with an HTTPValidationError item', (_, value, type) => {
    const parsed = parseIdempotencyKey([value]);
    expect(parsed).toEqual({
      ok: false,
      issues: [expect.objectContaining({ loc: LOC, type, msg: expect.any(String) })],
    });
  });

  it('refuses the header sent twice, even with one value', () => {
    expect(parseIdempotencyKey(['a', 'a'])).toEqual({
      ok: false,
      issues: [expect.objectContaining({ loc: LOC, type: 'idempotency_key_repeated' })],
    });
  });
});

describe('requestFingerprint', () => {
  it('is a SHA-256 that tells requests apart by every field and their order', () => {
    const fingerprint = requestFingerprint(['https://example.com/', 'Title', null, null, null, false]);
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint(['https://example.com/', 'Title', null, null, null, false])).toBe(fingerprint);
    expect(requestFingerprint(['https://example.com/', 'Title', null, null, null, true])).not.toBe(fingerprint);
    expect(requestFingerprint(['https://example.com/', null, 'Title', null, null, false])).not.toBe(fingerprint);
  });
});
