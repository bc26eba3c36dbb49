import { randomUUID } from 'node:crypto';
import { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { DynamoFeedStore } from '../../functions/adapters/dynamo/feed-store';
import { type FeedSettings, newFeedRecord } from '../../functions/core/feed/settings';
import { newAccessToken, newUser } from '../../functions/core/workspace/accounts';
import type { Environment } from '../../functions/platform/env';
import { type LocalStack, type LocalStackOptions, startLocalStack } from '../../local/stack';
import { contractFetch } from './contract';
import { createTestTable } from './dynamo';

export type TestStack = Awaited<ReturnType<typeof startTestStack>>;

/**
 * The local stack on a free port over a fresh table, plus direct access to its stores. Workers are
 * off unless asked for: tests save made-up URLs, and only enrichment tests (with loopback fixture
 * pages) should have them fetched.
 */
export async function startTestStack(
  env: Environment = {},
  options: Pick<LocalStackOptions, 'startWorkers' | 'scheduleEverySeconds' | 'routes' | 'searchIndexUri'> = {},
) {
  // With a search index the stack reads the table's stream: made with it, as `npm start` makes its table.
  const table = await createTestTable(undefined, { stream: options.searchIndexUri !== undefined });
  const start = (port?: number) =>
    startLocalStack({
      dynamoEndpoint: table.endpoint,
      tableName: table.tableName,
      env: { LOG_LEVEL: 'SILENT', ...env },
      startWorkers: false,
      port,
      ...options,
    });
  let stack: LocalStack = await start();
  let running = true;
  const accounts = new DynamoAccountStore(table.doc, table.tableName);
  const bookmarks = new DynamoBookmarkStore(table.doc, table.tableName);
  const feeds = new DynamoFeedStore(table.doc, table.tableName);

  /** A feed of `userId`'s notes, stored as the CLI stores it. */
  async function createFeed(userId: string, settings: FeedSettings & { title: string }) {
    const feed = newFeedRecord({ id: randomUUID(), userId, settings, now: new Date() });
    await feeds.createFeed(feed);
    return feed;
  }

  /** A user with a fresh token; `noteCap` defaults to the free plan's. */
  async function createUser(options: { noteCap?: number; name?: string; displayName?: string } = {}) {
    const now = new Date();
    const { noteCap, displayName } = options;
    const user = newUser({ id: randomUUID(), name: options.name ?? 'Test User', displayName, noteCap, now });
    await accounts.createUser(user);
    const token = newAccessToken({ id: randomUUID(), userId: user.id, now });
    await accounts.createToken(token.record, token.hash);
    return { user, token: token.secret, tokenId: token.record.id };
  }

  function save(token: string | null, body: unknown, headers: Record<string, string> = {}) {
    return contractFetch(`${stack.baseUrl}/api/v1/bookmarks/save`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  return {
    get stack() {
      return stack;
    },
    table,
    accounts,
    bookmarks,
    feeds,
    createUser,
    createFeed,
    save,
    /** Takes the API down (the server goes away, the data stays), as when `npm start` is stopped. */
    takeDown: async () => {
      await stack.stop();
      running = false;
    },
    /** Brings the API back on the same address. */
    bringUp: async () => {
      stack = await start(Number(new URL(stack.baseUrl).port));
      running = true;
    },
    stop: async () => {
      if (running) await stack.stop();
      table.client.destroy();
    },
  };
}

/** A response body parsed as JSON, typed loosely for assertions. */
export const json = (response: Response): Promise<any> => response.json();
