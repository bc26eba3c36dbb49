import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoAccountStore } from '../functions/adapters/dynamo/account-store';
import { DynamoFeedStore } from '../functions/adapters/dynamo/feed-store';
import { newFeedRecord } from '../functions/core/feed/settings';
import { newAccessToken, newUser } from '../functions/core/workspace/accounts';
import { routeEnvironment, routes, routeUrl } from '../functions/platform/routes';
import { createHandler as createSaveHandler } from '../functions/save-bookmark/handler';
import { lambdaContext } from '../local/lambda-runtime';
import type { LocalStack } from '../local/stack';
import { proxyEvent } from '../test/support/factories';

/** The save and feed operations `npm run bench` and `npm run cost` measure through the local stack. */

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
export type OperationName = keyof ReturnType<typeof operations>;

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
