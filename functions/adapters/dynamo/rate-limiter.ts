import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  currentWindow,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitPolicy,
} from '../../core/contract/rate-limit';
import { conditionalWrite } from './conditional-write';
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
    const counted = await conditionalWrite(() =>
      this.doc.send(
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
      ),
    );
    // Refused by the condition: the window's quota is used up.
    return counted.written
      ? decision(true, Number(counted.value.Attributes?.hits ?? policy.limit))
      : decision(false, policy.limit);
  }
}
