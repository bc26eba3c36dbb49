import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';

/** JSON Feed 1.1, restated as a JSON Schema from its specification (json-feed-1.1.schema.json). */
const validate = addFormats(new Ajv({ allErrors: true, strict: false })).compile(
  JSON.parse(readFileSync(new URL('./json-feed-1.1.schema.json', import.meta.url), 'utf8')),
);

/** How a document departs from JSON Feed 1.1: empty when it is valid. */
export function jsonFeedSchemaProblems(document: unknown): string[] {
  return validate(document)
    ? []
    : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`);
}
