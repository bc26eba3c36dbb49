import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoFeedStore } from '../../functions/adapters/dynamo/feed-store';
import type { EnrichmentRequest } from '../../functions/core/enrich/enrichment';
import { newFeedRecord } from '../../functions/core/feed/settings';
import { makeHandler as makeRssFeedHandler } from '../../functions/published-feed-rss/handler';
import { makeHandler as makeSaveHandler } from '../../functions/save-bookmark/handler';
import { createTestTable } from '../support/dynamo';
import { context, proxyEvent } from '../support/factories';
import { newTestAccount, publishedFeedTestDeps, saveHandlerDeps } from '../support/save-deps';

/** A feed reader revalidating its copy costs the feed read and the tag index, never the notes. */

let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(() => table.client.destroy());

describe('a conditional feed read', () => {
  it('answers 304 from the feed and its tag index alone, and 200 once a note changes', async () => {
    const { userId, token } = await newTestAccount(table, 'Reader');
    const now = new Date();
    const save = makeSaveHandler(saveHandlerDeps(table, [] as EnrichmentRequest[]));
    const saveBody = (body: unknown) =>
      save(
        proxyEvent({
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        }),
        context(),
      );
    for (let i = 0; i < 5; i++)
      await saveBody({ url: `https://example.com/${i}`, selection: 'x'.repeat(10_000), comment: '#long' });
    const feed = newFeedRecord({
      id: randomUUID(),
      userId,
      settings: { title: 'Long reads', tags: ['long'], sharing: 'public' },
      now,
    });
    await new DynamoFeedStore(table.doc, table.tableName).createFeed(feed);

    const read = makeRssFeedHandler(publishedFeedTestDeps(table));
    const get = (headers: Record<string, string> = {}) =>
      read(proxyEvent({ httpMethod: 'GET', headers, pathParameters: { feed_id: feed.id } }), context());

    const first = await get();
    expect(first.statusCode).toBe(200);
    const etag = first.headers!.ETag as string;

    table.requests.reset();
    const revalidated = await get({ 'If-None-Match': etag });
    expect(revalidated.statusCode).toBe(304);
    expect(table.requests.operations).not.toContain('BatchGetItemCommand');

    await saveBody({ url: 'https://example.com/3', selection: 'one more', append: true });
    const changed = await get({ 'If-None-Match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers!.ETag).not.toBe(etag);
  });
});
