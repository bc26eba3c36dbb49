import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { DynamoRateLimiter } from '../../functions/adapters/dynamo/rate-limiter';
import type { EnrichmentRequest } from '../../functions/core/enrichment';
import { parseRateLimitPolicy } from '../../functions/core/rate-limit';
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
