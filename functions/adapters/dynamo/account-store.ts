import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AccessToken, User } from '../../core/model';
import type { AccountStore, TokenStore } from '../../core/owner/library';
import type { SaveContext, SaveContextReader } from '../../core/save/save-bookmark';
import { isoTimestamp } from '../../core/text/text';
import { LAST_USE_INTERVAL_MS } from '../../core/token/lifecycle';
import type { UserReader } from '../../core/workspace/accounts';
import type { Page, PageRequest } from '../../core/workspace/listing';
import { deleteAccountRows } from './account-deletion';
import { batchGetAll } from './batch-get';
import { conditionalWrite, TransactionSteps, writtenUnlessConditionFails } from './conditional-write';
import { accessTokenItem, readAccessToken, readStoredToken, readUserToken, userTokenItem } from './entities/token';
import { readUser, userItem } from './entities/user';
import { queryIndexPage } from './index-page';
import { keys, LOOKUP_INDEX } from './keys';
import { queryAll } from './query-all';
import { transactForUser } from './user-transaction';

/** Users and their personal access tokens (only token hashes are stored). */
export class DynamoAccountStore implements SaveContextReader, UserReader, AccountStore, TokenStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createUser(user: User): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: userItem(user),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getUser(userId: string): Promise<User | null> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.user(userId) }));
    return Item ? readUser(Item) : null;
  }

  /**
   * What the account's kept pages take in the article store: how many, and their bytes (content and
   * images, as the page worker recorded them on each bookmark's row). Reads the notes that carry a
   * kept article (the user's notes index, filtered) and their bookmarks' article sizes.
   */
  async articleUsage(userId: string): Promise<{ articles: number; bytes: number }> {
    const notes = await queryAll(this.doc, {
      TableName: this.tableName,
      IndexName: LOOKUP_INDEX,
      KeyConditionExpression: 'gsi1pk = :notes',
      FilterExpression: 'attribute_exists(articleHash)',
      ProjectionExpression: 'bookmarkId',
      ExpressionAttributeValues: { ':notes': keys.userNotesIndex(userId).gsi1pk },
    });
    const bookmarkIds = notes.flatMap((note) => (typeof note.bookmarkId === 'string' ? [note.bookmarkId] : []));
    const bookmarks = await batchGetAll(this.doc, this.tableName, bookmarkIds.map(keys.bookmark), {
      attributes: ['article'],
    });
    const sizes = bookmarks.map((bookmark) =>
      Number((bookmark.article as { bytes?: unknown } | undefined)?.bytes ?? 0),
    );
    return { articles: sizes.filter((size) => size > 0).length, bytes: sizes.reduce((sum, size) => sum + size, 0) };
  }

  /** A page of all users, newest first. */
  async listUsers(page: PageRequest): Promise<Page<User>> {
    const { items, cursor } = await queryIndexPage(this.doc, this.tableName, keys.usersIndex().gsi1pk, page);
    return { items: items.map(readUser), cursor };
  }

  /** Deletes the user and every row it owns (account-deletion.ts). */
  deleteAccount(userId: string): Promise<void> {
    return deleteAccountRows(this.doc, this.tableName, userId);
  }

  /** Sets the user's plan and note cap; returns the user as updated, or null when there is none. */
  async updatePlan(userId: string, change: Pick<User, 'plan' | 'noteCap'>): Promise<User | null> {
    const updated = await conditionalWrite(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.user(userId),
          UpdateExpression: 'SET #plan = :plan, noteCap = :cap',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#plan': 'plan' },
          ExpressionAttributeValues: { ':plan': change.plan, ':cap': change.noteCap },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return updated.written ? readUser(updated.value.Attributes!) : null;
  }

  /** Sets the user's display name; returns the user as updated, or null when there is none. */
  async setDisplayName(userId: string, displayName: string): Promise<User | null> {
    const updated = await conditionalWrite(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.user(userId),
          UpdateExpression: 'SET displayName = :name',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':name': displayName },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return updated.written ? readUser(updated.value.Attributes!) : null;
  }

  /** Stores a token of an existing user; fails with UserNotFoundError otherwise. */
  async createToken(token: AccessToken, tokenHash: string): Promise<void> {
    const stored = await transactForUser(this.doc, this.tableName, token.userId, this.tokenPuts(token, tokenHash));
    if (!stored.written) throw new Error('A new token collided with a stored one');
  }

  /**
   * Stores the replacement of a token, which it names and which keeps working until `oldExpires`;
   * returns false when the old token is gone or revoked meanwhile.
   */
  async rotateToken(
    old: { tokenHash: string; expires: string },
    replacement: AccessToken,
    replacementHash: string,
  ): Promise<boolean> {
    const steps = new TransactionSteps<'replacement' | 'old-token'>()
      .add('replacement', ...this.tokenPuts(replacement, replacementHash))
      .add('old-token', {
        Update: {
          TableName: this.tableName,
          Key: keys.token(old.tokenHash),
          UpdateExpression: 'SET expires = :expires',
          ConditionExpression: 'attribute_exists(pk) AND revoked = :false',
          ExpressionAttributeValues: { ':expires': old.expires, ':false': false },
        },
      });
    const rotated = await transactForUser(this.doc, this.tableName, replacement.userId, steps.actions);
    // Only the old token's condition means "gone or revoked".
    if (!rotated.written && !steps.refused('old-token', rotated.failed))
      throw new Error('A new token collided with a stored one');
    return rotated.written;
  }

  private tokenPuts(token: AccessToken, tokenHash: string) {
    return [
      {
        Put: {
          TableName: this.tableName,
          Item: accessTokenItem(token, tokenHash),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      { Put: { TableName: this.tableName, Item: userTokenItem(token, tokenHash) } },
    ];
  }

  /** The token with this id and its hash (the storage key), or null. */
  async findToken(tokenId: string): Promise<{ token: AccessToken; tokenHash: string } | null> {
    const { Items } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: LOOKUP_INDEX,
        KeyConditionExpression: 'gsi1pk = :id',
        ExpressionAttributeValues: { ':id': keys.tokenIdIndex(tokenId).gsi1pk },
      }),
    );
    const item = Items?.[0];
    return item ? readStoredToken(item) : null;
  }

  /** Every token of the user, newest first. */
  async listTokens(userId: string): Promise<AccessToken[]> {
    const refs = await queryAll(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :user AND begins_with(sk, :tokens)',
      ExpressionAttributeValues: { ':user': keys.user(userId).pk, ':tokens': keys.userToken(userId, '').sk },
    });
    const items = await batchGetAll(
      this.doc,
      this.tableName,
      refs.map((ref) => keys.token(readUserToken(ref).tokenHash)),
    );
    return items.map(readAccessToken).sort((a, b) => b.created.localeCompare(a.created) || b.id.localeCompare(a.id));
  }

  /** Marks a token revoked; returns false when no token has that id. */
  async revokeToken(tokenId: string): Promise<boolean> {
    const found = await this.findToken(tokenId);
    if (!found) return false;
    return writtenUnlessConditionFails(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.token(found.tokenHash),
          UpdateExpression: 'SET revoked = :true',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':true': true },
        }),
      ),
    );
  }

  /**
   * Records that the token authenticated a request, unless a use within the last hour is recorded
   * already (then the conditional write changes nothing: a busy token costs one write an hour).
   */
  async recordTokenUse(tokenHash: string, at: Date, agentFamily: string | null): Promise<void> {
    await writtenUnlessConditionFails(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.token(tokenHash),
          UpdateExpression: 'SET lastUsed = :at, lastUsedAgent = :agent',
          // A new token stores lastUsed as NULL; tokens from before it was kept have none.
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(lastUsed) OR attribute_type(lastUsed, :null) OR lastUsed <= :due)',
          ExpressionAttributeValues: {
            ':at': isoTimestamp(at),
            ':agent': agentFamily,
            ':null': 'NULL',
            ':due': isoTimestamp(new Date(at.getTime() - LAST_USE_INTERVAL_MS)),
          },
        }),
      ),
    );
  }

  /**
   * The token and the host's icon in one BatchGetItem. Keys DynamoDB leaves unprocessed (throttling)
   * are read again, so a token is only ever "unknown" when DynamoDB said so.
   */
  async loadSaveContext(tokenHash: string, host: string | null): Promise<SaveContext> {
    const wanted = [keys.token(tokenHash), ...(host ? [keys.site(host)] : [])];
    // Strongly consistent: a token revoked a moment ago must no longer authenticate.
    const items = await batchGetAll(this.doc, this.tableName, wanted, { consistentRead: true });
    const token = items.find((item) => item.type === 'AccessToken');
    const site = items.find((item) => item.type === 'Site');
    return { token: token ? readAccessToken(token) : null, siteIcon: (site?.icon as string | undefined) ?? null };
  }
}

export { UserNotFoundError } from './user-transaction';
