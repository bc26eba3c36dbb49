import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  currentWindow,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitPolicy,
} from '../../core/contract/rate-limit';
import { keys, TTL_ATTRIBUTE } from './keys';

/**
 * Fixed-window counter per subject: one atomic `ADD` guarded by `hits < limit`, so N parallel
 * requests against a quota of N all count and the next is refused. Windows expire through TTL.
 */
export class DynamoRateLimiter implements RateLimiter {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  async hit(subject: string, policy: RateLimitPolicy): Promise<RateLimitDecision> {
    const window = currentWindow(policy, this.now());
    const decision = (allowed: boolean, count: number): RateLimitDecision => ({
      allowed,
      policy,
      remaining: Math.max(0, policy.limit - count),
      resetSeconds: window.resetSeconds,
    });
    try {
      const { Attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.rateLimitWindow(subject, window.start),
          UpdateExpression: 'ADD hits :one SET #ttl = if_not_exists(#ttl, :expiresAt)',
          ConditionExpression: 'attribute_not_exists(hits) OR hits < :limit',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: {
            ':one': 1,
            ':limit': policy.limit,
            ':expiresAt': window.start + policy.windowSeconds * 2,
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return decision(true, Number(Attributes?.hits ?? policy.limit));
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return decision(false, policy.limit);
      throw error;
    }
  }
}
