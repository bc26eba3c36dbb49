import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { DynamoAccountStore, UserNotFoundError } from '../../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { createDynamoClients } from '../../functions/adapters/dynamo/client';
import { DynamoFeedStore } from '../../functions/adapters/dynamo/feed-store';
import { keys } from '../../functions/adapters/dynamo/keys';
import { retryOnConflict } from '../../functions/adapters/dynamo/transactions';
import { Deadline, DeadlineExceededError } from '../../functions/core/deadline';
import { newFeedRecord } from '../../functions/core/feed/settings';
import type { AccessToken } from '../../functions/core/model';
import { cancelled, throttled } from '../support/fault-injection';

/** The stores' reading of what DynamoDB answers under throttling and contention, with the SDK mocked. */

const TABLE = 'gleaner-test';
const { doc } = createDynamoClients({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1' });
const dynamo = mockClient(DynamoDBDocumentClient);
afterEach(() => dynamo.reset());

const TOKEN: AccessToken = {
  id: 't1',
  userId: 'u1',
  label: null,
  revoked: false,
  created: '2026-11-20T00:00:00+00:00',
  expires: null,
  lastUsed: null,
  lastUsedAgent: null,
};
const tokenItem = { ...keys.token('hash'), type: 'AccessToken', ...TOKEN };

describe('BatchGetItem results DynamoDB left unprocessed', () => {
  it('reads a token DynamoDB did not return the first time instead of taking it as unknown (a 401)', async () => {
    dynamo
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { [TABLE]: [] },
        UnprocessedKeys: { [TABLE]: { Keys: [keys.token('hash'), keys.site('example.com')], ConsistentRead: true } },
      })
      .resolvesOnce({
        Responses: { [TABLE]: [tokenItem] },
        UnprocessedKeys: { [TABLE]: { Keys: [keys.site('example.com')] } },
      })
      .resolvesOnce({
        Responses: { [TABLE]: [{ ...keys.site('example.com'), type: 'Site', icon: 'https://g.test/icons/a.png' }] },
      });
    const context = await new DynamoAccountStore(doc, TABLE).loadSaveContext('hash', 'example.com');
    expect(context).toEqual({ token: TOKEN, siteIcon: 'https://g.test/icons/a.png' });
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(3);
    // The retries ask for exactly the keys left over, strongly consistent still.
    expect(dynamo.commandCalls(BatchGetCommand)[1]!.args[0].input.RequestItems![TABLE]).toEqual({
      Keys: [keys.token('hash'), keys.site('example.com')],
      ConsistentRead: true,
    });
  });

  it('reads the bookmark and note of an append DynamoDB did not return the first time instead of failing (a 500)', async () => {
    const note = {
      ...keys.note('n1'),
      type: 'Note',
      id: 'n1',
      userId: 'u1',
      bookmarkId: 'b1',
      url: 'https://example.com/',
      title: 't',
      body: 'b',
      tags: [],
      created: 'c',
      updated: 'c',
      version: 1,
    };
    const bookmark = {
      ...keys.bookmark('b1'),
      type: 'Bookmark',
      id: 'b1',
      userId: 'u1',
      noteId: 'n1',
      title: 't',
      url: 'https://example.com/',
      normalizedUrl: 'https://example.com/',
      created: 'c',
      updated: 'c',
    };
    dynamo
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { [TABLE]: [bookmark] }, UnprocessedKeys: { [TABLE]: { Keys: [keys.note('n1')] } } })
      .resolvesOnce({ Responses: { [TABLE]: [note] } });
    dynamo.on(TransactWriteCommand).resolves({});
    const outcome = await new DynamoBookmarkStore(doc, TABLE).updateSavedNote(
      { bookmarkId: 'b1', noteId: 'n1' },
      (current) => ({ body: `${current.body}\n\n> more`, tags: current.tags, lastHighlight: 'more' }),
      '2026-11-21T00:00:00+00:00',
      null,
    );
    expect(outcome).toMatchObject({ kind: 'updated', note: { body: 'b\n\n> more', version: 2 } });
  });
});

describe('a cancelled transaction that checks the user', () => {
  const stores = {
    createToken: () => new DynamoAccountStore(doc, TABLE).createToken(TOKEN, 'hash'),
    createFeed: () =>
      new DynamoFeedStore(doc, TABLE).createFeed(
        newFeedRecord({ id: 'f1', userId: 'u1', settings: { title: 'F', tags: ['t'] }, now: new Date() }),
      ),
  };

  it.each(Object.entries(stores))('%s: means "no such user" only when the user check failed', async (_, write) => {
    dynamo.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    await expect(write()).rejects.toBeInstanceOf(UserNotFoundError);
  });

  it.each(Object.entries(stores))('%s: retries a conflict with another transaction', async (_, write) => {
    dynamo.on(TransactWriteCommand).rejectsOnce(cancelled('TransactionConflict', 'None')).resolves({});
    await write();
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(2);
  });

  it.each(Object.entries(stores))(
    '%s: passes any other cancellation on as it came (a 500, not a 404)',
    async (_, write) => {
      dynamo.on(TransactWriteCommand).rejects(cancelled('None', 'ThrottlingError'));
      const failure = await write().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TransactionCanceledException);
      expect(failure).not.toBeInstanceOf(UserNotFoundError);
      dynamo.on(TransactWriteCommand).rejects(throttled());
      await expect(write()).rejects.toThrow(/provisioned throughput/);
    },
  );
});

describe('retries within the request deadline', () => {
  it('stop with DeadlineExceededError once the next wait would pass the deadline, not after a fixed count', async () => {
    let now = 0;
    let attempts = 0;
    const deadline = Deadline.after(5_000, () => now);
    const failure = await retryOnConflict(
      async () => {
        attempts++;
        now += 1_000; // each attempt takes a second of the budget
        throw cancelled('TransactionConflict');
      },
      1_000,
      deadline,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DeadlineExceededError);
    expect(attempts).toBe(5);
  });
});
