import { randomUUID } from 'node:crypto';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoFeedStore } from '../../functions/adapters/dynamo/feed-store';
import { keys } from '../../functions/adapters/dynamo/keys';
import { currentWindow, parseRateLimitPolicy } from '../../functions/core/contract/rate-limit';
import { newFeedRecord } from '../../functions/core/feed/settings';
import { parseIdempotencyKey } from '../../functions/core/save/idempotency';
import { hashToken } from '../../functions/core/token/token';
import { routes } from '../../functions/platform/routes';
import openapi from '../../openapi.json' with { type: 'json' };
import { assertMatchesContract } from '../support/contract';
import {
  arbitraryOf,
  headerText,
  type JsonSchema,
  malformedBody,
  mutatedObjectOf,
  pathSegment,
} from '../support/fuzz-requests';
import { startTestStack, type TestStack } from '../support/local-stack';

/**
 * Property-based fuzzing of the three operations from openapi.json: valid and broken requests, sent
 * in small concurrent batches to the local stack. Every answer must be documented (status, headers,
 * body), none may be a 5xx, and afterwards the table must be consistent. Reproduce a failure with
 * the seed it prints: `FUZZ_SEED=<seed> npx vitest run test/http/contract-fuzz.test.ts`.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const BATCHES = 200;
const SAVE_POLICY = '5000;w=60';

let t: TestStack;
const tokens: Record<string, string> = {};
const feedIds: Record<'public' | 'link' | 'private', string> = { public: '', link: '', private: '' };

beforeAll(async () => {
  // Quotas well above the run's requests, so the oracles below see real answers rather than 429s.
  t = await startTestStack({ SAVE_RATE_LIMIT: SAVE_POLICY, FEED_RATE_LIMIT: '5000;w=60' });
  const roomy = await t.createUser();
  const capped = await t.createUser({ noteCap: 3 });
  const revoked = await t.createUser();
  await t.accounts.revokeToken(revoked.tokenId);
  const throttled = await t.createUser();
  await exhaustQuota(`token:${hashToken(throttled.token)}`);
  Object.assign(tokens, {
    roomy: roomy.token,
    capped: capped.token,
    revoked: revoked.token,
    throttled: throttled.token,
  });

  const feeds = new DynamoFeedStore(t.table.doc, t.table.tableName);
  for (const sharing of ['public', 'link', 'private'] as const) {
    const feed = newFeedRecord({
      id: randomUUID(),
      userId: roomy.user.id,
      settings: { title: `Fuzz ${sharing}`, tags: ['fuzz'], sharing },
      now: new Date(),
    });
    await feeds.createFeed(feed);
    feedIds[sharing] = feed.id;
  }
});
afterAll(() => t.stop());

/** Fills the token's rate-limit windows for the next ten minutes: its saves are all 429s. */
async function exhaustQuota(subject: string): Promise<void> {
  const policy = parseRateLimitPolicy(SAVE_POLICY);
  const { start } = currentWindow(policy, Date.now());
  for (let i = 0; i < 10; i++) {
    const windowStart = start + i * policy.windowSeconds;
    await t.table.doc.send(
      new PutCommand({
        TableName: t.table.tableName,
        Item: { ...keys.rateLimitWindow(subject, windowStart), hits: policy.limit, expiresAt: windowStart + 3600 },
      }),
    );
  }
}

interface FuzzRequest {
  readonly method: string;
  /** Path relative to the stack's base URL. */
  readonly path: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: string | Buffer;
  /** Statuses the request must get, where the outcome is certain. */
  readonly expected?: readonly number[];
  /** The credential and Idempotency-Key a save sends a valid key with: what it would claim. */
  readonly claims?: string;
}

type Credential =
  | 'roomy'
  | 'capped'
  | 'throttled'
  | 'revoked'
  | 'absent'
  | 'wrongPrefix'
  | 'badChecksum'
  | 'notBearer'
  | 'emptyBearer'
  | 'duplicate';

function authorization(credential: Credential): [string, string][] {
  const bearer = (token: string): [string, string] => ['Authorization', `Bearer ${token}`];
  switch (credential) {
    case 'roomy':
    case 'capped':
    case 'throttled':
    case 'revoked':
      return [bearer(tokens[credential]!)];
    case 'absent':
      return [];
    case 'wrongPrefix':
      return [bearer(`ghp_${tokens.roomy!.slice(4)}`)];
    case 'badChecksum':
      return [bearer(`${tokens.roomy!.slice(0, -1)}${tokens.roomy!.endsWith('A') ? 'B' : 'A'}`)];
    case 'notBearer':
      return [['Authorization', `Basic ${Buffer.from('user:pass').toString('base64')}`]];
    case 'emptyBearer':
      return [['Authorization', 'Bearer ']];
    case 'duplicate':
      return [bearer(tokens.roomy!), bearer('gln_not-a-token')];
  }
}

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON'];

const oddHeaders = fc.array(
  fc.tuple(fc.constantFrom('X-Fuzz', 'Accept', 'Origin', 'X-Forwarded-For', 'Cookie', 'User-Agent'), headerText),
  { maxLength: 3 },
);

const requestSchema = openapi.components.schemas.BookmarkSaveRequest as JsonSchema;
const pathOf = (routeId: string) => routes.find((route) => route.id === routeId)!.path;

/** A few keys reused across different bodies (replays and 422 reuses), fresh ones and malformed ones. */
const idempotencyKey = fc.oneof(
  fc.constantFrom('fuzz-1', '"fuzz-1"', 'fuzz-2', '', ' ', '"broken', 'ü', 'x'.repeat(300)),
  fc.uuid(),
);
const idempotencyKeys: fc.Arbitrary<string[]> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<string[]>([]) },
  { weight: 3, arbitrary: idempotencyKey.map((key) => [key]) },
  { weight: 1, arbitrary: fc.tuple(idempotencyKey, idempotencyKey) },
);

const saveRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    credential: fc.constantFrom<Credential>(
      'roomy',
      'roomy',
      'roomy',
      'capped',
      'throttled',
      'revoked',
      'absent',
      'wrongPrefix',
      'badChecksum',
      'notBearer',
      'emptyBearer',
      'duplicate',
    ),
    contentType: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...JSON_TYPES) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          null,
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/jsonx',
        ),
      },
    ),
    body: fc.oneof(
      {
        weight: 5,
        arbitrary: arbitraryOf(requestSchema).map((body) => ({
          valid: true,
          text: JSON.stringify(body) as string | Buffer,
        })),
      },
      {
        weight: 4,
        arbitrary: mutatedObjectOf(requestSchema).map((body) => ({
          valid: false,
          text: JSON.stringify(body) as string | Buffer,
        })),
      },
      { weight: 1, arbitrary: malformedBody.map((text) => ({ valid: false, text })) },
    ),
    keys: idempotencyKeys,
    extra: oddHeaders,
  })
  .map(({ credential, contentType, body, keys, extra }) => {
    const asJson = contentType !== null && JSON_TYPES.includes(contentType);
    const key = parseIdempotencyKey(keys);
    return {
      method: 'POST',
      path: pathOf('SaveBookmark'),
      headers: [
        ...authorization(credential),
        ...(contentType === null ? [] : [['Content-Type', contentType] as const]),
        ...keys.map((key) => ['Idempotency-Key', key] as const),
        ...extra,
      ],
      body: body.text,
      // A key may have been used with another body (a 422), so only a valid save without one is certain.
      expected: expectedSaveStatuses(
        credential,
        !asJson ? 'notJson' : body.valid && keys.length === 0 ? 'valid' : 'uncertain',
      ),
      claims: key.ok && key.key !== null ? `${credential} ${key.key}` : undefined,
    };
  });

/** What a save must answer where the credential (or, with a good one, the body) settles it. */
function expectedSaveStatuses(credential: Credential, body: 'valid' | 'uncertain' | 'notJson'): number[] | undefined {
  switch (credential) {
    case 'throttled':
      return [429];
    case 'revoked':
    case 'absent':
    case 'wrongPrefix':
    case 'badChecksum':
    case 'notBearer':
    case 'emptyBearer':
    case 'duplicate':
      return [401];
    case 'roomy':
    case 'capped':
      if (body === 'notJson') return [422];
      if (body === 'valid') return credential === 'roomy' ? [200] : [200, 402];
      return undefined;
  }
}

const feedRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    routeId: fc.constantFrom('GetPublishedFeed', 'GetPublishedFeedRss'),
    // Mapped when generated, which is after beforeAll created the feeds.
    feed: fc.oneof(
      fc
        .constantFrom('public', 'link', 'private')
        .map((sharing) => ({ segment: feedIds[sharing], expected: sharing === 'private' ? [404] : [200, 304] })),
      fc.uuid().map((id) => ({ segment: id, expected: [404] })),
      fc
        .constantFrom('upper', 'compact', 'urn')
        .map((form) => ({ segment: variantOf(feedIds.public, form), expected: [200, 304] })),
      fc
        .string({ unit: 'binary', maxLength: 40 })
        .filter((text) => text.length > 0)
        .map((text) => ({ segment: pathSegment(text), expected: undefined })),
    ),
    conditional: fc.array(
      fc.tuple(
        fc.constantFrom('If-None-Match', 'If-Modified-Since'),
        fc.oneof(headerText, fc.constantFrom('*', 'W/"x"', new Date().toUTCString(), 'Thu, 01 Jan 1970 00:00:00 GMT')),
      ),
      {
        maxLength: 2,
      },
    ),
    method: fc.constantFrom('GET', 'GET', 'HEAD'),
    extra: oddHeaders,
  })
  .map(({ routeId, feed, method, conditional, extra }) => ({
    method,
    path: pathOf(routeId).replace('{feed_id}', feed.segment),
    headers: [...conditional, ...extra],
    expected: feed.expected,
  }));

function variantOf(id: string, form: string): string {
  if (form === 'upper') return id.toUpperCase();
  if (form === 'compact') return id.replace(/-/g, '');
  return `urn:uuid:${id}`;
}

let sent = 0;
const statuses = new Map<number, number>();

/** `contested`: another request of the batch claims the same key, so this one may find it in flight (409). */
async function send(fuzz: FuzzRequest, contested: boolean): Promise<void> {
  const url = `${t.stack.baseUrl}${fuzz.path}`;
  const response = await request(url, { method: fuzz.method as 'GET', headers: fuzz.headers.flat(), body: fuzz.body });
  const body = await response.body.text();
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers))
    for (const one of [value ?? []].flat()) headers.append(name, one);
  sent++;
  statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
  const what = `${fuzz.method} ${fuzz.path} ${JSON.stringify(fuzz.headers)} ${String(fuzz.body ?? '').slice(0, 300)}`;
  expect(response.statusCode, `5xx for ${what}: ${body}`).toBeLessThan(500);
  if (fuzz.expected)
    expect(fuzz.expected, `status ${response.statusCode} for ${what}: ${body}`).toContain(response.statusCode);
  if (response.statusCode === 409)
    expect(contested, `409 for ${what} without a concurrent request of the same key: ${body}`).toBe(true);
  assertMatchesContract(fuzz.method, url, { status: response.statusCode, headers, body });
}

describe('fuzzing the three operations from openapi.json', () => {
  it(`answers ~1,000 generated requests as documented, without a 5xx (seed ${SEED})`, {
    timeout: 240_000,
  }, async () => {
    const batch = fc.array(fc.oneof({ weight: 3, arbitrary: saveRequest }, { weight: 2, arbitrary: feedRequest }), {
      minLength: 1,
      maxLength: 9,
    });
    await fc.assert(
      fc.asyncProperty(batch, async (requests) => {
        const claims = requests.map((fuzz) => fuzz.claims);
        await Promise.all(
          requests.map((fuzz, i) =>
            send(fuzz, fuzz.claims !== undefined && claims.some((other, j) => j !== i && other === fuzz.claims)),
          ),
        );
      }),
      { seed: SEED, numRuns: BATCHES },
    );
    console.log(
      `contract fuzz: seed ${SEED}, ${sent} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );
    expect(statuses.get(429)).toBeGreaterThan(0);
    await expectConsistentTable();
  });
});

/** Every bookmark has its note and its uniqueness marker, and each user's note counter counts its notes. */
async function expectConsistentTable(): Promise<void> {
  const items: Record<string, any>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await t.table.doc.send(
      new ScanCommand({ TableName: t.table.tableName, ExclusiveStartKey, ConsistentRead: true }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  const byKey = new Map(items.map((item) => [`${item.pk}|${item.sk}`, item]));
  const get = (key: { pk: string; sk: string }) => byKey.get(`${key.pk}|${key.sk}`);
  const ofType = (type: string) => items.filter((item) => item.type === type);

  const bookmarks = ofType('Bookmark');
  expect(bookmarks.length).toBeGreaterThan(0);
  for (const bookmark of bookmarks) {
    expect(get(keys.note(bookmark.noteId)), `note of bookmark ${bookmark.id}`).toMatchObject({
      bookmarkId: bookmark.id,
      userId: bookmark.userId,
    });
    expect(
      get(keys.savedUrl(bookmark.userId, bookmark.normalizedUrl)),
      `marker of bookmark ${bookmark.id}`,
    ).toMatchObject({ bookmarkId: bookmark.id, noteId: bookmark.noteId });
  }
  for (const marker of ofType('SavedUrl'))
    expect(get(keys.bookmark(marker.bookmarkId)), `bookmark of marker ${marker.sk}`).toBeDefined();
  const notes = ofType('Note');
  for (const note of notes) {
    for (const tag of note.tags as string[])
      expect(get(keys.noteTag(note.id, tag)), `tag ${tag} of note ${note.id}`).toBeDefined();
  }
  for (const user of items.filter((item) => item.sk === 'USER')) {
    expect(user.noteCount, `note counter of user ${user.id}`).toBe(
      notes.filter((note) => note.userId === user.id).length,
    );
    expect(user.noteCount).toBeLessThanOrEqual(user.noteCap);
  }
}
