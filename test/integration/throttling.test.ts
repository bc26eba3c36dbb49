import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { DynamoFeedStore } from '../../functions/adapters/dynamo/feed-store';
import { DynamoSiteStore } from '../../functions/adapters/dynamo/site-store';
import type { EnrichmentRequest } from '../../functions/core/enrich/enrichment';
import { newFeedRecord } from '../../functions/core/feed/settings';
import { makeHandler as makeIconHandler } from '../../functions/get-icon/handler';
import { ANSWER_MARGIN_MS } from '../../functions/platform/request-deadline';
import { makeHandler as makeJsonFeedHandler } from '../../functions/published-feed-json/handler';
import { makeHandler as makeRssFeedHandler } from '../../functions/published-feed-rss/handler';
import { makeHandler as makeSaveHandler } from '../../functions/save-bookmark/handler';
import { createTestTable } from '../support/dynamo';
import { context, proxyEvent } from '../support/factories';
import { cancelled, type Fault, injectFaults, nothingProcessed, throttled } from '../support/fault-injection';
import { newTestAccount, publishedFeedTestDeps, saveHandlerDeps } from '../support/save-deps';

/**
 * DynamoDB throttling on every call of the save, feed and icon paths, one call at a time (a refused
 * call, a transaction cancelled for throttling, a batch read left unprocessed): the answer
 * is the right one or a clean 503 with Retry-After in the contract's shape (with the RateLimit headers where the route
 * has them), never a wrong 401, 402, 404 or 422, never a thrown error (API Gateway's 502); and a
 * failed save leaves nothing behind that a retry would trip over.
 */

let table: Awaited<ReturnType<typeof createTestTable>>;
let faults: ReturnType<typeof injectFaults>;
const published: EnrichmentRequest[] = [];
const logger = new Logger({ serviceName: 'test', logLevel: 'SILENT' });

beforeAll(async () => {
  table = await createTestTable();
  faults = injectFaults(table);
});
afterAll(() => table.client.destroy());

const newAccount = () => newTestAccount(table, 'Throttled');

const saveHandler = () => makeSaveHandler(saveHandlerDeps(table, published));
const save = (token: string, body: unknown, headers: Record<string, string> = {}) =>
  saveHandler()(
    proxyEvent({
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify(body),
    }),
    context(),
  );

const feedDeps = () => publishedFeedTestDeps(table, { logger });

/** A path of the service: `prepare` makes fresh state (no faults then) and returns the request. */
interface Path {
  readonly expected: number;
  readonly rateLimited: boolean;
  prepare(): Promise<{ invoke(): Promise<APIGatewayProxyResult>; retryIsClean?(): Promise<void> }>;
}

async function publicFeedWithANote() {
  const { userId, token } = await newAccount();
  await save(token, { url: `https://example.com/${randomUUID()}`, title: 'Read', comment: '#throttled' });
  const feed = newFeedRecord({
    id: randomUUID(),
    userId,
    settings: { title: 'T', tags: ['throttled'], sharing: 'public' },
    now: new Date(),
  });
  await new DynamoFeedStore(table.doc, table.tableName).createFeed(feed);
  return proxyEvent({ httpMethod: 'GET', pathParameters: { feed_id: feed.id } });
}

/** After a failed save, the same save succeeds once, and the user's note count is the notes it has. */
function saveIsRetryable(
  token: string,
  userId: string,
  body: unknown,
  accounts: DynamoAccountStore,
  headers: Record<string, string> = {},
) {
  return async () => {
    const retried = await save(token, body, headers);
    expect(retried.statusCode).toBe(200);
    expect((await accounts.getUser(userId))?.noteCount).toBe(1);
  };
}

const PATHS: Record<string, Path> = {
  'save a new page': {
    expected: 200,
    rateLimited: true,
    async prepare() {
      const { userId, token, accounts } = await newAccount();
      const body = { url: `https://example.com/${randomUUID()}`, selection: 's', comment: '#a' };
      return { invoke: () => save(token, body), retryIsClean: saveIsRetryable(token, userId, body, accounts) };
    },
  },
  'save a new page with an Idempotency-Key': {
    expected: 200,
    rateLimited: true,
    async prepare() {
      const { userId, token, accounts } = await newAccount();
      const body = { url: `https://example.com/${randomUUID()}`, selection: 's' };
      const headers = { 'Idempotency-Key': randomUUID() };
      return {
        invoke: () => save(token, body, headers),
        retryIsClean: saveIsRetryable(token, userId, body, accounts, headers),
      };
    },
  },
  'append to a saved page': {
    expected: 200,
    rateLimited: true,
    async prepare() {
      const { userId, token, accounts } = await newAccount();
      const url = `https://example.com/${randomUUID()}`;
      await save(token, { url, selection: 'first' });
      const body = { url, selection: 'second', append: true };
      return { invoke: () => save(token, body), retryIsClean: saveIsRetryable(token, userId, body, accounts) };
    },
  },
  'read a feed as JSON': {
    expected: 200,
    rateLimited: true,
    async prepare() {
      const event = await publicFeedWithANote();
      return { invoke: () => makeJsonFeedHandler(feedDeps())(event, context()) };
    },
  },
  'read a feed as RSS': {
    expected: 200,
    rateLimited: true,
    async prepare() {
      const event = await publicFeedWithANote();
      return { invoke: () => makeRssFeedHandler(feedDeps())(event, context()) };
    },
  },
  'read an icon': {
    expected: 200,
    rateLimited: false,
    async prepare() {
      const icons = new DynamoSiteStore(table.doc, table.tableName);
      const hash = randomUUID().replace(/-/g, '').repeat(2);
      await icons.putIcon({ hash, mediaType: 'image/png', bytes: new Uint8Array([137, 80, 78, 71]) });
      const event = proxyEvent({ httpMethod: 'GET', pathParameters: { icon_file: `${hash}.png` } });
      return {
        invoke: () => makeIconHandler({ icons, articles: { getImage: async () => null }, logger })(event, context()),
      };
    },
  },
};

/** How many DynamoDB calls the path makes when nothing fails, and which operations. */
async function callsOf(path: Path): Promise<string[]> {
  const { invoke } = await path.prepare();
  const operations: string[] = [];
  faults.set(({ commandName }) => void operations.push(commandName));
  try {
    expect((await invoke()).statusCode).toBe(path.expected);
  } finally {
    faults.set(null);
  }
  return operations;
}

/** A temporary fault's answer: 503, retry in a second (issue 21: it was a 500 without Retry-After). */
function expectCleanFailure(response: APIGatewayProxyResult, path: Path): void {
  expect(response.statusCode).toBe(503);
  expect(response.headers?.['Retry-After']).toBe('1');
  expect(JSON.parse(response.body)).toEqual({
    detail: expect.stringMatching(/^Temporarily unavailable; retry in 1 s \(request id /),
  });
  if (path.rateLimited) {
    for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'])
      expect(response.headers).toHaveProperty(name);
  }
}

describe('DynamoDB throttling, injected into one call at a time', () => {
  it.each(Object.keys(PATHS))(
    '%s: the right answer or a clean 503, whichever call is throttled',
    async (name) => {
      const path = PATHS[name]!;
      const operations = await callsOf(path);
      expect(operations.length).toBeGreaterThan(0);
      for (const [index, operation] of operations.entries()) {
        const kinds: Fault[] = [
          () => throttled(),
          ...(operation === 'TransactWriteItemsCommand'
            ? [() => cancelled('ThrottlingError', 'ThrottlingError', 'ThrottlingError')]
            : []),
          ...(operation === 'BatchGetItemCommand'
            ? [(call: Parameters<Fault>[0]) => nothingProcessed(call.input)]
            : []),
        ];
        for (const failure of kinds) {
          const { invoke, retryIsClean } = await path.prepare();
          const fault: Fault = (call) => (call.index === index ? failure(call) : undefined);
          faults.set(fault);
          let response: APIGatewayProxyResult;
          try {
            response = await invoke(); // a throw here would be API Gateway's 502
          } finally {
            faults.set(null);
          }
          expect([path.expected, 503], `${operation} (call ${index}) throttled: ${response.body}`).toContain(
            response.statusCode,
          );
          if (response.statusCode !== path.expected) expectCleanFailure(response, path);
          await retryIsClean?.();
        }
      }
    },
    120_000,
  );
});

describe('retries under contention that never ends', () => {
  it.each([
    ['the note changes under every attempt', () => cancelled('ConditionalCheckFailed', 'None', 'None')],
    ['every transaction conflicts', () => cancelled('TransactionConflict', 'None', 'None')],
  ])(
    '%s: stops retrying at the deadline and answers a clean 503, with the note as it was',
    async (_, contention) => {
      const { token } = await newAccount();
      const url = `https://example.com/${randomUUID()}`;
      const first = JSON.parse((await save(token, { url, selection: 'first' })).body) as { note_id: string };
      const before = await new DynamoBookmarkStore(table.doc, table.tableName).getNote(first.note_id);

      // A function with less time left than the answer needs: no retry may start, whatever the loop.
      const invocation = context('save', ANSWER_MARGIN_MS - 500);
      // Every write of the note (a transaction led by its conditional Update) loses.
      const noteUpdate = (input: Record<string, unknown>) =>
        (input.TransactItems as { Update?: unknown }[] | undefined)?.[0]?.Update !== undefined;
      let noteWrites = 0;
      faults.set(({ input }) => {
        if (!noteUpdate(input)) return undefined;
        noteWrites++;
        return contention();
      });
      let response: APIGatewayProxyResult;
      try {
        response = await saveHandler()(
          proxyEvent({
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
            // A new tag: the one kind of save that rewrites the note (an append alone races nobody).
            body: JSON.stringify({ url, selection: 'second', comment: 'now #tagged' }),
          }),
          invocation,
        );
      } finally {
        faults.set(null);
      }
      expect(noteWrites).toBe(1);
      expectCleanFailure(response, PATHS['append to a saved page']!);
      expect(await new DynamoBookmarkStore(table.doc, table.tableName).getNote(first.note_id)).toEqual(before);
    },
    30_000,
  );
});
