import type * as z from 'zod/mini';

/** A table item that does not read as the entity it should be: named by its key, with what is wrong. */
export class MalformedItemError extends Error {
  override readonly name = 'MalformedItemError';
}

/**
 * The reader of `entity` items through the schema `build` makes. The schema is built on the first
 * read, not when the module loads: a function's cold start pays for none, and a function builds only
 * the schemas of the entities it reads.
 */
export function itemCodec<Schema extends z.ZodMiniType>(
  entity: string,
  build: () => Schema,
): (item: Record<string, unknown>) => z.output<Schema> {
  let schema: Schema | undefined;
  return (item) => decodeItem(entity, (schema ??= build()), item);
}

/**
 * An item read as `entity` through its schema: the decoded attributes, or a MalformedItemError naming
 * the item's key and each attribute that is missing or of the wrong type (never a record with
 * undefined fields).
 */
function decodeItem<Schema extends z.ZodMiniType>(
  entity: string,
  schema: Schema,
  item: Record<string, unknown>,
): z.output<Schema> {
  const parsed = schema.safeParse(item);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(item)'}: ${issue.message}`);
  throw new MalformedItemError(
    `${entity} item ${String(item.pk)} ${String(item.sk)} is malformed: ${problems.join('; ')}`,
  );
}

/**
 * The bytes DynamoDB counts for an item (as the document client reads it): attribute names and
 * values in UTF-8, numbers by their digits, 3 bytes per list or map and 1 per element. Rounded up
 * where DynamoDB's own count is approximate, so it never counts less than DynamoDB.
 */
export function itemBytes(item: Record<string, unknown>): number {
  let total = 0;
  for (const [name, value] of Object.entries(item)) total += utf8(name) + valueBytes(value);
  return total;
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number' || typeof value === 'bigint') return Math.ceil(String(value).length / 2) + 1;
  if (typeof value === 'boolean' || value === null || value === undefined) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce<number>((sum, element) => sum + valueBytes(element) + 1, 3);
  if (Array.isArray(value)) return value.reduce<number>((sum, element) => sum + valueBytes(element) + 1, 3);
  if (typeof value === 'object')
    return Object.entries(value).reduce((sum, [name, element]) => sum + utf8(name) + valueBytes(element) + 1, 3);
  return 0;
}

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');
