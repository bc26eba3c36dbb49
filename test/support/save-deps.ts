import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { DynamoFeedStore } from '../../functions/adapters/dynamo/feed-store';
import { DynamoRateLimiter } from '../../functions/adapters/dynamo/rate-limiter';
import { parseRateLimitPolicy } from '../../functions/core/contract/rate-limit';
import type { EnrichmentRequest } from '../../functions/core/enrich/enrichment';
import { newAccessToken, newUser } from '../../functions/core/workspace/accounts';
import type { PublishedFeedDeps } from '../../functions/http/published-feed';
import type { SaveBookmarkDeps } from '../../functions/save-bookmark/handler';
import type { createTestTable } from './dynamo';
import { testMetrics } from './observability';

/** The save handler's dependencies on a test table, with enrichment requests collected in `published`. */
export function saveHandlerDeps(
  table: Awaited<ReturnType<typeof createTestTable>>,
  published: EnrichmentRequest[],
  overrides: Partial<SaveBookmarkDeps> = {},
): SaveBookmarkDeps {
  return {
    accounts: new DynamoAccountStore(table.doc, table.tableName),
    store: new DynamoBookmarkStore(table.doc, table.tableName),
    rateLimiter: new DynamoRateLimiter(table.doc, table.tableName),
    enrichment: { publish: async (request) => void published.push(request) },
    rateLimitPolicy: parseRateLimitPolicy('1000;w=60'),
    corsOrigins: ['*'],
    logger: new Logger({ serviceName: 'test', logLevel: 'SILENT' }),
    metrics: testMetrics(),
    newId: randomUUID,
    now: () => new Date(),
    ...overrides,
  };
}

/** The feed routes' dependencies on a test table; `overrides` for the quota or CloudFront trust under test. */
export function publishedFeedTestDeps(
  table: Awaited<ReturnType<typeof createTestTable>>,
  overrides: Partial<PublishedFeedDeps> = {},
): PublishedFeedDeps {
  return {
    feeds: new DynamoFeedStore(table.doc, table.tableName),
    users: new DynamoAccountStore(table.doc, table.tableName),
    rateLimiter: new DynamoRateLimiter(table.doc, table.tableName),
    rateLimitPolicy: parseRateLimitPolicy('1000;w=60'),
    maxEntries: 50,
    cacheSeconds: 60,
    publicBaseUrl: 'https://gleaner.test',
    trustCdnHeaders: false,
    logger: new Logger({ serviceName: 'test', logLevel: 'SILENT' }),
    ...overrides,
  };
}

/** A user with a fresh token, written straight to a test table. */
export async function newTestAccount(table: Awaited<ReturnType<typeof createTestTable>>, name = 'Test User') {
  const accounts = new DynamoAccountStore(table.doc, table.tableName);
  const now = new Date();
  const user = newUser({ id: randomUUID(), name, now });
  await accounts.createUser(user);
  const token = newAccessToken({ id: randomUUID(), userId: user.id, now });
  await accounts.createToken(token.record, token.hash);
  return { userId: user.id, token: token.secret, accounts };
}
