import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { keys } from '../../functions/adapters/dynamo/keys';
import { SqsJsonPublisher } from '../../functions/adapters/sqs/sqs';
import { parseRateLimitPolicy, type RateLimitPolicy } from '../../functions/core/contract/rate-limit';
import type { EnrichmentRequest } from '../../functions/core/enrich/enrichment';
import { newAccessToken, newUser } from '../../functions/core/workspace/accounts';
import { makeHandler, type SaveBookmarkDeps } from '../../functions/save-bookmark/handler';
import { createTestTable } from '../support/dynamo';
import { context, proxyEvent } from '../support/factories';
import { testMetrics } from '../support/observability';
import { saveHandlerDeps } from '../support/save-deps';

let table: Awaited<ReturnType<typeof createTestTable>>;
let token: string;
const published: EnrichmentRequest[] = [];

function deps(overrides: Partial<SaveBookmarkDeps> = {}): SaveBookmarkDeps {
  return saveHandlerDeps(table, published, overrides);
}

function save(handler: ReturnType<typeof makeHandler>, body: unknown, bearer: string | null = token) {
  return handler(
    proxyEvent({
      headers: { 'Content-Type': 'application/json', ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}) },
      body: JSON.stringify(body),
    }),
    context(),
  );
}

beforeAll(async () => {
  table = await createTestTable();
  const accounts = new DynamoAccountStore(table.doc, table.tableName);
  const now = new Date();
  const user = newUser({ id: randomUUID(), name: 'Round Trip', now });
  await accounts.createUser(user);
  const minted = newAccessToken({ id: randomUUID(), userId: user.id, now });
  await accounts.createToken(minted.record, minted.hash);
  // Its use this hour is on record, so the round-trip counts below see no "last used" write.
  await accounts.recordTokenUse(minted.hash, now, null);
  token = minted.secret;
});
afterAll(() => table.client.destroy());
beforeEach(() => {
  published.splice(0);
  table.requests.reset();
});

describe('save handler against DynamoDB Local', () => {
  it('saves a new page in 2 serial DynamoDB round trips: the token read beside the rate-limit write, then the transaction', async () => {
    const response = await save(makeHandler(deps()), {
      url: 'https://example.com/round-trips',
      selection: 'x',
      comment: '#a #b #c',
    });
    expect(response.statusCode).toBe(200);
    expect(table.requests.operations).toEqual([
      'BatchGetItemCommand',
      'UpdateItemCommand',
      'TransactWriteItemsCommand',
    ]);
    expect(table.requests.serial).toBe(2);
  });

  it('counts a refused token against the client address, after its lookup', async () => {
    const refused = newAccessToken({ id: randomUUID(), userId: randomUUID(), now: new Date() });
    const handler = makeHandler(deps({ rateLimitPolicy: parseRateLimitPolicy('1;w=60') }));
    const fromOneAddress = (secret: string) =>
      handler(
        proxyEvent({
          sourceIp: '198.51.100.23',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${secret}` },
          body: '{"url":"https://example.com"}',
        }),
        context(),
      );
    const first = await fromOneAddress(refused.secret);
    expect(first.statusCode).toBe(401);
    expect(table.requests.operations).toEqual(['BatchGetItemCommand', 'UpdateItemCommand', 'UpdateItemCommand']);
    expect(table.requests.serial).toBe(2);
    // Another unknown token from the same address has a quota of its own, but the address's is spent.
    const another = newAccessToken({ id: randomUUID(), userId: randomUUID(), now: new Date() });
    expect((await fromOneAddress(another.secret)).statusCode).toBe(429);
  });

  it('counts outcomes as CloudWatch metrics', async () => {
    const metrics = testMetrics();
    const added = vi.spyOn(metrics, 'addMetric');
    const handler = makeHandler(deps({ metrics }));
    await save(handler, { url: 'https://example.com/metrics' });
    await save(handler, { url: 'https://example.com/metrics', selection: 'again' });
    await save(handler, { url: 'ftp://example.com' });
    await save(handler, { url: 'https://example.com' }, null);
    expect(added.mock.calls.map(([name]) => name)).toEqual([
      'BookmarkCreated',
      'NoteAppended',
      'SaveInvalid',
      'SaveUnauthorized',
    ]);
  });

  it('rejects a malformed token without looking it up', async () => {
    const accounts = new DynamoAccountStore(table.doc, table.tableName);
    const lookup = vi.spyOn(accounts, 'loadSaveContext');
    const response = await save(
      makeHandler(deps({ accounts })),
      { url: 'https://example.com' },
      'gln_00000000000000000000000000000000000X',
    );
    expect(response.statusCode).toBe(401);
    expect(lookup).not.toHaveBeenCalled();
    expect(table.requests.operations).toEqual(['UpdateItemCommand']);
  });

  /** A favicon the favicon worker already stored for `host`. */
  const knownIcon = (host: string) =>
    table.doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...keys.site(host), type: 'Site', icon: 'https://gleaner.test/icons/abc.png' },
      }),
    );

  it('reuses a favicon already known for the host and then only asks to scrape the description', async () => {
    await knownIcon('icons.example');
    const response = await save(makeHandler(deps()), { url: 'https://icons.example/page' });
    expect(JSON.parse(response.body).bookmark.icon).toBe('https://gleaner.test/icons/abc.png');
    // Intent only: the worker reads the bookmark's URL and note itself.
    expect(published).toEqual([
      { bookmarkId: JSON.parse(response.body).bookmark.id, scrapeDescription: true, fetchIcon: false },
    ]);
  });

  it('asks only to keep the page when the description was given and the favicon is known', async () => {
    await knownIcon('described.example');
    const response = await save(makeHandler(deps()), { url: 'https://described.example/page', description: 'Given.' });
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body).bookmark.icon).toBe('https://gleaner.test/icons/abc.png');
    // The page worker keeps every new page's article (docs/articles.md), with nothing else to do.
    expect(published).toEqual([
      { bookmarkId: JSON.parse(response.body).bookmark.id, scrapeDescription: false, fetchIcon: false },
    ]);
    // Without the favicon known, the same kind of save asks for the icon too.
    const unknown = await save(makeHandler(deps()), { url: 'https://unknown.example/page', description: 'Given.' });
    expect(published.at(-1)).toEqual({
      bookmarkId: JSON.parse(unknown.body).bookmark.id,
      scrapeDescription: false,
      fetchIcon: true,
    });
  });

  it('answers 401 to several Authorization values in multiValueHeaders, though headers holds a valid one', async () => {
    const event = proxyEvent({
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      multiValueHeaders: {
        'Content-Type': ['application/json'],
        Authorization: ['Bearer gln_other', `Bearer ${token}`],
      },
      body: JSON.stringify({ url: 'https://example.com/ambiguous' }),
    });
    expect((await makeHandler(deps())(event, context())).statusCode).toBe(401);
  });

  it('still answers 200 when publishing to SQS fails', async () => {
    const sqs = mockClient(SQSClient);
    // Restored whatever happens: a mock left behind would answer every later test's SQS calls.
    try {
      sqs.on(SendMessageCommand).rejects(new Error('SQS unavailable'));
      const logger = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
      const warn = vi.spyOn(logger, 'warn');
      const enrichment = new SqsJsonPublisher(new SQSClient({ region: 'local' }), 'https://sqs.local/queue');
      const response = await save(makeHandler(deps({ enrichment, logger })), { url: 'https://example.com/sqs-down' });
      expect(response.statusCode).toBe(200);
      expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(1);
      expect(warn).toHaveBeenCalledWith(
        'Publishing the enrichment request failed; the sweeper will retry it',
        expect.objectContaining({ bookmarkId: expect.any(String) }),
      );
    } finally {
      sqs.restore();
    }
  });

  it('answers an unexpected failure with a 500 detail and no stack trace, leaving nothing half-written', async () => {
    const store = new DynamoBookmarkStore(table.doc, 'no-such-table');
    const logger = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
    const logged = vi.spyOn(logger, 'error');
    const before = await countItems();
    const response = await save(makeHandler(deps({ store, logger })), { url: 'https://example.com/broken' });
    expect(response.statusCode).toBe(500);
    const body = JSON.parse(response.body);
    expect(Object.keys(body)).toEqual(['detail']);
    expect(body.detail).toMatch(/^Internal server error \(request id [0-9a-f-]+\)$/);
    expect(response.body).not.toMatch(/at .*\.ts:\d+/);
    expect(logged).toHaveBeenCalledWith('Unhandled error', expect.objectContaining({ requestId: expect.any(String) }));
    expect(await countItems()).toBe(before);
  });

  it("reports the limiter's last answer in the RateLimit headers of a 500", async () => {
    const store = new DynamoBookmarkStore(table.doc, 'no-such-table');
    const rateLimiter = {
      hit: async (_: string, policy: RateLimitPolicy) => ({ allowed: true, policy, remaining: 7, resetSeconds: 13 }),
    };
    const response = await save(makeHandler(deps({ store, rateLimiter })), { url: 'https://example.com/broken' });
    expect(response.statusCode).toBe(500);
    expect(response.headers).toMatchObject({
      'RateLimit-Limit': '1000',
      'RateLimit-Remaining': '7',
      'RateLimit-Reset': '13',
      'RateLimit-Policy': '1000;w=60',
    });
  });

  it('reports the full quota in the RateLimit headers of a 500 when the limiter itself failed', async () => {
    const rateLimiter = { hit: () => Promise.reject(new Error('DynamoDB unavailable')) };
    const response = await save(makeHandler(deps({ rateLimiter })), { url: 'https://example.com/limiter-down' });
    expect(response.statusCode).toBe(500);
    expect(response.headers).toMatchObject({
      'RateLimit-Limit': '1000',
      'RateLimit-Remaining': '1000',
      'RateLimit-Policy': '1000;w=60',
    });
    expect(Number(response.headers!['RateLimit-Reset'])).toBeGreaterThan(0);
  });
});

async function countItems(): Promise<number> {
  const { Items } = await table.doc.send(
    new ScanCommand({
      TableName: table.tableName,
      FilterExpression: 'NOT begins_with(pk, :rl)',
      ExpressionAttributeValues: { ':rl': 'RL#' },
    }),
  );
  return Items?.length ?? 0;
}
