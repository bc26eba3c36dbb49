import { randomUUID } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import type { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { MalformedItemError } from '../../functions/adapters/dynamo/entities/codec';
import { DynamoIdentityStore } from '../../functions/adapters/dynamo/identity-store';
import { keys } from '../../functions/adapters/dynamo/keys';
import { DynamoLinkStore } from '../../functions/adapters/dynamo/link-store';
import { DynamoOAuthAdapter, DynamoOAuthGrants } from '../../functions/adapters/dynamo/oauth-adapter';
import { DynamoReviewStore } from '../../functions/adapters/dynamo/review-store';
import { newSession } from '../../functions/core/identity/session';
import { newAccessToken } from '../../functions/core/workspace/accounts';
import { classify } from '../../functions/http/failures';
import { temporaryFaultRetryAfter } from '../../functions/http/temporary-fault';
import { createTestStores, type createTestTable } from '../support/dynamo';
import { linkingUser, saveLinkingNote } from '../support/link-notes';

/**
 * Stores given an item that does not read as its entity (written raw into DynamoDB Local, as a bad
 * migration or a hand edit would leave it): the read fails with a MalformedItemError naming the item,
 * which the one error taxonomy leaves a fault (the last resort's 500, logged; not a 4xx the caller
 * could fix, not a 503 to retry), before anything is written. The other user's items read as before.
 */

let table: Awaited<ReturnType<typeof createTestTable>>;
let accounts: DynamoAccountStore;
let bookmarks: DynamoBookmarkStore;
let identity: DynamoIdentityStore;
let review: DynamoReviewStore;
let links: DynamoLinkStore;
let grants: DynamoOAuthGrants;

beforeAll(async () => {
  ({ table, accounts, bookmarks } = await createTestStores());
  identity = new DynamoIdentityStore(table.doc, table.tableName);
  review = new DynamoReviewStore(table.doc, table.tableName);
  links = new DynamoLinkStore(table.doc, table.tableName);
  grants = new DynamoOAuthGrants(table.doc, table.tableName);
});
afterAll(() => table.client.destroy());

/** Sets attributes of a stored item as they should never be. */
async function corrupt(key: { pk: string; sk: string }, attributes: Record<string, unknown>): Promise<void> {
  const names = Object.keys(attributes);
  await table.doc.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: key,
      UpdateExpression: `SET ${names.map((_, index) => `#a${index} = :v${index}`).join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: Object.fromEntries(names.map((name, index) => [`#a${index}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, index) => [`:v${index}`, attributes[name]])),
    }),
  );
}

/** The failure of `reading`: a MalformedItemError naming `entity`, that `classify` leaves a fault and that is not temporary. */
async function malformed(reading: Promise<unknown>, entity: string): Promise<void> {
  const error = await reading.then(
    () => null,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(MalformedItemError);
  expect((error as Error).message).toMatch(new RegExp(`^${entity} item `));
  expect(classify(error)).toBeNull();
  expect(temporaryFaultRetryAfter(error)).toBeNull();
}

describe('a store reading a malformed item', () => {
  it('refuses a user whose plan is none of the plans, and reads the other user as before', async () => {
    const [broken, other] = [await linkingUser(accounts), await linkingUser(accounts)];
    await corrupt(keys.user(broken), { plan: 'gold' });
    await malformed(accounts.getUser(broken), 'User');
    await expect(accounts.getUser(other)).resolves.toMatchObject({ id: other, plan: 'free' });
  });

  it('refuses a token whose revocation is not a boolean, rather than taking it for a token that works', async () => {
    const userId = await linkingUser(accounts);
    const [broken, other] = [0, 1].map(() => newAccessToken({ id: randomUUID(), userId, now: new Date() }));
    for (const token of [broken!, other!]) await accounts.createToken(token.record, token.hash);
    await corrupt(keys.token(broken!.hash), { revoked: 'no' });
    await malformed(accounts.loadSaveContext(broken!.hash, null), 'AccessToken');
    await malformed(accounts.listTokens(userId), 'AccessToken');
    await expect(accounts.loadSaveContext(other!.hash, null)).resolves.toMatchObject({
      token: { id: other!.record.id, revoked: false },
    });
  });

  it('refuses a session without its CSRF token, and a sign-out-everywhere that meets one ends none', async () => {
    const userId = await linkingUser(accounts);
    const [broken, kept] = [newSession(userId, new Date()).session, newSession(userId, new Date()).session];
    for (const session of [broken, kept]) await identity.putSession(session);
    await corrupt(keys.session(broken.idHash), { csrfToken: null });
    await malformed(identity.getSession(broken.idHash), 'Session');
    await malformed(identity.deleteSessionsOf(userId), 'Session');
    await expect(identity.getSession(kept.idHash)).resolves.toEqual(kept);
  });

  it('refuses a rating over a card whose schedule is broken, writing no log entry and no progress', async () => {
    const userId = await linkingUser(accounts);
    const note = await saveLinkingNote(bookmarks, userId, {
      url: 'https://example.com/review',
      title: 'Review',
      comment: 'a thought',
    });
    const [highlight] = await review.reviewEntries(userId, await review.reviewDay(userId, new Date()));
    const highlightId = highlight!.highlight.id;
    expect(highlight!.note.id).toBe(note.id);
    await table.doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...keys.reviewCard(userId, highlightId), type: 'ReviewCard', userId, highlightId, schedule: 'soon' },
      }),
    );
    await malformed(review.rate(userId, highlightId, 'good', new Date()), 'ReviewCard');
    expect(await review.log(userId)).toEqual([]);
    expect(await review.getProgress(userId)).toEqual({ count: 0, streak: 0, lastDay: null });
  });

  it('refuses a grant without its client in Connected apps, and the other user’s list stays', async () => {
    const [broken, other] = [await linkingUser(accounts), await linkingUser(accounts)];
    const adapter = new DynamoOAuthAdapter('Grant', table.doc, table.tableName);
    await adapter.upsert(`grant-${broken}`, { accountId: broken, clientId: 'app', iat: 1_767_225_600 }, 3600);
    await adapter.upsert(`grant-${other}`, { accountId: other, clientId: 'app', iat: 1_767_225_600 }, 3600);
    await corrupt(keys.oauthArtifact('Grant', `grant-${broken}`), { payload: { accountId: broken } });
    await malformed(grants.listGrants(broken), 'OAuth grant');
    await expect(grants.listGrants(other)).resolves.toMatchObject([{ grantId: `grant-${other}`, clientId: 'app' }]);
  });

  it('refuses a link without the note it is in when backlinks are read', async () => {
    const userId = await linkingUser(accounts);
    const target = await saveLinkingNote(bookmarks, userId, { url: 'https://example.com/target', title: 'Target' });
    const source = await saveLinkingNote(bookmarks, userId, {
      url: 'https://example.com/source',
      title: 'Source',
      comment: 'See [[Target]].',
    });
    for (const note of [target, source]) await links.syncNote(note);
    expect(await links.backlinks(userId, target)).toMatchObject([{ note: { id: source.id } }]);
    await corrupt(keys.link(source.id, 'title:target'), { sourceNoteId: 42 });
    await malformed(links.backlinks(userId, target), 'NoteLink');
  });
});
