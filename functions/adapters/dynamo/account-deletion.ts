import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mcpIdempotencyScope } from '../../core/save/idempotency';
import { readUserToken } from './entities/token';
import { type Key, keys, LOOKUP_INDEX } from './keys';
import { queryAll } from './query-all';
import { backoff } from './transactions';

/** Sort keys of the references to a user's OAuth login sessions (keys.oauthLoginRef). */
const OAUTH_LOGIN_SORT_PREFIX = keys.oauthLoginRef('', '').sk;

/** BatchWriteItem takes at most 25 requests a call. */
const BATCH_SIZE = 25;

/** The rate-limit subject of a signed-in user; its windows are the user's rows too. */
export const userRateLimitSubject = (userId: string) => `user:${userId}`;

/**
 * Deletes a user and every row it owns: its tokens first (no save starts after that), then every
 * idempotency record of those tokens, its feeds, each note's partition (in the Trash too: note, tag entries,
 * highlights) with its bookmark, its rate-limit windows, its sign-in items (OAuth grants and what
 * was issued under them, sessions, one-time links, the email login), and last its own partition (the
 * user, the saved-URL markers, token references, passkeys, and whatever else is kept under
 * `USER#<id>`), so a deletion cut short can run again from the account that is still there.
 */
export async function deleteAccountRows(doc: DynamoDBDocumentClient, tableName: string, userId: string): Promise<void> {
  const userPartition = await queryKeys(doc, tableName, { pk: keys.user(userId).pk });
  const tokenRefs = userPartition
    .filter((item) => item.sk.startsWith(keys.userToken(userId, '').sk))
    .map(readUserToken);
  await deleteAll(
    doc,
    tableName,
    tokenRefs.map((ref) => keys.token(ref.tokenHash)),
  );
  for (const ref of tokenRefs)
    await deleteAll(doc, tableName, await queryKeys(doc, tableName, { pk: keys.idempotency(ref.tokenId, '').pk }));
  // The answers kept for the Idempotency-Keys of the user's MCP saves.
  await deleteAll(
    doc,
    tableName,
    await queryKeys(doc, tableName, { pk: keys.idempotency(mcpIdempotencyScope(userId), '').pk }),
  );
  await deleteAll(doc, tableName, await queryKeys(doc, tableName, { gsi1pk: keys.userFeedsIndex(userId).gsi1pk }));
  const notes = [
    ...(await queryKeys(doc, tableName, { gsi1pk: keys.userNotesIndex(userId).gsi1pk })),
    ...(await queryKeys(doc, tableName, { gsi1pk: keys.userTrashIndex(userId).gsi1pk })),
  ];
  for (const note of notes) {
    const partition = await queryKeys(doc, tableName, { pk: note.pk });
    await deleteAll(doc, tableName, [
      ...(note.bookmarkId ? [keys.bookmark(note.bookmarkId as string)] : []),
      ...partition.filter((item) => item.sk !== 'NOTE'),
      keys.note(note.id as string),
    ]);
  }
  const rateLimitPartition = keys.rateLimitWindow(userRateLimitSubject(userId), 0).pk;
  await deleteAll(doc, tableName, await queryKeys(doc, tableName, { pk: rateLimitPartition }));
  // Sign-in: OAuth grants with every artifact issued under them, OAuth login sessions, browser sessions,
  // one-time links, and the email login last of them.
  const signIn = await queryKeys(doc, tableName, { gsi1pk: keys.authIndex(userId).gsi1pk });
  const grantEntry = keys.authIndex(userId, 'GRANT').gsi1sk;
  const grantIds = signIn.flatMap((item) =>
    String(item.gsi1sk).startsWith(grantEntry) ? [String(item.gsi1sk).slice(grantEntry.length)] : [],
  );
  for (const grantId of grantIds)
    await deleteAll(
      doc,
      tableName,
      await queryKeys(doc, tableName, { gsi1pk: keys.oauthGrantIndex(grantId, '', '').gsi1pk }),
    );
  await deleteAll(doc, tableName, [
    ...userPartition
      .filter((item) => item.sk.startsWith(OAUTH_LOGIN_SORT_PREFIX))
      .map((item) => keys.oauthArtifact('Session', item.sk.slice(OAUTH_LOGIN_SORT_PREFIX.length))),
    ...signIn.filter((item) => !isLogin(item)),
    ...signIn.filter(isLogin),
  ]);
  const userItem = keys.user(userId);
  await deleteAll(doc, tableName, [...userPartition.filter((item) => item.sk !== userItem.sk), userItem]);
}

type KeyedItem = Key & Record<string, unknown>;

/** An email login's entry in the AUTH index (deleted last of the sign-in items). */
const isLogin = (item: KeyedItem) => String(item.gsi1sk).startsWith(keys.authIndex('', 'EMAIL').gsi1sk);

/** The keys (and the few attributes deletion follows) of a table partition or of an index partition. */
async function queryKeys(
  doc: DynamoDBDocumentClient,
  tableName: string,
  partition: { pk: string } | { gsi1pk: string },
): Promise<KeyedItem[]> {
  const onIndex = 'gsi1pk' in partition;
  return (await queryAll(doc, {
    TableName: tableName,
    ...(onIndex ? { IndexName: LOOKUP_INDEX } : {}),
    KeyConditionExpression: onIndex ? 'gsi1pk = :partition' : 'pk = :partition',
    ExpressionAttributeValues: { ':partition': onIndex ? partition.gsi1pk : partition.pk },
    ProjectionExpression: 'pk, sk, gsi1sk, id, bookmarkId, tokenId, tokenHash',
  })) as KeyedItem[];
}

/** Deletes the items in order, 25 a call, retrying what DynamoDB leaves unprocessed. */
async function deleteAll(doc: DynamoDBDocumentClient, tableName: string, items: readonly Key[]): Promise<void> {
  for (let start = 0; start < items.length; start += BATCH_SIZE) {
    let pending = items.slice(start, start + BATCH_SIZE).map(({ pk, sk }) => ({ DeleteRequest: { Key: { pk, sk } } }));
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > 1) await backoff(attempt);
      const { UnprocessedItems } = await doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (UnprocessedItems?.[tableName] ?? []) as typeof pending;
    }
  }
}
