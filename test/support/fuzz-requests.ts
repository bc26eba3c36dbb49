import fc from 'fast-check';

/**
 * fast-check arbitraries for JSON values described by the JSON Schema subset zod emits into
 * openapi.json (objects, strings with maxLength/format/pattern, booleans, null, anyOf, type lists),
 * and mutations of them that the schema does not allow.
 */

export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly anyOf?: readonly JsonSchema[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly maxLength?: number;
  readonly format?: string;
}

/** Pages a valid save points at: few enough that saves of the same page (appends) are frequent. */
const PAGES = [
  'https://example.com/a',
  'http://example.com/a?utm_source=x',
  'HTTPS://EXAMPLE.COM:443/b#frag',
  'https://fuzz.test/ü/path?q=1',
  'https://xn--bcher-kva.example/',
];

const asciiText = (maxLength: number) => fc.string({ maxLength });

/** A value the schema accepts (strings stay short: the mutations make the long ones). */
export function arbitraryOf(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map(arbitraryOf));
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => arbitraryOf({ ...schema, type })));
  switch (schema.type) {
    case 'string':
      return schema.format === 'uri' ? fc.constantFrom(...PAGES) : asciiText(Math.min(schema.maxLength ?? 200, 200));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'object': {
      const properties = Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([name, property]) => [name, arbitraryOf(property)]),
      );
      return fc.record(properties, { requiredKeys: [...(schema.required ?? [])] });
    }
    default:
      throw new Error(`No arbitrary for schema ${JSON.stringify(schema)}`);
  }
}

/** Text a client should not send but might: lone surrogates, controls, bidi overrides, emoji. */
const oddText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\ud800', 'a\udc00b', '\u0000\u0001\u001f', '\u202eevil', '😀\u200d👩', 'ﬀ\uFEFF', '   ', '\r\n'),
);

/** URLs at the edges of what a save accepts: long hosts, userinfo, IP literals, odd ports and schemes. */
const oddUrl = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.integer({ min: 60, max: 300 }).map((length) => `https://${'a'.repeat(length)}.example/`),
  fc
    .integer({ min: 1, max: 6 })
    .map((labels) => `https://${Array.from({ length: labels }, () => 'b'.repeat(63)).join('.')}.example/`),
  fc.constantFrom(
    'https://user:secret@example.com/private',
    'http://[::1]/',
    'http://127.0.0.1:8080/',
    'https://example.com:99999/',
    'https://exa mple.com/',
    'javascript:alert(1)',
    'data:text/html,hi',
    'https://',
    'https://ex%41mple.com/%zz',
    'https://xn--/',
    'HTTP://EXAMPLE.COM/UPPER',
  ),
);

const wrongType = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
);

/** A body the schema may reject: one field of a valid object broken in one of several ways. */
export function mutatedObjectOf(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const names = Object.keys(schema.properties ?? {});
  const valid = arbitraryOf(schema) as fc.Arbitrary<Record<string, unknown>>;
  const longerThanAllowed = (name: string) => {
    const max = maxLengthOf(schema.properties![name]!) ?? 1_000;
    return fc.integer({ min: max - 1, max: max + 2 }).map((length) => 'x'.repeat(length));
  };
  return fc.oneof(
    fc.tuple(valid, fc.constantFrom(...names), wrongType).map(([body, name, value]) => ({ ...body, [name]: value })),
    fc.tuple(valid, fc.constantFrom(...names)).map(([body, name]) => withoutKey(body, name)),
    fc
      .tuple(
        valid,
        fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 3 }),
      )
      .map(([body, extra]) => ({ ...extra, ...body })),
    fc
      .tuple(valid, fc.constantFrom(...names))
      .chain(([body, name]) => longerThanAllowed(name).map((text) => ({ ...body, [name]: text }))),
    fc
      .tuple(valid, fc.constantFrom(...names.filter((name) => schema.properties![name]!.format === 'uri')), oddUrl)
      .map(([body, name, url]) => ({ ...body, [name]: url })),
    fc
      .tuple(valid, fc.constantFrom(...names), oddText)
      .map(([body, name, text]) => ({ ...body, [name]: name === 'url' ? `https://example.com/${text}` : text })),
  );
}

function maxLengthOf(schema: JsonSchema): number | undefined {
  return schema.maxLength ?? schema.anyOf?.map(maxLengthOf).find((max) => max !== undefined);
}

function withoutKey(body: Record<string, unknown>, name: string): Record<string, unknown> {
  const { [name]: _removed, ...rest } = body;
  return rest;
}

/** Raw bodies that are not a JSON object at all. */
export const malformedBody: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '{',
    '{"url": ',
    '[]',
    'null',
    '"https://example.com"',
    '42',
    '{"url":"https://example.com"}garbage',
  ),
  fc.string({ unit: 'binary', maxLength: 50 }),
  // Not UTF-8: API Gateway hands such bodies to the function base64-encoded.
  fc.constant(
    Buffer.concat([
      Buffer.from('{"url":"https://example.com/'),
      Buffer.from([0xff, 0xfe, 0xed, 0xa0, 0x80]),
      Buffer.from('"}'),
    ]),
  ),
);

/** Bytes of a path segment: any text, percent-encoded byte by byte (lone surrogates become U+FFFD). */
export function pathSegment(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

/** Header values Node accepts on the wire: visible Latin-1 text. */
export const headerText = fc.string({
  unit: fc
    .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }))
    .map((code) => String.fromCharCode(code)),
  maxLength: 60,
});
