import { writeFileSync } from 'node:fs';
import { serializeOpenApiDocument } from '../functions/platform/openapi';

/** `npm run openapi`: regenerates openapi.json at the repository root from the route table and zod schemas. */
const path = new URL('../openapi.json', import.meta.url);
writeFileSync(path, serializeOpenApiDocument());
console.log(`wrote ${path.pathname}`);
