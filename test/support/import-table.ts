import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { DynamoFeedStore } from '../../functions/adapters/dynamo/feed-store';
import { newUser } from '../../functions/core/workspace/accounts';
import { exportWorkspace } from '../../functions/core/workspace/export';
import { createTestTable } from './dynamo';

/**
 * A fresh table in DynamoDB Local for the file's import tests (made before them, dropped after), the
 * stores they read and write, a new user at a time, and a user's JSON export.
 */
export function importTable() {
  const t = {} as {
    table: Awaited<ReturnType<typeof createTestTable>>;
    accounts: DynamoAccountStore;
    store: DynamoBookmarkStore;
    feeds: DynamoFeedStore;
  };
  beforeAll(async () => {
    t.table = await createTestTable();
    t.accounts = new DynamoAccountStore(t.table.doc, t.table.tableName);
    t.store = new DynamoBookmarkStore(t.table.doc, t.table.tableName);
    t.feeds = new DynamoFeedStore(t.table.doc, t.table.tableName);
  });
  afterAll(() => t.table.client.destroy());
  return Object.assign(t, {
    async user(noteCap?: number): Promise<string> {
      const created = newUser({ id: randomUUID(), name: 'Importer', noteCap, now: new Date() });
      await t.accounts.createUser(created);
      return created.id;
    },
    exportOf: (userId: string) => exportWorkspace({ notes: t.store, highlights: t.feeds }, userId),
  });
}
