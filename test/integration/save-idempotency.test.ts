import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { keys } from '../../functions/adapters/dynamo/keys';
import type { EnrichmentRequest } from '../../functions/core/enrich/enrichment';
import { IDEMPOTENCY_LEASE_SECONDS, IDEMPOTENCY_TTL_SECONDS } from '../../functions/core/save/idempotency';
import type { BookmarkStore } from '../../functions/core/save/save-bookmark';
import { newAccessToken, newUser } from '../../functions/core/workspace/accounts';
import { makeHandler, type SaveBookmarkDeps } from '../../functions/save-bookmark/handler';
import { createTestTable } from '../support/dynamo';
import { context, proxyEvent } from '../support/factories';
import { testMetrics } from '../support/observability';
import { saveHandlerDeps } from '../support/save-deps';

/** The save handler against DynamoDB Local with an Idempotency-Key: round trips, races and expiry. */

let table: Awaited<ReturnType<typeof createTestTable>>;
let store: DynamoBookmarkStore;
const published: EnrichmentRequest[] = [];

function deps(overrides: Partial<SaveBookmarkDeps> = {}): SaveBookmarkDeps {
  return saveHandlerDeps(table, published, { store, ...overrides });
}

async function createUser(noteCap?: number) {
  const now = new Date();
  const user = newUser({ id: randomUUID(), name: 'Idempotent', noteCap, now });
  const accounts = new DynamoAccountStore(table.doc, table.tableName);
  await accounts.createUser(user);
  const minted = newAccessToken({ id: randomUUID(), userId: user.id, now });
  await accounts.createToken(minted.record, minted.hash);
  // Its use this hour is on record, so the round-trip counts see no "last used" write.
  await accounts.recordTokenUse(minted.hash, now, null);
  return { user, token: minted.secret };
}

async function save(handler: ReturnType<typeof makeHandler>, token: string, body: unknown, key?: string) {
  const headers: Record<string, string> = {
    Authorization: `Bearer ${token}`,
    'Content-Type': 'application/json',
    ...(key ? { 'Idempotency-Key': key } : {}),
  };
  const response = await handler(proxyEvent({ headers, body: JSON.stringify(body) }), context());
  return {
    status: response.statusCode,
    retryAfter: response.headers?.['Retry-After'],
    body: response.body,
    json: JSON.parse(response.body),
  };
}

/** A promise the test resolves when it chooses: holds one request at a chosen step, without timers. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** `store`, with one method made to wait for `until` (and to say when it was reached) before it runs. */
function heldAt<M extends 'createBookmark' | 'appendToNote'>(method: M, until: Promise<void>) {
  const reached = gate();
  const held = Object.create(store) as BookmarkStore;
  held[method] = (async (...args: unknown[]) => {
    reached.open();
    await until;
    return (store[method] as (...a: unknown[]) => unknown).apply(store, args);
  }) as BookmarkStore[M];
  return { store: held, reached: reached.opened };
}

beforeAll(async () => {
  table = await createTestTable();
  store = new DynamoBookmarkStore(table.doc, table.tableName);
});
afterAll(() => table.client.destroy());
beforeEach(() => {
  published.splice(0);
  table.requests.reset();
});

/** A save's round trips with the claim of its key added: one Put, after the token lookup and the rate limit. */
const withClaim = (operations: readonly string[]) => [
  ...operations.slice(0, 2),
  'PutItemCommand',
  ...operations.slice(2),
];

describe('round trips', () => {
  it('costs a first save with a key one round trip more than one without: the Put claiming the key', async () => {
    const { token } = await createUser();
    const handler = makeHandler(deps());
    table.requests.reset();
    await save(handler, token, { url: 'https://example.com/no-key', selection: 'x' });
    const withoutKey = [...table.requests.operations];
    table.requests.reset();
    const response = await save(handler, token, { url: 'https://example.com/with-key', selection: 'x' }, 'first-save');
    expect(response.status).toBe(200);
    expect(withoutKey).toEqual(['BatchGetItemCommand', 'UpdateItemCommand', 'TransactWriteItemsCommand']);
    expect(table.requests.operations).toEqual(withClaim(withoutKey));
  });

  it('costs an append with a key one round trip more than one without', async () => {
    const { token } = await createUser();
    const handler = makeHandler(deps());
    await save(handler, token, { url: 'https://example.com/append' });
    table.requests.reset();
    await save(handler, token, { url: 'https://example.com/append', selection: 'one' });
    const withoutKey = [...table.requests.operations];
    table.requests.reset();
    await save(handler, token, { url: 'https://example.com/append', selection: 'two' }, 'append-key');
    // Token and quota; the create that finds the URL taken; the bookmark and note read; the append; then
    // together the bookmark's time and the highlight's record, which a keyed save writes in one
    // transaction with its answer.
    expect(withoutKey).toEqual([
      'BatchGetItemCommand',
      'UpdateItemCommand',
      'TransactWriteItemsCommand',
      'BatchGetItemCommand',
      'UpdateItemCommand',
      'UpdateItemCommand',
      'PutItemCommand',
    ]);
    expect(table.requests.operations).toEqual(withClaim([...withoutKey.slice(0, -1), 'TransactWriteItemsCommand']));
  });

  it('replays from the failed claim alone, with no transaction, and counts it as a replay', async () => {
    const { token } = await createUser();
    const metrics = testMetrics();
    const added = vi.spyOn(metrics, 'addMetric');
    const handler = makeHandler(deps({ metrics }));
    const first = await save(handler, token, { url: 'https://example.com/replay-cost' }, 'replay-cost');
    table.requests.reset();
    const again = await save(handler, token, { url: 'https://example.com/replay-cost' }, 'replay-cost');
    expect(again.body).toBe(first.body);
    expect(table.requests.operations).toEqual(['BatchGetItemCommand', 'UpdateItemCommand', 'PutItemCommand']);
    expect(published).toHaveLength(1);
    expect(added.mock.calls.map(([name]) => name)).toEqual(['BookmarkCreated', 'SaveReplayed']);
  });
});

/** The 409 a repeat gets while the request with its key is still being processed. */
function expectInFlight(response: Awaited<ReturnType<typeof save>>) {
  expect(response.status).toBe(409);
  expect(response.retryAfter).toBe('1');
  expect(response.json).toEqual({
    detail: {
      code: 'idempotency_in_flight',
      message: 'A request with this Idempotency-Key is still being processed; retry shortly.',
      retry_after: 1,
    },
  });
}

describe('a duplicate that arrives while the first is in flight', () => {
  it('is a 409 with Retry-After, doing nothing; once the first is done, a repeat replays it', async () => {
    const { token } = await createUser();
    const release = gate();
    const held = heldAt('createBookmark', release.opened);
    const body = { url: 'https://example.com/in-flight', selection: 'once' };
    // The first request stops just after claiming the key, before its transaction.
    const first = save(makeHandler(deps({ store: held.store })), token, body, 'in-flight');
    await held.reached;
    table.requests.reset();
    const duplicate = await save(makeHandler(deps()), token, body, 'in-flight');
    expectInFlight(duplicate);
    expect(table.requests.operations).toEqual(['BatchGetItemCommand', 'UpdateItemCommand', 'PutItemCommand']);
    release.open();
    const original = await first;
    expect(original.status).toBe(200);
    expect(original.json.is_new_bookmark).toBe(true);
    expect((await save(makeHandler(deps()), token, body, 'in-flight')).body).toBe(original.body);
    expect(published).toHaveLength(1);
    expect((await store.getNote(original.json.note_id))?.body.match(/> once/g)).toHaveLength(1);
  });

  it('does the same on the append path: one quote appended', async () => {
    const { token } = await createUser();
    const url = 'https://example.com/in-flight-append';
    const { json: saved } = await save(makeHandler(deps()), token, { url, selection: 'first' });
    const release = gate();
    const held = heldAt('appendToNote', release.opened);
    const body = { url, selection: 'appended once', append: true };
    const first = save(makeHandler(deps({ store: held.store })), token, body, 'in-flight-append');
    await held.reached;
    expectInFlight(await save(makeHandler(deps()), token, body, 'in-flight-append'));
    release.open();
    const original = await first;
    expect(original.json).toMatchObject({ is_new_bookmark: false, selection_appended: true });
    expect((await save(makeHandler(deps()), token, body, 'in-flight-append')).body).toBe(original.body);
    expect((await store.getNote(saved.note_id))?.body.match(/> appended once/g)).toHaveLength(1);
  });

  it('refuses another body with 422 while the first is in flight', async () => {
    const { token } = await createUser();
    const release = gate();
    const held = heldAt('createBookmark', release.opened);
    const first = save(
      makeHandler(deps({ store: held.store })),
      token,
      { url: 'https://example.com/one' },
      'contested',
    );
    await held.reached;
    const other = await save(makeHandler(deps()), token, { url: 'https://example.com/two' }, 'contested');
    release.open();
    expect(other.status).toBe(422);
    expect(other.json.detail).toEqual([
      expect.objectContaining({ loc: ['header', 'idempotency-key'], type: 'idempotency_key_reused' }),
    ]);
    expect((await first).status).toBe(200);
  });

  it('takes over a claim whose lease has passed (its request crashed); the late first then gets the new answer', async () => {
    const { token } = await createUser();
    const start = Date.now();
    const release = gate();
    const held = heldAt('createBookmark', release.opened);
    const body = { url: 'https://example.com/lease', selection: 'leased' };
    const first = save(makeHandler(deps({ store: held.store, now: () => new Date(start) })), token, body, 'lease');
    await held.reached;
    const at = (seconds: number) => makeHandler(deps({ now: () => new Date(start + seconds * 1000) }));
    expectInFlight(await save(at(IDEMPOTENCY_LEASE_SECONDS - 1), token, body, 'lease'));
    const takeover = await save(at(IDEMPOTENCY_LEASE_SECONDS), token, body, 'lease');
    expect(takeover.status).toBe(200);
    release.open();
    // Its claim is no longer its own, so its transaction fails and it answers what the key now holds.
    expect((await first).body).toBe(takeover.body);
    expect((await store.getNote(takeover.json.note_id))?.body.match(/> leased/g)).toHaveLength(1);
  });
});

describe('a save that fails after claiming its key', () => {
  it('answers 500 and releases the claim, so a retry runs anew', async () => {
    const { token } = await createUser();
    const failing = Object.create(store) as BookmarkStore;
    failing.createBookmark = () => Promise.reject(new Error('DynamoDB is down'));
    const body = { url: 'https://example.com/failing', selection: 'retried' };
    expect((await save(makeHandler(deps({ store: failing })), token, body, 'failing')).status).toBe(500);
    const retry = await save(makeHandler(deps()), token, body, 'failing');
    expect(retry.status).toBe(200);
    expect((await store.getNote(retry.json.note_id))?.body.match(/> retried/g)).toHaveLength(1);
  });

  it('still answers 500 when the release fails too; the lease then frees the key', async () => {
    const { token } = await createUser();
    const failing = Object.create(store) as BookmarkStore;
    failing.createBookmark = () => Promise.reject(new Error('DynamoDB is down'));
    failing.releaseClaim = () => Promise.reject(new Error('still down'));
    const start = Date.now();
    const body = { url: 'https://example.com/unreleased' };
    expect(
      (await save(makeHandler(deps({ store: failing, now: () => new Date(start) })), token, body, 'unreleased')).status,
    ).toBe(500);
    const at = (seconds: number) => makeHandler(deps({ now: () => new Date(start + seconds * 1000) }));
    expectInFlight(await save(at(1), token, body, 'unreleased'));
    expect((await save(at(IDEMPOTENCY_LEASE_SECONDS), token, body, 'unreleased')).status).toBe(200);
  });
});

describe('answers that wrote nothing', () => {
  it('replays a 402 even after the account has room again, until a new key is sent', async () => {
    const { token, user } = await createUser(0);
    const handler = makeHandler(deps());
    const body = { url: 'https://example.com/over-cap' };
    const refused = await save(handler, token, body, 'over-cap');
    expect(refused.status).toBe(402);
    await table.doc.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.user(user.id),
        UpdateExpression: 'SET noteCap = :cap',
        ExpressionAttributeValues: { ':cap': 10 },
      }),
    );
    const again = await save(handler, token, body, 'over-cap');
    expect(again).toEqual(refused);
    expect((await save(handler, token, body, 'over-cap, second try')).status).toBe(200);
  });

  it('replays "nothing appended" after later saves changed the note', async () => {
    const { token } = await createUser();
    const handler = makeHandler(deps());
    const url = 'https://example.com/unchanged';
    const { json: saved } = await save(handler, token, { url, selection: 'same' });
    const unchanged = await save(handler, token, { url, selection: 'same' }, 'unchanged');
    expect(unchanged.json.selection_appended).toBe(false);
    await save(handler, token, { url, selection: 'something else' });
    // Re-run, this save would now append "same" again; its key makes it the earlier answer instead.
    expect(await save(handler, token, { url, selection: 'same' }, 'unchanged')).toEqual(unchanged);
    expect((await store.getNote(saved.note_id))?.body.match(/> same/g)).toHaveLength(1);
  });
});

describe('expiry', () => {
  it('replays for 24 hours, then takes the key as new (DynamoDB has not deleted the record yet)', async () => {
    const { token } = await createUser();
    const start = Date.now();
    const at = (seconds: number) => makeHandler(deps({ now: () => new Date(start + seconds * 1000) }));
    const body = { url: 'https://example.com/expiring', selection: 'quote', append: true };
    const first = await save(at(0), token, body, 'expiring');
    expect(await save(at(IDEMPOTENCY_TTL_SECONDS - 1), token, body, 'expiring')).toEqual(first);
    const later = await save(at(IDEMPOTENCY_TTL_SECONDS), token, body, 'expiring');
    expect(later.json).toMatchObject({ is_new_bookmark: false, selection_appended: true });
    expect((await store.getNote(first.json.note_id))?.body.match(/> quote/g)).toHaveLength(2);
    // The new answer is kept in its turn.
    expect(await save(at(IDEMPOTENCY_TTL_SECONDS + 1), token, body, 'expiring')).toEqual(later);
  });
});

describe('the header sent twice', () => {
  it('answers 422, as API Gateway would otherwise pass on only the last value', async () => {
    const { token } = await createUser();
    const event = proxyEvent({
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'b' },
      multiValueHeaders: { Authorization: [`Bearer ${token}`], 'Idempotency-Key': ['a', 'b'] },
      body: JSON.stringify({ url: 'https://example.com/twice' }),
    });
    const response = await makeHandler(deps())(event, context());
    expect(response.statusCode).toBe(422);
    expect(JSON.parse(response.body).detail).toEqual([
      expect.objectContaining({ loc: ['header', 'idempotency-key'], type: 'idempotency_key_repeated' }),
    ]);
  });
});
