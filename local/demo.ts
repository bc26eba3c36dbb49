import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DynamoAccountStore } from '../functions/adapters/dynamo/account-store';
import type { DynamoFeedStore } from '../functions/adapters/dynamo/feed-store';
import { newFeedRecord } from '../functions/core/feed/settings';
import { newAccessToken, newUser } from '../functions/core/workspace/accounts';

/**
 * The demo account `npm start` creates on first start: a user, a token and a public feed of the
 * notes tagged #reading. The token is kept in the data directory (and only there) so every later
 * start can print a save command that works.
 */
export interface Demo {
  readonly userId: string;
  readonly tokenId: string;
  readonly token: string;
  readonly feedId: string;
}

export const DEMO_FEED_TAG = 'reading';

export async function ensureDemo(
  dataDir: string,
  stores: { accounts: DynamoAccountStore; feeds: DynamoFeedStore },
): Promise<{ demo: Demo; created: boolean }> {
  const { accounts, feeds } = stores;
  const path = join(dataDir, 'demo.json');
  if (existsSync(path)) return { demo: JSON.parse(readFileSync(path, 'utf8')) as Demo, created: false };
  const now = new Date();
  const user = newUser({ id: randomUUID(), name: 'Demo User', now });
  await accounts.createUser(user);
  const token = newAccessToken({ id: randomUUID(), userId: user.id, label: 'demo', now });
  await accounts.createToken(token.record, token.hash);
  const feed = newFeedRecord({
    id: randomUUID(),
    userId: user.id,
    settings: {
      title: 'Demo reading list',
      description: `Pages the demo user saved with #${DEMO_FEED_TAG}`,
      tags: [DEMO_FEED_TAG],
      sharing: 'public',
    },
    now,
  });
  await feeds.createFeed(feed);
  const demo: Demo = { userId: user.id, tokenId: token.record.id, token: token.secret, feedId: feed.id };
  writeFileSync(path, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return { demo, created: true };
}

export function saveCommand(baseUrl: string, token: string): string {
  const body = JSON.stringify({
    url: 'https://example.com/articles/serverless',
    title: 'Serverless notes',
    selection: 'Small functions, one job each.',
    comment: `Worth rereading #serverless #${DEMO_FEED_TAG}`,
  });
  return [
    `curl -sS -X POST ${baseUrl}/api/v1/bookmarks/save \\`,
    `  -H 'Authorization: Bearer ${token}' \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '${body}'`,
  ].join('\n');
}
