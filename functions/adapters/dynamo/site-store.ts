import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SiteIcon, SiteStore, StoredIcon } from '../../core/enrich/icons';
import { writtenUnlessConditionFails } from './conditional-write';
import { keys } from './keys';

/** Favicons by host (fetched at most once per host per refresh period) and icon bytes by content hash. */
export class DynamoSiteStore implements SiteStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async getSite(host: string): Promise<SiteIcon | null> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.site(host), ConsistentRead: true }),
    );
    return Item
      ? { icon: (Item.icon as string | undefined) ?? null, fetchedAt: (Item.fetchedAt as string | undefined) ?? null }
      : null;
  }

  /**
   * Claims the right to fetch a host's favicon: granted when it was never fetched or only before
   * `staleBefore`, and nobody else holds an unexpired claim. Parallel workers get one winner.
   */
  async claimFetch(host: string, now: Date, staleBefore: Date, claimSeconds: number): Promise<boolean> {
    return writtenUnlessConditionFails(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.site(host),
          UpdateExpression: 'SET #type = :type, claimedUntil = :until',
          ConditionExpression:
            '(attribute_not_exists(fetchedAt) OR fetchedAt < :stale) AND (attribute_not_exists(claimedUntil) OR claimedUntil < :now)',
          ExpressionAttributeNames: { '#type': 'type' },
          ExpressionAttributeValues: {
            ':type': 'Site',
            ':until': new Date(now.getTime() + claimSeconds * 1000).toISOString(),
            ':stale': staleBefore.toISOString(),
            ':now': now.toISOString(),
          },
        }),
      ),
    );
  }

  /** Records the outcome of a fetch and releases the claim. */
  async recordFetch(host: string, icon: string | null, fetchedAt: Date): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.site(host), type: 'Site', host, icon, fetchedAt: fetchedAt.toISOString() },
      }),
    );
  }

  /** Stores icon bytes once per content hash (a second store of the same bytes changes nothing). */
  async putIcon(icon: StoredIcon): Promise<void> {
    await writtenUnlessConditionFails(() =>
      this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...keys.icon(icon.hash),
            type: 'Icon',
            hash: icon.hash,
            mediaType: icon.mediaType,
            bytes: icon.bytes,
            size: icon.bytes.length,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  async getIcon(hash: string): Promise<StoredIcon | null> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.icon(hash) }));
    return Item ? { hash, mediaType: Item.mediaType as string, bytes: Item.bytes as Uint8Array } : null;
  }
}
