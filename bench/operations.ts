import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoAccountStore } from '../functions/adapters/dynamo/account-store';
import { DynamoFeedStore } from '../functions/adapters/dynamo/feed-store';
import { DynamoIdentityStore } from '../functions/adapters/dynamo/identity-store';
import { keys } from '../functions/adapters/dynamo/keys';
import { newFeedRecord } from '../functions/core/feed/settings';
import { newSession, sessionCookieName } from '../functions/core/identity/session';
import { isoTimestamp } from '../functions/core/text/text';
import { newAccessToken, newUser } from '../functions/core/workspace/accounts';
import { routeEnvironment, routes, routeUrl } from '../functions/platform/routes';
import { createHandler as createSaveHandler } from '../functions/save-bookmark/handler';
import { lambdaContext } from '../local/lambda-runtime';
import type { LocalStack } from '../local/stack';
import { proxyEvent } from '../test/support/factories';

/** The save and feed operations `npm run bench` and `npm run cost` measure through the local stack, and the per-user API's. */

export interface Fixture {
  readonly token: string;
  readonly feedId: string;
}

export async function fixture(doc: DynamoDBDocumentClient, tableName: string): Promise<Fixture> {
  const accounts = new DynamoAccountStore(doc, tableName);
  const user = newUser({ id: randomUUID(), name: 'Bench', plan: 'pro', now: new Date() });
  await accounts.createUser(user);
  const token = newAccessToken({ id: randomUUID(), userId: user.id, now: new Date() });
  await accounts.createToken(token.record, token.hash);
  const feed = newFeedRecord({
    id: randomUUID(),
    userId: user.id,
    settings: { title: 'Bench', tags: ['bench'], sharing: 'public' },
    now: new Date(),
  });
  await new DynamoFeedStore(doc, tableName).createFeed(feed);
  return { token: token.secret, feedId: feed.id };
}

/** The operations measured, each a request through the local stack that must succeed. */
export function operations(stack: LocalStack, { token, feedId }: Fixture) {
  const save = (body: object) =>
    fetch(`${stack.baseUrl}/api/v1/bookmarks/save`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  return {
    'save, new page': (i: number) => save(newPageSave(i)),
    'save, same page again': (i: number) => save({ url: 'https://bench.test/page/again', selection: `again ${i}` }),
    'feed JSON (50 entries)': () => fetch(routeUrl(stack.baseUrl, 'GetPublishedFeed', { feed_id: feedId })),
    'feed RSS (50 entries)': () => fetch(routeUrl(stack.baseUrl, 'GetPublishedFeedRss', { feed_id: feedId })),
  };
}
export type OperationName = keyof ReturnType<typeof operations> | keyof ReturnType<typeof ownerOperations>;

/** Notes in the workspace the per-user API's first page is read from. */
export const OWNER_NOTES = 10_000;

/**
 * A signed-in account holding OWNER_NOTES notes, each backing a bookmark, written straight to the
 * table (as many saves would leave them, without waiting for 10,000 saves), and its session cookie.
 */
export async function ownerFixture(doc: DynamoDBDocumentClient, tableName: string): Promise<{ cookie: string }> {
  const accounts = new DynamoAccountStore(doc, tableName);
  const user = newUser({ id: randomUUID(), name: 'Bench owner', plan: 'pro', now: new Date() });
  await accounts.createUser(user);
  const start = Date.parse('2026-01-01T00:00:00Z');
  const items = Array.from({ length: OWNER_NOTES }, (_, i) => {
    const noteId = randomUUID();
    const bookmarkId = randomUUID();
    const url = `https://bench.test/owner/${i}`;
    const at = isoTimestamp(new Date(start + i * 60_000));
    const common = { userId: user.id, title: `Page ${i}`, url, created: at, updated: at };
    return [
      {
        ...keys.note(noteId),
        ...keys.userNotesIndex(user.id, at, noteId),
        type: 'Note',
        ...common,
        id: noteId,
        bookmarkId,
        body: `Source: [Page ${i}](${url})`,
        tags: ['bench'],
        version: 1,
      },
      {
        ...keys.bookmark(bookmarkId),
        type: 'Bookmark',
        ...common,
        id: bookmarkId,
        noteId,
        normalizedUrl: url,
        icon: null,
      },
    ];
  }).flat();
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, i) => items.slice(i * 25, i * 25 + 25));
  // A few writers at a time: DynamoDB Local takes them faster than one, and the machine is shared.
  for (let i = 0; i < batches.length; i += 8)
    await Promise.all(
      batches.slice(i, i + 8).map(async (batch) => {
        let pending: Record<string, unknown>[] = batch.map((Item) => ({ PutRequest: { Item } }));
        while (pending.length) {
          const { UnprocessedItems } = await doc.send(
            new BatchWriteCommand({ RequestItems: { [tableName]: pending } }),
          );
          pending = (UnprocessedItems?.[tableName] ?? []) as Record<string, unknown>[];
        }
      }),
    );
  const { session, cookieValue } = newSession(user.id, new Date());
  await new DynamoIdentityStore(doc, tableName).putSession(session);
  return { cookie: `${sessionCookieName(false)}=${cookieValue}` };
}

/** The per-user API's operations measured: a signed-in read of the first page of a large workspace. */
export function ownerOperations(stack: LocalStack, { cookie }: { cookie: string }) {
  return {
    [`my notes, first page (${OWNER_NOTES.toLocaleString('en-US')} notes)`]: () =>
      fetch(`${stack.baseUrl}/api/v2/me/notes`, { headers: { Cookie: cookie } }),
  } as Record<'my notes, first page (10,000 notes)', () => Promise<Response>>;
}

const newPageSave = (i: number) => ({
  url: `https://bench.test/page/${randomUUID()}/${i}`,
  selection: `highlight ${i}`,
  comment: '#bench',
  description: 'd',
});

/**
 * A first save handed straight to the save handler, as Lambda hands it the event: what production
 * runs, without the local HTTP server (which API Gateway replaces) in front of it.
 */
export function directSave(stack: LocalStack, { token }: Fixture): (i: number) => Promise<Response> {
  const route = routes.find(({ id }) => id === 'SaveBookmark')!;
  const handler = createSaveHandler({ ...stack.env, ...routeEnvironment(route) });
  return async (i) => {
    const headers = {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Host: new URL(stack.baseUrl).host,
    };
    const event = proxyEvent({
      httpMethod: 'POST',
      resource: route.path,
      path: route.path,
      resourceId: route.id,
      headers,
      body: JSON.stringify(newPageSave(i)),
    });
    const result = await handler(event, lambdaContext(route.id));
    return new Response(result.body, { status: result.statusCode });
  };
}

export async function succeed(name: string, response: Promise<Response>): Promise<void> {
  const answer = await response;
  await answer.arrayBuffer();
  if (answer.status >= 400) throw new Error(`${name}: HTTP ${answer.status}`);
}
