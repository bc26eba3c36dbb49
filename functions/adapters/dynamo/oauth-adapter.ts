import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AuthorizationGrants, ConnectedGrant } from '../../core/identity/account-flows';
import { conditionalWrite } from './conditional-write';
import {
  type OAuthPayload,
  oauthArtifactItem,
  oauthLoginRefItem,
  readConnectedGrant,
  readOAuthArtifact,
  readOAuthLoginRef,
} from './entities/oauth';
import { keys, LOOKUP_INDEX } from './keys';
import { queryAll } from './query-all';

/**
 * oidc-provider's storage adapter on the single table: one item per artifact, keyed by model name and
 * id, expiring through the table's TTL (and checked on read, as TTL deletes lazily). Artifacts of a
 * grant are in the lookup index under it (`revokeByGrantId`: logging out a client, refresh-token reuse,
 * "Connected apps › Revoke"); grants are in their user's AUTH index partition (the Connected apps list,
 * account deletion); login sessions by their uid, with a reference item in the user's partition.
 */
export class DynamoOAuthAdapter {
  /** Whether this model's ids are bearer secrets, kept in the table only as their hash. */
  private readonly secretIds: boolean;

  constructor(
    private readonly name: string,
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {
    this.secretIds = SECRET_ID_MODELS.has(name);
  }

  /**
   * The id the table keys this artifact by: for tokens and codes, whose id is what the client
   * presents, its SHA-256, so the table never holds a usable secret (as for sessions and PATs).
   */
  private storedId(id: string): string {
    return this.secretIds ? keys.oauthSecretId(id) : id;
  }

  async upsert(presentedId: string, presented: OAuthPayload, expiresIn?: number): Promise<void> {
    const id = this.storedId(presentedId);
    // The payload repeats the id as `jti`: not stored for a secret, given back by `find`.
    const payload = this.secretIds ? withoutJti(presented) : presented;
    const expiry = expiresIn ? Math.floor(this.now() / 1000) + expiresIn : undefined;
    await this.doc.send(
      new PutCommand({ TableName: this.tableName, Item: oauthArtifactItem(this.name, id, payload, expiry) }),
    );
    if (this.name === 'Session' && payload.accountId) {
      await this.doc.send(
        new PutCommand({ TableName: this.tableName, Item: oauthLoginRefItem(payload.accountId, id, expiry) }),
      );
    }
  }

  async find(id: string): Promise<OAuthPayload | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.oauthArtifact(this.name, this.storedId(id)),
        ConsistentRead: true,
      }),
    );
    const stored = this.live(Item);
    const payload = stored && this.secretIds ? { ...stored, jti: id } : stored;
    // A refresh token another request has just rotated: the request lost a race (a client refreshing
    // twice at once), not a replay, so it is "not found" and the winner's new tokens stay good.
    if (
      this.name === 'RefreshToken' &&
      typeof payload?.consumed === 'number' &&
      payload.consumed > this.now() / 1000 - REFRESH_RACE_SECONDS
    )
      return undefined;
    return payload;
  }

  async findByUid(uid: string): Promise<OAuthPayload | undefined> {
    const { Items } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: LOOKUP_INDEX,
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.oauthUidIndex(uid).gsi1pk },
        Limit: 1,
      }),
    );
    // The index is eventually consistent: read the item itself.
    return Items?.[0] ? this.find(readOAuthArtifact(Items[0]).id) : undefined;
  }

  /** Device flow is not enabled: there are no user codes. */
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }

  /**
   * Marks a code or refresh token used, once only. Of requests racing to use one, the losers come
   * here after reading it unused, and `AlreadyConsumedError` says so (the authorization server answers
   * it with invalid_grant). For a code, theirs is a replay: as oidc-provider does on a replay, the
   * grant is revoked with every token issued under it (RFC 6749 4.1.2). For a refresh token it is a
   * client refreshing twice at once: the winner keeps its new tokens (a replay later still revokes).
   */
  async consume(id: string): Promise<void> {
    const outcome = await conditionalWrite(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.oauthArtifact(this.name, this.storedId(id)),
          UpdateExpression: 'SET payload.#consumed = :now',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(payload.#consumed)',
          ExpressionAttributeNames: { '#consumed': 'consumed' },
          ExpressionAttributeValues: { ':now': Math.floor(this.now() / 1000) },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    if (outcome.written) return;
    const found = outcome.failed[0]?.item;
    const grantId = found ? readOAuthArtifact(unmarshall(found)).payload.grantId : undefined;
    if (grantId && this.name !== 'RefreshToken') await revokeOAuthGrant(this.doc, this.tableName, grantId);
    throw new AlreadyConsumedError(this.name);
  }

  async destroy(id: string): Promise<void> {
    const { Attributes } = await this.doc.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: keys.oauthArtifact(this.name, this.storedId(id)),
        ReturnValues: 'ALL_OLD',
      }),
    );
    const accountId = Attributes ? readOAuthArtifact(Attributes).payload.accountId : undefined;
    if (this.name === 'Session' && accountId) {
      await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: keys.oauthLoginRef(accountId, id) }));
    }
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const issued = keys.oauthGrantIndex(grantId, this.name, '');
    const artifacts = await queryAll(this.doc, {
      TableName: this.tableName,
      IndexName: LOOKUP_INDEX,
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :model)',
      ExpressionAttributeValues: { ':pk': issued.gsi1pk, ':model': issued.gsi1sk },
      ProjectionExpression: 'pk, sk',
    });
    // A grant holds a handful of artifacts (a code, an access and a refresh token per rotation).
    await Promise.all(
      artifacts.map((item) =>
        this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: { pk: item.pk, sk: item.sk } })),
      ),
    );
  }

  private live(item: Record<string, unknown> | undefined): OAuthPayload | undefined {
    if (!item) return undefined;
    const { payload, expiry } = readOAuthArtifact(item);
    return expiry !== null && expiry <= this.now() / 1000 ? undefined : payload;
  }
}

/**
 * Seconds after a refresh token's rotation in which presenting it again is taken as a concurrent
 * refresh that lost (invalid_grant only), not a replay (which revokes the grant).
 */
const REFRESH_RACE_SECONDS = 5;

/**
 * The models whose id is the secret a client presents (oidc-provider's opaque tokens and codes).
 * Sessions and interactions are named by cookies that are good only when signed with Gleaner.s cookie keys
 * and are left as they are; grants, clients and the rest are not secrets.
 */
const SECRET_ID_MODELS: ReadonlySet<string> = new Set([
  'AccessToken',
  'RefreshToken',
  'AuthorizationCode',
  'ClientCredentials',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'RegistrationAccessToken',
  'InitialAccessToken',
]);

function withoutJti(payload: OAuthPayload): OAuthPayload {
  const { jti: _presented, ...rest } = payload;
  return rest;
}

/** The artifacts that belong to a grant, deleted with it. */
const GRANT_ARTIFACTS = ['AccessToken', 'RefreshToken', 'AuthorizationCode'] as const;

/** A code or refresh token another request used first (its grant is revoked by then). */
export class AlreadyConsumedError extends Error {
  constructor(readonly model: string) {
    super(`${model} already consumed`);
    this.name = 'AlreadyConsumedError';
  }
}

/** Deletes a grant and every token issued under it. */
async function revokeOAuthGrant(doc: DynamoDBDocumentClient, tableName: string, grantId: string): Promise<void> {
  await Promise.all(
    GRANT_ARTIFACTS.map((model) => new DynamoOAuthAdapter(model, doc, tableName).revokeByGrantId(grantId)),
  );
  await new DynamoOAuthAdapter('Grant', doc, tableName).destroy(grantId);
}

/** A user's OAuth grants, for Settings › Connected apps and account deletion. */
export class DynamoOAuthGrants implements AuthorizationGrants {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async listGrants(userId: string): Promise<ConnectedGrant[]> {
    const grants = keys.authIndex(userId, 'GRANT');
    const { Items } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: LOOKUP_INDEX,
        KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
        ExpressionAttributeValues: { ':pk': grants.gsi1pk, ':prefix': grants.gsi1sk },
      }),
    );
    const now = Date.now() / 1000;
    return (Items ?? [])
      .filter((item) => {
        const { expiry } = readOAuthArtifact(item);
        return expiry === null || expiry > now;
      })
      .map(readConnectedGrant);
  }

  /** The client's name as it registered, or null (unknown, or a metadata-document client not stored here). */
  async clientName(clientId: string): Promise<string | null> {
    const client = await new DynamoOAuthAdapter('Client', this.doc, this.tableName).find(clientId);
    return typeof client?.client_name === 'string' ? client.client_name : null;
  }

  /**
   * Ends every login the authorization server holds for the user (oidc-provider's Session records,
   * found by their references in the user's partition): its next authorization asks for a sign-in.
   */
  async endLogins(userId: string): Promise<void> {
    const refs = await queryAll(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.user(userId).pk, ':prefix': keys.oauthLoginRef(userId, '').sk },
      ProjectionExpression: 'sessionId',
    });
    const sessions = new DynamoOAuthAdapter('Session', this.doc, this.tableName);
    await Promise.all(refs.map((ref) => sessions.destroy(readOAuthLoginRef(ref))));
  }

  /** Revokes one of the user's grants with every token issued under it; false when it is not theirs. */
  async revokeGrant(userId: string, grantId: string): Promise<boolean> {
    const grant = await new DynamoOAuthAdapter('Grant', this.doc, this.tableName).find(grantId);
    if (!grant || grant.accountId !== userId) return false;
    await revokeOAuthGrant(this.doc, this.tableName, grantId);
    return true;
  }
}
