import type { ValidationIssue } from './validation';
import { jsonContentTypeIssues } from './validation';

/**
 * A JSON request body from its bytes: the media type checked, the bytes decoded in the charset the
 * Content-Type declares (UTF-8 when it declares none), and the text parsed. Bytes that are not valid
 * in that charset are refused rather than replaced, a charset this runtime cannot decode is a 415,
 * and a syntax error names its position in our own words (V8's message quotes the body).
 */
export type BodyParse<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly status: 422; readonly issues: ValidationIssue[] }
  | { readonly ok: false; readonly status: 415; readonly detail: string };

export function parseJsonBody(bytes: Uint8Array | null, contentType: string | undefined): BodyParse<unknown> {
  const typeIssues = jsonContentTypeIssues(contentType);
  if (typeIssues.length) return { ok: false, status: 422, issues: typeIssues };
  if (bytes === null || bytes.length === 0) return missingBody();
  const charset = declaredCharset(contentType) ?? 'utf-8';
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder(charset, { fatal: true });
  } catch {
    return { ok: false, status: 415, detail: `Unsupported charset ${JSON.stringify(charset)}: send UTF-8` };
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    const at = decoder.encoding === 'utf-8' ? invalidUtf8At(bytes) : 0;
    return invalidJson(at, `the body is not valid ${decoder.encoding.toUpperCase()} (at byte ${at})`);
  }
  if (text.trim() === '') return missingBody();
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    const at = jsonSyntaxErrorAt(text);
    return invalidJson(at, describeSyntaxError(text, at));
  }
}

function missingBody(): BodyParse<never> {
  return { ok: false, status: 422, issues: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] };
}

/** pydantic's json_invalid, at the character where the body stops being JSON. */
function invalidJson(at: number, error: string): BodyParse<never> {
  return {
    ok: false,
    status: 422,
    issues: [{ loc: ['body', at], msg: 'JSON decode error', type: 'json_invalid', ctx: { error } }],
  };
}

/** The `charset` parameter of a Content-Type value, lower-cased and unquoted; null when there is none. */
function declaredCharset(contentType: string | undefined): string | null {
  for (const parameter of (contentType ?? '').split(';').slice(1)) {
    const [name, ...value] = parameter.split('=');
    if (name!.trim().toLowerCase() === 'charset') {
      return value
        .join('=')
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase();
    }
  }
  return null;
}

/** The offset of the first byte that starts no valid UTF-8 sequence. */
function invalidUtf8At(bytes: Uint8Array): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  // Binary search on the longest valid prefix: a prefix cut inside a sequence fails too, hence `stream`.
  let low = 0;
  let high = bytes.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    try {
      decoder.decode(bytes.subarray(0, middle), { stream: true });
      decoder.decode();
      low = middle;
    } catch {
      high = middle - 1;
    }
  }
  return low;
}

function describeSyntaxError(text: string, at: number): string {
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  const found = at >= text.length ? 'the body ends' : `unexpected character ${JSON.stringify(text[at])}`;
  return `Invalid JSON at character ${at} (line ${line}, column ${column}): ${found}`;
}

/**
 * Where a text that JSON.parse refused stops being JSON (RFC 8259's grammar, followed without
 * building values): the offset of the first character that cannot continue it, or its length when
 * it ends too soon.
 */
function jsonSyntaxErrorAt(text: string): number {
  let at = 0;
  const fail = (): never => {
    throw at;
  };
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
  };
  const literal = (word: string) => {
    for (const char of word) {
      if (text[at] !== char) fail();
      at++;
    }
  };
  const string = () => {
    at++; // the opening quote
    for (;;) {
      if (at >= text.length) fail();
      const char = text[at]!;
      if (char === '"') return void at++;
      if (char < ' ') fail();
      if (char === '\\') {
        at++;
        if (text[at] === 'u') {
          at++;
          for (let i = 0; i < 4; i++, at++) if (!/[0-9a-fA-F]/.test(text[at] ?? '')) fail();
        } else if (at < text.length && '"\\/bfnrt'.includes(text[at]!)) at++;
        else fail();
      } else at++;
    }
  };
  const digits = () => {
    const start = at;
    while (/[0-9]/.test(text[at] ?? '')) at++;
    if (at === start) fail();
  };
  const number = () => {
    if (text[at] === '-') at++;
    if (text[at] === '0') at++;
    else digits();
    if (text[at] === '.') {
      at++;
      digits();
    }
    if (text[at] === 'e' || text[at] === 'E') {
      at++;
      if (text[at] === '+' || text[at] === '-') at++;
      digits();
    }
  };
  const members = (close: string, member: () => void) => {
    at++; // the opening bracket
    space();
    if (text[at] === close) return void at++;
    for (;;) {
      member();
      space();
      if (text[at] === ',') {
        at++;
        space();
      } else if (text[at] === close) return void at++;
      else fail();
    }
  };
  const value = (): void => {
    space();
    const char = text[at];
    if (char === '{')
      members('}', () => {
        if (text[at] !== '"') fail();
        string();
        space();
        if (text[at] !== ':') fail();
        at++;
        value();
      });
    else if (char === '[') members(']', value);
    else if (char === '"') string();
    else if (char === 't') literal('true');
    else if (char === 'f') literal('false');
    else if (char === 'n') literal('null');
    else if (char === '-' || /[0-9]/.test(char ?? '')) number();
    else fail();
  };
  try {
    value();
    space();
    return at;
  } catch (error) {
    if (typeof error === 'number') return Math.min(error, text.length);
    // Nested too deep to follow here (a stack overflow): the first character is as good a guess as any.
    return 0;
  }
}
