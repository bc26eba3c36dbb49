import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, serializeOpenApiDocument } from '../../functions/platform/openapi';
import { buildOwnerApiDocument, serializeOwnerApiDocument } from '../../functions/platform/openapi-v2';
import { routes } from '../../functions/platform/routes';

const committed = readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8');

describe('openapi.json', () => {
  it('is what `npm run openapi` generates from the route table and the zod schemas', () => {
    // On failure: run `npm run openapi` and commit openapi.json.
    expect(committed).toBe(serializeOpenApiDocument());
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    await expect(SwaggerParser.validate(JSON.parse(committed))).resolves.toBeDefined();
  });

  it("describes exactly the contract's three operations, at version 1.1.0", () => {
    const document = buildOpenApiDocument() as {
      info: { version: string };
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    expect(document.info.version).toBe('1.1.0');
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => `${method} ${path} ${op.operationId}`),
    );
    expect(operations.sort()).toEqual([
      'get /api/v2/publisher/feeds/{feed_id}/public getPublishedFeed',
      'get /api/v2/publisher/feeds/{feed_id}/rss getPublishedFeedRss',
      'post /api/v1/bookmarks/save saveBookmark',
    ]);
  });

  it('marks a retiring route deprecated, with Deprecation, Sunset and Link on every answer', async () => {
    const retirement = {
      deprecatedAt: '2027-01-15T12:00:00Z',
      sunsetAt: '2027-07-16T00:00:00Z',
      link: 'https://docs.example/retiring',
    };
    const table = routes.map((route) => (route.id === 'GetPublishedFeed' ? { ...route, retirement } : route));
    const document = buildOpenApiDocument(table) as {
      paths: Record<string, Record<string, { deprecated?: boolean; responses: Record<string, { headers: object }> }>>;
    };
    const retiring = document.paths['/api/v2/publisher/feeds/{feed_id}/public']!.get!;
    expect(retiring.deprecated).toBe(true);
    for (const response of Object.values(retiring.responses))
      expect(Object.keys(response.headers)).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
    expect(document.paths['/api/v2/publisher/feeds/{feed_id}/rss']!.get!.deprecated).toBeUndefined();
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it('rejects a document with a dangling reference (the validator really validates)', async () => {
    const broken = JSON.parse(committed);
    broken.paths['/api/v1/bookmarks/save'].post.responses['200'].content['application/json'].schema = {
      $ref: '#/components/schemas/Missing',
    };
    await expect(SwaggerParser.validate(broken)).rejects.toThrow(/Missing/);
  });
});

describe('openapi-v2.json', () => {
  const committedV2 = readFileSync(new URL('../../openapi-v2.json', import.meta.url), 'utf8');

  it('is what `npm run openapi` generates from the route table and the zod schemas', () => {
    // On failure: run `npm run openapi` and commit openapi-v2.json.
    expect(committedV2).toBe(serializeOwnerApiDocument());
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    await expect(SwaggerParser.validate(JSON.parse(committedV2))).resolves.toBeDefined();
  });

  it("describes every owner's route of the table, the Atom and JSON Feed formats and the review feed, and none of the contract's", () => {
    const document = buildOwnerApiDocument() as { paths: Record<string, Record<string, { operationId: string }>> };
    const described = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const expected = routes
      .filter(
        (route) =>
          route.path.startsWith('/api/v2/me') || ['GetFeedAtom', 'GetJsonFeed', 'GetReviewFeed'].includes(route.id),
      )
      .map((route) => `${route.method} ${route.path}`);
    expect(described.sort()).toEqual(expected.sort());
    expect(
      described.filter((operation) => operation.includes('/api/v1/') || operation.includes('/publisher/')),
    ).toEqual([]);
  });
});
