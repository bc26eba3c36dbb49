import { writeFileSync } from 'node:fs';
import { serializeOpenApiDocument } from '../functions/platform/openapi';
import { serializeOwnerApiDocument } from '../functions/platform/openapi-v2';

/**
 * `npm run openapi`: regenerates openapi.json (the contract) and openapi-v2.json (the per-user API and
 * the other feed formats) at the repository root from the route table and zod schemas.
 */
for (const [file, text] of [
  ['../openapi.json', serializeOpenApiDocument()],
  ['../openapi-v2.json', serializeOwnerApiDocument()],
] as const) {
  const path = new URL(file, import.meta.url);
  writeFileSync(path, text);
  console.log(`wrote ${path.pathname}`);
}
