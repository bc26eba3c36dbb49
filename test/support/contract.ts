import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { OpenAPIV3_1 } from 'openapi-types';
import { compileRoutePath } from '../../functions/platform/routes';

/**
 * Checks answers against the committed openapi.json: the status is documented for the operation,
 * every required header is there and matches its schema, and the body has the documented media type
 * and JSON Schema. Every HTTP test reaches the three contract routes through `contractFetch`, so
 * the tests and the document cannot drift apart.
 */

type Operation = OpenAPIV3_1.OperationObject;
type ResponseSpec = OpenAPIV3_1.ResponseObject;

/** The contract's document and the v2 one (the per-user API, the other feed formats): their paths do not overlap. */
const documents = await Promise.all(
  ['openapi.json', 'openapi-v2.json'].map(
    async (file) =>
      (await SwaggerParser.dereference(
        JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')),
      )) as OpenAPIV3_1.Document,
  ),
);

const paths = documents.flatMap((document) =>
  Object.entries(document.paths ?? {}).map(([template, item]) => ({
    pattern: compileRoutePath(template).pattern,
    item: item!,
  })),
);

const bodies = addFormats(new Ajv2020({ allErrors: true }));
// Header values are text: "120" is the integer 120.
const headerValues = addFormats(new Ajv2020({ allErrors: true, coerceTypes: true }));
const compiled = new WeakMap<object, ValidateFunction>();

function validator(ajv: Ajv2020, schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  return validate;
}

/** The documented operation for a request, or null when the document does not describe it. */
function operationFor(method: string, url: string): Operation | null {
  const { pathname } = new URL(url);
  const item = paths.find(({ pattern }) => pattern.test(pathname))?.item;
  // HEAD is answered as GET without a body (RFC 9110), so it is checked against the GET operation.
  const verb = (method.toUpperCase() === 'HEAD' ? 'get' : method.toLowerCase()) as OpenAPIV3_1.HttpMethods;
  return item?.[verb] ?? null;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

/** How an answer departs from the document; empty when it matches, null for undocumented requests. */
export function contractProblems(method: string, url: string, answer: Answer): string[] | null {
  const operation = operationFor(method, url);
  if (!operation) return null;
  const spec = operation.responses?.[String(answer.status)] as ResponseSpec | undefined;
  if (!spec) return [`status ${answer.status} is not documented for ${operation.operationId}`];

  const problems: string[] = [];
  for (const [name, header] of Object.entries(spec.headers ?? {}) as [string, OpenAPIV3_1.HeaderObject][]) {
    const value = answer.headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`header ${name} is missing`);
      continue;
    }
    const validate = validator(headerValues, header.schema as object);
    if (!validate(value))
      problems.push(`header ${name}: ${JSON.stringify(value)} ${headerValues.errorsText(validate.errors)}`);
  }

  const bodyExpected = spec.content && method.toUpperCase() !== 'HEAD';
  if (!bodyExpected) {
    if (answer.body !== '') problems.push(`a body was sent where none is documented: ${answer.body.slice(0, 200)}`);
    return problems;
  }
  const mediaType = (answer.headers.get('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
  const media = spec.content![mediaType];
  if (!media)
    return [
      ...problems,
      `Content-Type ${mediaType || '(none)'} is not one of ${Object.keys(spec.content!).join(', ')}`,
    ];
  let body: unknown = answer.body;
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    try {
      body = JSON.parse(answer.body);
    } catch {
      return [...problems, `the body is not JSON: ${answer.body.slice(0, 200)}`];
    }
  }
  const validate = validator(bodies, media.schema as object);
  if (!validate(body))
    problems.push(`body: ${bodies.errorsText(validate.errors, { dataVar: 'body' })} in ${answer.body.slice(0, 500)}`);
  return problems;
}

export function assertMatchesContract(method: string, url: string, answer: Answer): void {
  const problems = contractProblems(method, url, answer);
  if (problems?.length)
    throw new Error(
      `${method} ${url} → ${answer.status} does not match its OpenAPI document:\n- ${problems.join('\n- ')}`,
    );
}

/** `fetch`, failing when the answer of a documented operation does not match the document. */
export async function contractFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init);
  const body = await response.clone().text();
  assertMatchesContract(init.method ?? 'GET', url, { status: response.status, headers: response.headers, body });
  return response;
}
