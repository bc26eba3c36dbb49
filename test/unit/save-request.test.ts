import { describe, expect, it } from 'vitest';
import { parseJsonBody } from '../../functions/core/contract/json-body';
import type { ValidationIssue } from '../../functions/core/contract/validation';
import { parseSaveRequest, SAVE_LIMITS, type SaveRequest } from '../../functions/core/save/save-request';

const url = 'https://x.test/article';

/** A raw body through the JSON body parser and then the save request's schema, as the handler does it. */
function parsed(rawBody: string | null | undefined) {
  const body = parseJsonBody(rawBody == null ? null : Buffer.from(rawBody), 'application/json');
  if (body.ok) return parseSaveRequest(body.value);
  if (body.status === 415) throw new Error(body.detail);
  return { ok: false as const, issues: body.issues };
}

function accepted(body: Record<string, unknown>): SaveRequest {
  const result = parsed(JSON.stringify(body));
  if (!result.ok) throw new Error(`expected the body to be accepted, got ${JSON.stringify(result.issues)}`);
  return result.request;
}

function rejected(rawBody: string | null | undefined): ValidationIssue[] {
  const result = parsed(rawBody);
  if (result.ok) throw new Error(`expected the body to be rejected: ${rawBody}`);
  return result.issues;
}

const rejectedBody = (body: Record<string, unknown>) => rejected(JSON.stringify(body));

/** No lone UTF-16 surrogate anywhere in the string. */
const wellFormed = (value: string) =>
  !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value);

describe('parseSaveRequest: accepted bodies', () => {
  it('parses every field', () => {
    const request = accepted({ url, title: 'T', selection: 'S', comment: 'C #tag', description: 'D', append: true });
    expect(request.url).toBeInstanceOf(URL);
    expect({ ...request, url: request.url.href }).toEqual({
      url,
      title: 'T',
      selection: 'S',
      comment: 'C #tag',
      description: 'D',
      append: true,
    });
  });

  it('leaves omitted optional fields null and append false', () => {
    const request = accepted({ url });
    expect({ ...request, url: request.url.href }).toEqual({
      url,
      title: null,
      selection: null,
      comment: null,
      description: null,
      append: false,
    });
  });

  it('accepts null for the nullable fields', () => {
    const request = accepted({ url, title: null, selection: null, comment: null, description: null });
    expect([request.title, request.selection, request.comment, request.description]).toEqual([null, null, null, null]);
  });

  it.each([
    ['title', '   '],
    ['selection', '\n\t '],
    ['comment', ''],
    ['description', ' \r\n '],
  ])('turns a blank %s into null', (field, value) => {
    expect(accepted({ url, [field]: value })[field as keyof SaveRequest]).toBeNull();
  });

  it.each(['title', 'selection', 'comment', 'description'])(
    'replaces lone surrogates in %s with U+FFFD and keeps pairs',
    (field) => {
      const raw = `{"url": "${url}", "${field}": "a\\ud800b\\udc00c\\ud83d\\ude00"}`;
      const result = parsed(raw);
      expect(result.ok && result.request[field as keyof SaveRequest]).toBe('a\uFFFDb\uFFFDc😀');
    },
  );

  it('ignores unknown fields', () => {
    const request = accepted({ url, tags: ['x'], note_id: 'n', extra: { nested: true } });
    expect(Object.keys(request).sort()).toEqual(['append', 'comment', 'description', 'selection', 'title', 'url']);
  });

  describe('description is truncated to 500 characters, never rejected', () => {
    it('keeps a description of exactly 500 characters', () => {
      const description = 'd'.repeat(SAVE_LIMITS.description);
      expect(accepted({ url, description }).description).toBe(description);
    });

    it('cuts a description of 600 characters to its first 500', () => {
      const description = 'abcdefghij'.repeat(60);
      expect(accepted({ url, description }).description).toBe(description.slice(0, 500));
    });

    it('does not split a surrogate pair at the cut', () => {
      const description = `${'a'.repeat(499)}😀${'b'.repeat(100)}`;
      const truncated = accepted({ url, description }).description!;
      expect(description.startsWith(truncated)).toBe(true);
      expect(wellFormed(truncated)).toBe(true);
      expect(truncated.startsWith('a'.repeat(499))).toBe(true);
      expect([...truncated].length).toBeLessThanOrEqual(500);
    });

    it('counts characters, not UTF-16 units: 300 emoji are within 500 characters', () => {
      const description = '😀'.repeat(300);
      expect(accepted({ url, description }).description).toBe(description);
    });
  });

  describe('text fields at their maximum length are accepted', () => {
    it.each([
      ['title', SAVE_LIMITS.title],
      ['selection', SAVE_LIMITS.selection],
      ['comment', SAVE_LIMITS.comment],
    ])('%s of %i characters', (field, max) => {
      expect(accepted({ url, [field]: 'x'.repeat(max) })[field as keyof SaveRequest]).toHaveLength(max);
    });
  });
});

describe('parseSaveRequest: HTTPValidationError items', () => {
  it('a missing url is "Field required"', () => {
    expect(rejectedBody({ title: 'T' })).toEqual([{ loc: ['body', 'url'], msg: 'Field required', type: 'missing' }]);
  });

  describe('non-string text fields are string_type', () => {
    it.each(['url', 'title', 'selection', 'comment', 'description'])('%s', (field) => {
      for (const value of [42, true, { a: 1 }, ['x']]) {
        const body = field === 'url' ? { url: value } : { url, [field]: value };
        expect(rejectedBody(body)).toEqual([
          { loc: ['body', field], msg: 'Input should be a valid string', type: 'string_type' },
        ]);
      }
    });

    it('url: null is string_type too', () => {
      expect(rejectedBody({ url: null })).toEqual([
        { loc: ['body', 'url'], msg: 'Input should be a valid string', type: 'string_type' },
      ]);
    });
  });

  describe('a non-boolean append is bool_type', () => {
    it.each(['yes', 'true', 1, 0, [], {}])('%j', (append) => {
      expect(rejectedBody({ url, append })).toEqual([
        { loc: ['body', 'append'], msg: 'Input should be a valid boolean', type: 'bool_type' },
      ]);
    });
  });

  describe('url rules', () => {
    it.each([
      ['javascript:alert(1)', { type: 'url_scheme', msg: "URL scheme should be 'http' or 'https'" }],
      ['ftp://x.test/file', { type: 'url_scheme', msg: "URL scheme should be 'http' or 'https'" }],
      ['not a url', { type: 'url_parsing', msg: 'Input should be a valid URL, relative URL without a base' }],
      ['', { type: 'url_parsing', msg: 'Input should be a valid URL, relative URL without a base' }],
      [
        `https://x.test/${'a'.repeat(2048)}`,
        { type: 'url_too_long', msg: 'URL should have at most 2048 characters', ctx: { max_length: 2048 } },
      ],
      [
        `https://${'h'.repeat(254)}/`,
        {
          type: 'url_parsing',
          msg: 'Input should be a valid URL, host should have at most 253 characters',
          ctx: { max_length: 253 },
        },
      ],
    ])('%j', (value, problem) => {
      expect(rejectedBody({ url: value })).toEqual([{ loc: ['body', 'url'], ...problem }]);
    });
  });

  describe('text fields over their maximum are string_too_long', () => {
    it.each([
      ['title', SAVE_LIMITS.title, 1_000],
      ['selection', SAVE_LIMITS.selection, 20_000],
      ['comment', SAVE_LIMITS.comment, 5_000],
    ])('%s over %i characters', (field, max, expected) => {
      expect(max).toBe(expected);
      expect(rejectedBody({ url, [field]: 'x'.repeat(max + 1) })).toEqual([
        {
          loc: ['body', field],
          msg: `String should have at most ${max} characters`,
          type: 'string_too_long',
          ctx: { max_length: max },
        },
      ]);
    });
  });

  it('reports every invalid field at once, in field order', () => {
    const issues = rejectedBody({ append: 'yes', comment: 'c'.repeat(5_001), title: 5, url: 'mailto:a@x.test' });
    expect(issues.map(({ loc, type }) => ({ loc, type }))).toEqual([
      { loc: ['body', 'url'], type: 'url_scheme' },
      { loc: ['body', 'title'], type: 'string_type' },
      { loc: ['body', 'comment'], type: 'string_too_long' },
      { loc: ['body', 'append'], type: 'bool_type' },
    ]);
  });
});

describe('parseSaveRequest: control characters (issue 21)', () => {
  it('strips a NUL and other control characters from the text fields, keeping tabs and line breaks', () => {
    const request = accepted({
      url,
      title: 'a\u0000b\u001b[31m',
      selection: 'line\none\tand\u0007 two',
      comment: '\u0000',
    });
    expect(request).toMatchObject({ title: 'ab[31m', selection: 'line\none\tand two', comment: null });
  });
});

describe('the JSON body: charsets and bytes (issue 21)', () => {
  const parse = (bytes: Buffer, contentType: string) => parseJsonBody(bytes, contentType);
  const cafe = (encoding: BufferEncoding) => Buffer.from(JSON.stringify({ title: 'café' }), encoding);

  it('decodes a declared charset', () => {
    expect(parse(cafe('latin1'), 'application/json; charset=iso-8859-1')).toEqual({
      ok: true,
      value: { title: 'café' },
    });
    expect(parse(cafe('utf8'), 'application/json; charset="UTF-8"')).toEqual({ ok: true, value: { title: 'café' } });
  });

  it('refuses bytes that are not valid in the charset, naming the byte, instead of storing U+FFFD', () => {
    expect(parse(cafe('latin1'), 'application/json')).toEqual({
      ok: false,
      status: 422,
      issues: [
        {
          loc: ['body', 13],
          msg: 'JSON decode error',
          type: 'json_invalid',
          ctx: { error: 'the body is not valid UTF-8 (at byte 13)' },
        },
      ],
    });
  });

  it('answers 415 for a charset it cannot decode', () => {
    expect(parse(cafe('utf8'), 'application/json; charset=x-klingon')).toEqual({
      ok: false,
      status: 415,
      detail: 'Unsupported charset "x-klingon": send UTF-8',
    });
  });
});

describe('parseSaveRequest: bodies that are not a JSON object', () => {
  describe('invalid JSON is json_invalid at ["body", <where it stops being JSON>], in words of our own', () => {
    it.each([
      ['not json', 1, 'Invalid JSON at character 1 (line 1, column 2): unexpected character "o"'],
      ["{url: 'https://x.test'}", 1, 'Invalid JSON at character 1 (line 1, column 2): unexpected character "u"'],
      ['{"url": "https://x.test"', 24, 'Invalid JSON at character 24 (line 1, column 25): the body ends'],
      ['{"url": "https://x.test",}', 25, 'Invalid JSON at character 25 (line 1, column 26): unexpected character "}"'],
      [
        '{\n  "url": "a",\n  "title": tru\n}',
        30,
        'Invalid JSON at character 30 (line 3, column 15): unexpected character "\\n"',
      ],
      ['{"secret-token-123": }', 21, 'Invalid JSON at character 21 (line 1, column 22): unexpected character "}"'],
    ])('%j', (raw, at, error) => {
      const [issue, ...others] = rejected(raw);
      expect(others).toEqual([]);
      expect(issue).toEqual({ loc: ['body', at], msg: 'JSON decode error', type: 'json_invalid', ctx: { error } });
    });
  });

  describe('JSON that is not an object is model_attributes_type at ["body"]', () => {
    it.each(['[]', '[{"url": "https://x.test"}]', '"https://x.test"', '42', 'true', 'null'])('%s', (raw) => {
      expect(rejected(raw)).toEqual([
        {
          loc: ['body'],
          msg: 'Input should be a valid dictionary or object to extract fields from',
          type: 'model_attributes_type',
        },
      ]);
    });
  });

  describe('no body is "Field required" at ["body"]', () => {
    it.each(['', '  \n', null, undefined])('%j', (raw) => {
      expect(rejected(raw)).toEqual([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
    });
  });
});
