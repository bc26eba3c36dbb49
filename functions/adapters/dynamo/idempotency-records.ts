import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { IdempotencyClaim, IdempotencyRecord, StoredAnswer } from '../../core/save/idempotency';
import type { FailedCondition } from './conditional-write';
import { keys, TTL_ATTRIBUTE } from './keys';

/**
 * The Put of a claim on an Idempotency-Key. It succeeds only while no live record holds the key: an
 * expired one is overwritten (DynamoDB's TTL deletes it only eventually), and so is a claim whose
 * lease has passed (its request crashed). When it fails, the record that holds the key comes back.
 */
export function idempotencyClaimPut(TableName: string, claim: IdempotencyClaim) {
  return {
    TableName,
    Item: {
      ...keys.idempotency(claim.scope, claim.key),
      type: 'IdempotencyRecord',
      ...recordFields(claim),
      leaseUntil: claim.leaseUntil,
    },
    ConditionExpression:
      'attribute_not_exists(pk) OR #ttl <= :now OR (attribute_not_exists(outcome) AND leaseUntil <= :now)',
    ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
    ExpressionAttributeValues: { ':now': claim.createdAt },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
}

/**
 * The Put that turns a request's claim into its answer, for a transaction or on its own. It succeeds
 * only while the claim is still this request's; otherwise the record now holding the key comes back.
 */
export function idempotencyRecordPut<Outcome>(TableName: string, record: IdempotencyRecord<Outcome>) {
  return {
    TableName,
    Item: {
      ...keys.idempotency(record.scope, record.key),
      type: 'IdempotencyRecord',
      ...recordFields(record),
      // JSON text, so a replay renders exactly what the first answer did.
      outcome: JSON.stringify(record.outcome),
    },
    ...claimedBy(record),
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
}

/**
 * The Delete that gives up a request's claim (its request failed), unless the claim is no longer its
 * own, or already holds its answer (which a retry must get, not run again).
 */
export function idempotencyClaimDelete(TableName: string, claim: IdempotencyClaim) {
  const { ConditionExpression, ExpressionAttributeValues } = claimedBy(claim);
  return {
    TableName,
    Key: keys.idempotency(claim.scope, claim.key),
    ConditionExpression: `${ConditionExpression} AND attribute_not_exists(outcome)`,
    ExpressionAttributeValues,
  };
}

function recordFields(record: Omit<IdempotencyClaim, 'leaseUntil'>) {
  return {
    fingerprint: record.fingerprint,
    claimId: record.claimId,
    createdAt: record.createdAt,
    [TTL_ATTRIBUTE]: record.expiresAt,
  };
}

function claimedBy(claim: Pick<IdempotencyClaim, 'claimId'>) {
  return { ConditionExpression: 'claimId = :claimId', ExpressionAttributeValues: { ':claimId': claim.claimId } };
}

/** What holds the key, from the item returned by a failed claim or completion. */
export function storedAnswer<Outcome>(item: Record<string, AttributeValue>): StoredAnswer<Outcome> {
  const record = unmarshall(item);
  return {
    fingerprint: record.fingerprint as string,
    outcome: record.outcome === undefined ? null : (JSON.parse(record.outcome as string) as Outcome),
  };
}

/** What holds the key when a transaction's record failed its condition: the request's claim is no longer its own. */
export function takenKey<Outcome>(
  claim: FailedCondition | null | undefined,
): { kind: 'key-taken'; stored: StoredAnswer<Outcome> } | null {
  return claim?.item ? { kind: 'key-taken', stored: storedAnswer(claim.item) } : null;
}
