import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { UserReader } from '../../core/accounts';
import type { AccessToken, User } from '../../core/model';
import type { SaveContext, SaveContextReader } from '../../core/save-bookmark';
import { batchGetAll } from './batch-get';
import { keys, LOOKUP_INDEX } from './keys';
import { transactForUser } from './user-transaction';

/** Users and their personal access tokens (only token hashes are stored). */
export class DynamoAccountStore implements SaveContextReader, UserReader {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createUser(user: User): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.user(user.id), type: 'User', ...user },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getUser(userId: string): Promise<User | null> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.user(userId) }));
    return Item ? toUser(Item) : null;
  }

  /** Stores a token of an existing user; fails with UserNotFoundError otherwise. */
  async createToken(token: AccessToken, tokenHash: string): Promise<void> {
    await transactForUser(this.doc, this.tableName, token.userId, [
      {
        Put: {
          TableName: this.tableName,
          Item: { ...keys.token(tokenHash), ...keys.tokenIdIndex(token.id), type: 'AccessToken', ...token },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]);
  }

  /** Marks a token revoked; returns false when no token has that id. */
  async revokeToken(tokenId: string): Promise<boolean> {
    const { Items } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: LOOKUP_INDEX,
        KeyConditionExpression: 'gsi1pk = :id',
        ExpressionAttributeValues: { ':id': keys.tokenIdIndex(tokenId).gsi1pk },
      }),
    );
    const item = Items?.[0];
    if (!item) return false;
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: item.pk, sk: item.sk },
          UpdateExpression: 'SET revoked = :true',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':true': true },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
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
    return { token: token ? toAccessToken(token) : null, siteIcon: (site?.icon as string | undefined) ?? null };
  }
}

export { UserNotFoundError } from './user-transaction';

function toUser(item: Record<string, unknown>): User {
  return {
    id: item.id as string,
    name: item.name as string,
    plan: item.plan as User['plan'],
    noteCap: Number(item.noteCap),
    noteCount: Number(item.noteCount ?? 0),
    created: item.created as string,
  };
}

function toAccessToken(item: Record<string, unknown>): AccessToken {
  return {
    id: item.id as string,
    userId: item.userId as string,
    label: (item.label as string | undefined) ?? null,
    revoked: item.revoked === true,
    created: item.created as string,
  };
}
