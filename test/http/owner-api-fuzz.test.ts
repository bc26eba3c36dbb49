import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUERY_MAX_LENGTH } from '../../functions/core/search/query';
import { CSRF_HEADER } from '../../functions/http/owner-auth';
import { type RouteDefinition, routes } from '../../functions/platform/routes';
import openapiV2 from '../../openapi-v2.json' with { type: 'json' };
import { contractFetch } from '../support/contract';
import { arbitraryOf, type JsonSchema, malformedBody, mutatedObjectOf, pathSegment } from '../support/fuzz-requests';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { type Owner, signedInUser } from '../support/owner';

/**
 * Property-based fuzzing of the per-user API from openapi-v2.json: valid, broken and malformed
 * requests to every /api/v2/me route with several credentials. Every answer must be documented in
 * the v2 document (contractFetch checks status, headers and body) and none may be a 5xx. Reproduce
 * a failure with the seed it prints: `FUZZ_SEED=<seed> npx vitest run test/http/owner-api-fuzz.test.ts`.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS = 150;

let t: TestStack;
let owner: Owner;
let ids: Record<string, string>;
// Deleting the account would end the run: it is fuzzed with every credential but a valid session.
const apiRoutes = routes.filter((route) => route.path.startsWith('/api/v2/me'));

let indexFolder: string;

beforeAll(async () => {
  // With a search index, so the search routes answer as deployed rather than 503 (not set up).
  indexFolder = mkdtempSync(join(tmpdir(), 'gleaner-owner-fuzz-'));
  t = await startTestStack({ OWNER_RATE_LIMIT: '100000;w=60' }, { searchIndexUri: join(indexFolder, 'index') });
  owner = await signedInUser(t);
  const noteId = (await json(await t.save(owner.token, { url: 'https://example.com/fuzz', comment: '#fuzz' }))).note_id;
  const feed = await json(
    await owner.api('/api/v2/me/feeds', { method: 'POST', body: { title: 'F', tags: ['fuzz'] } }),
  );
  ids = { note_id: noteId, feed_id: feed.id, token_id: owner.tokenId, tag: 'fuzz' };
});
afterAll(async () => {
  await t.stop();
  rmSync(indexFolder, { recursive: true, force: true });
});

const schemas = openapiV2.components.schemas as unknown as Record<string, JsonSchema>;

/** The request body schema of a route's operation, from the committed document. */
function bodySchema(route: RouteDefinition): JsonSchema | null {
  const operation = (openapiV2.paths as Record<string, Record<string, { requestBody?: unknown }>>)[route.path]?.[
    route.method.toLowerCase()
  ];
  const ref = (operation?.requestBody as { content: { 'application/json': { schema: { $ref: string } } } } | undefined)
    ?.content['application/json'].schema.$ref;
  return ref ? schemas[ref.split('/').at(-1)!]! : null;
}

const credentials = ['session', 'session without CSRF', 'none', 'personal access token'] as const;

const requests = fc
  .tuple(fc.constantFrom(...apiRoutes), fc.constantFrom(...credentials))
  .filter(([route, credential]) => !(route.id === 'DeleteMyAccount' && credential === 'session'))
  .chain(([route, credential]) => {
    const schema = bodySchema(route);
    const body: fc.Arbitrary<string | Buffer | undefined> = schema
      ? fc.oneof(
          arbitraryOf(schema).map((value) => JSON.stringify(value)),
          mutatedObjectOf(schema).map((value) => JSON.stringify(value)),
          malformedBody,
        )
      : fc.constant(undefined);
    const parameter = (name: string) =>
      fc.oneof(fc.constant(ids[name]!), fc.uuid(), fc.string({ maxLength: 20 }).map(pathSegment));
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
    const query =
      route.id === 'ListMyNotes'
        ? fc.record(
            {
              limit: fc.oneof(fc.integer({ min: -5, max: 120 }).map(String), fc.string({ maxLength: 4 })),
              cursor: fc.string({ maxLength: 30 }),
              tag: fc.string({ maxLength: 10 }),
            },
            { requiredKeys: [] },
          )
        : fc.constant({});
    return fc.record({
      route: fc.constant(route),
      credential: fc.constant(credential),
      params: fc
        .tuple(...names.map(parameter))
        .map((values) => Object.fromEntries(names.map((name, i) => [name, values[i]!]))),
      body,
      contentType: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain'),
      query,
    });
  });

describe('the per-user API under fuzzing', () => {
  it('answers every request as openapi-v2.json documents it, never with a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(requests, async ({ route, credential, params, body, contentType, query }) => {
        const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name]!);
        const search = new URLSearchParams(query as Record<string, string>).toString();
        const headers: Record<string, string> = { 'Content-Type': contentType };
        if (credential.startsWith('session')) headers.Cookie = owner.cookie;
        if (credential === 'session') headers[CSRF_HEADER] = owner.csrfToken;
        if (credential === 'personal access token') headers.Authorization = `Bearer ${owner.token}`;
        const response = await contractFetch(`${t.stack.baseUrl}${path}${search ? `?${search}` : ''}`, {
          method: route.method,
          headers,
          body: route.method === 'GET' ? undefined : body,
        });
        expect(response.status, `${route.id} ${path}`).toBeLessThan(500);
      }),
      { seed: SEED, numRuns: RUNS, verbose: true },
    );
  }, 300_000);
});

describe('an over-long search word on every route of the route table', () => {
  it('answers every GET route given q (and the search routes a word at and past the limit) without a 5xx', async () => {
    const getRoutes = routes.filter((route) => route.method === 'GET' && !route.path.includes('{proxy+}'));
    expect(getRoutes.map((route) => route.path)).toEqual(
      expect.arrayContaining(['/api/v2/me/search', '/library/search']),
    );
    for (const route of getRoutes) {
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(ids[name] ?? 'x'));
      for (const length of [QUERY_MAX_LENGTH, QUERY_MAX_LENGTH + 1, 6_000])
        for (const headers of [{ Cookie: owner.cookie }, { Authorization: `Bearer ${owner.token}` }] as Record<
          string,
          string
        >[]) {
          const answer = await fetch(`${t.stack.baseUrl}${path}?q=${'w'.repeat(length)}`, { headers });
          await answer.arrayBuffer();
          expect(answer.status, `${route.id} ${path} ${length}`).toBeLessThan(500);
          // The longest word allowed reaches the search engine itself.
          if (route.path.endsWith('/search') && length === QUERY_MAX_LENGTH && headers.Cookie)
            expect(answer.status, path).toBe(200);
        }
    }
  }, 120_000);
});
