import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { createDynamoClients } from '../../functions/adapters/dynamo/client';
import { DynamoRateLimiter } from '../../functions/adapters/dynamo/rate-limiter';
import { ContentionError, DeadlineExceededError } from '../../functions/core/deadline';
import { makeHandler } from '../../functions/save-bookmark/handler';
import { findFreePort } from '../../local/dynamodb-local';
import { createTestTable } from '../support/dynamo';
import { context, proxyEvent } from '../support/factories';
import { newTestAccount, saveHandlerDeps } from '../support/save-deps';

/** Issue 21: a fault that passes by itself is a 503 with Retry-After in the contract's shape, never a 500. */

let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(() => table.client.destroy());

const body = JSON.stringify({ url: 'https://example.com/temporary', selection: 'kept for later' });

async function saveWith(token: string, overrides: Parameters<typeof saveHandlerDeps>[2]) {
  const handler = makeHandler(saveHandlerDeps(table, [], overrides));
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  return handler(proxyEvent({ headers, body }), context());
}

function expectTemporary(
  response: { statusCode: number; headers?: Record<string, unknown>; body: string },
  wait: string,
) {
  expect(response.statusCode).toBe(503);
  expect(response.headers?.['Retry-After']).toBe(wait);
  expect(JSON.parse(response.body)).toEqual({ detail: expect.stringMatching(/^Temporarily unavailable; retry in/) });
  // The route's headers are there as on every answer.
  expect(response.headers?.['RateLimit-Policy']).toBeDefined();
}

describe('temporary faults', () => {
  it('answers 503 with Retry-After when DynamoDB cannot be reached (refused connection)', async () => {
    const { token } = await newTestAccount(table);
    const gone = createDynamoClients({ endpoint: `http://127.0.0.1:${await findFreePort()}`, maxAttempts: 1 });
    const response = await saveWith(token, {
      accounts: new DynamoAccountStore(gone.doc, table.tableName),
      store: new DynamoBookmarkStore(gone.doc, table.tableName),
      rateLimiter: new DynamoRateLimiter(gone.doc, table.tableName),
    });
    gone.client.destroy();
    expectTemporary(response, '5');
  });

  it.each([
    ['lost races until out of attempts', new ContentionError('note changed under 40 attempts')],
    ['retries out of time', new DeadlineExceededError('Out of time for retry 6')],
  ])('answers 503 with Retry-After: 1 for %s', async (_, fault) => {
    const { token } = await newTestAccount(table);
    const store = new DynamoBookmarkStore(table.doc, table.tableName);
    store.createBookmark = () => Promise.reject(fault);
    expectTemporary(await saveWith(token, { store }), '1');
  });

  it('still answers 500 for a failure that is no temporary fault', async () => {
    const { token } = await newTestAccount(table);
    const store = new DynamoBookmarkStore(table.doc, table.tableName);
    store.createBookmark = () => Promise.reject(new TypeError('a bug'));
    const response = await saveWith(token, { store });
    expect(response.statusCode).toBe(500);
    expect(response.headers?.['Retry-After']).toBeUndefined();
  });
});
