import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRateLimitPolicy } from '../../functions/core/contract/rate-limit';
import type { EnrichmentRequest } from '../../functions/core/enrich/enrichment';
import { makeHandler as makeJsonFeedHandler } from '../../functions/published-feed-json/handler';
import { makeHandler as makeSaveHandler } from '../../functions/save-bookmark/handler';
import { createTestTable } from '../support/dynamo';
import { context, proxyEvent } from '../support/factories';
import { publishedFeedTestDeps, saveHandlerDeps } from '../support/save-deps';

/** A client rotating through the addresses of its IPv6 /64 stays within one quota. */

let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(() => table.client.destroy());

const QUOTA = parseRateLimitPolicy('2;w=3600');
const published: EnrichmentRequest[] = [];

describe('per-client quotas over IPv6', () => {
  it('counts tokenless saves from one /64 together, and another /64 apart', async () => {
    const save = makeSaveHandler(saveHandlerDeps(table, published, { rateLimitPolicy: QUOTA }));
    const from = (sourceIp: string) =>
      save(
        proxyEvent({
          sourceIp,
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ url: 'https://example.com/' }),
        }),
        context(),
      );
    expect((await from('2001:db8:aa:1::1')).statusCode).toBe(401);
    expect((await from('2001:db8:aa:1:9f3e:2c1:77:5')).statusCode).toBe(401);
    expect((await from('2001:db8:aa:1:ffff::ffff')).statusCode).toBe(429);
    expect((await from('2001:db8:aa:2::1')).statusCode).toBe(401);
    // IPv4-mapped IPv6 is the IPv4 address.
    expect((await from('198.51.100.4')).statusCode).toBe(401);
    expect((await from('::ffff:198.51.100.4')).statusCode).toBe(401);
    expect((await from('198.51.100.4')).statusCode).toBe(429);
  });

  it('counts feed reads behind CloudFront by the viewer address /64', async () => {
    const read = makeJsonFeedHandler(publishedFeedTestDeps(table, { rateLimitPolicy: QUOTA, trustCdnHeaders: true }));
    const from = (viewer: string) =>
      read(
        proxyEvent({
          httpMethod: 'GET',
          sourceIp: '130.176.0.1',
          headers: { 'CloudFront-Viewer-Address': viewer },
          pathParameters: { feed_id: randomUUID() },
        }),
        context(),
      );
    expect((await from('2001:db8:bb:1::1:443')).statusCode).toBe(404);
    expect((await from('2001:db8:bb:1::2:443')).statusCode).toBe(404);
    expect((await from('2001:db8:bb:1:1:2:3:4:443')).statusCode).toBe(429);
    expect((await from('2001:db8:bb:2::1:443')).statusCode).toBe(404);
  });
});
