import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoFeedStore } from '../../functions/adapters/dynamo/feed-store';
import { parseRateLimitPolicy, type RateLimitPolicy } from '../../functions/core/contract/rate-limit';
import { newFeedRecord } from '../../functions/core/feed/settings';
import { newUser } from '../../functions/core/workspace/accounts';
import { makeHandler as makeJsonFeedHandler } from '../../functions/published-feed-json/handler';
import { createTestTable } from '../support/dynamo';
import { context, proxyEvent } from '../support/factories';
import { publishedFeedTestDeps } from '../support/save-deps';

/** A feed read waits for two DynamoDB round trips: the feed beside the rate-limit write, then its notes beside its owner. */

let table: Awaited<ReturnType<typeof createTestTable>>;
let feedId: string;
beforeAll(async () => {
  table = await createTestTable();
  const user = newUser({ id: randomUUID(), name: 'Reader', now: new Date() });
  await new DynamoAccountStore(table.doc, table.tableName).createUser(user);
  const feed = newFeedRecord({
    id: randomUUID(),
    userId: user.id,
    settings: { title: 'Round trips', tags: ['rt'], sharing: 'public' },
    now: new Date(),
  });
  await new DynamoFeedStore(table.doc, table.tableName).createFeed(feed);
  feedId = feed.id;
});
afterAll(() => table.client.destroy());

const feedHandler = (rateLimitPolicy: RateLimitPolicy) =>
  makeJsonFeedHandler(publishedFeedTestDeps(table, { rateLimitPolicy }));

const read = (handler: ReturnType<typeof feedHandler>, id: string, sourceIp: string) =>
  handler(proxyEvent({ httpMethod: 'GET', sourceIp, pathParameters: { feed_id: id } }), context());

describe('feed reads against DynamoDB Local', () => {
  it('reads a published feed in 2 serial round trips', async () => {
    table.requests.reset();
    const response = await read(feedHandler(parseRateLimitPolicy('100;w=60')), feedId, '192.0.2.10');
    expect(response.statusCode).toBe(200);
    expect(table.requests.serial).toBe(2);
    expect(table.requests.operations.slice(0, 2).sort()).toEqual(['GetItemCommand', 'UpdateItemCommand']);
  });

  it('still answers 429 before 404 and 422 once the quota is spent', async () => {
    const handler = feedHandler(parseRateLimitPolicy('1;w=60'));
    expect((await read(handler, randomUUID(), '192.0.2.11')).statusCode).toBe(404);
    expect((await read(handler, randomUUID(), '192.0.2.11')).statusCode).toBe(429);
    expect((await read(handler, 'not-a-uuid', '192.0.2.11')).statusCode).toBe(429);
    expect((await read(handler, 'not-a-uuid', '192.0.2.12')).statusCode).toBe(422);
  });
});
