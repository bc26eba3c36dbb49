import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { createDynamoClients, type DynamoClients } from '../../functions/adapters/dynamo/client';
import { ensureTable } from '../../functions/adapters/dynamo/create-table';
import { DynamoFeedStore } from '../../functions/adapters/dynamo/feed-store';
import { countRoundTrips, type RoundTripChain } from './round-trips';

/**
 * A fresh table in the run's DynamoDB Local (or the one at `endpoint`), so test files never see each
 * other's data. Its stream is off unless asked for (`ensureTable` says why); the local stack turns
 * it on when it runs the stream's consumers.
 */
export async function createTestTable(
  endpoint: string = inject('dynamoEndpoint'),
  { stream = false }: { stream?: boolean } = {},
): Promise<DynamoClients & { tableName: string; endpoint: string; requests: RequestCounter }> {
  const clients = createDynamoClients({ endpoint, region: 'local' });
  const tableName = `test-${randomUUID()}`;
  await ensureTable(clients.client, tableName, { stream });
  return { ...clients, tableName, endpoint, requests: countRequests(clients) };
}

export interface RequestCounter extends Pick<RoundTripChain, 'operations' | 'serial' | 'reset'> {
  /** DynamoDB API calls (round trips) made through the clients since the last reset. */
  readonly count: number;
  /** Items read (GetItem, BatchGetItem; Query and Scan: every item evaluated) since the last reset. */
  readonly itemsRead: number;
}

function countRequests({ client }: DynamoClients): RequestCounter {
  const roundTrips = countRoundTrips(client);
  let itemsRead = 0;
  client.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const output = result.output as {
        Item?: unknown;
        Items?: unknown[];
        ScannedCount?: number;
        Responses?: Record<string, unknown[]>;
      };
      // A filtered Query reads (and bills) every item it evaluates, not only those it returns.
      const queried = output.ScannedCount ?? output.Items?.length ?? 0;
      itemsRead +=
        (output.Item ? 1 : 0) +
        queried +
        Object.values(output.Responses ?? {}).reduce((sum, items) => sum + items.length, 0);
      return result;
    },
    { step: 'initialize', name: 'countItemsRead' },
  );
  return {
    get count() {
      return roundTrips.operations.length;
    },
    get itemsRead() {
      return itemsRead;
    },
    get serial() {
      return roundTrips.serial;
    },
    operations: roundTrips.operations,
    reset: () => {
      roundTrips.reset();
      itemsRead = 0;
    },
  };
}

/** A fresh table with the stores over it, for tests of the stores' behaviour together. */
export async function createTestStores(options: { stream?: boolean } = {}) {
  const table = await createTestTable(undefined, options);
  return {
    table,
    accounts: new DynamoAccountStore(table.doc, table.tableName),
    bookmarks: new DynamoBookmarkStore(table.doc, table.tableName),
    feeds: new DynamoFeedStore(table.doc, table.tableName),
  };
}
