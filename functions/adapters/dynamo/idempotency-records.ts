import type { AttributeValue, CancellationReason } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { IdempotencyRecord, StoredAnswer } from '../../core/idempotency';
import { keys } from './keys';

/**
 * The Put of an Idempotency-Key record, for a transaction or on its own. It succeeds only while no
 * live record holds the key: an expired one is overwritten, as DynamoDB's TTL deletes it only
 * eventually. When it fails, the record that holds the key comes back with the failure.
 */
export function idempotencyRecordPut<Outcome>(TableName: string, record: IdempotencyRecord<Outcome>) {
  return {
    TableName,
    Item: {
      ...keys.idempotency(record.scope, record.key),
      type: 'IdempotencyRecord',
      fingerprint: record.fingerprint,
      createdAt: record.createdAt,
      expiresAt: record.expiresAt,
      // JSON text, so a replay renders exactly what the first answer did.
      outcome: JSON.stringify(record.outcome),
    },
    ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
    ExpressionAttributeValues: { ':now': record.createdAt },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
}

/** The answer held by the record that made an `idempotencyRecordPut` fail, from the failure's item. */
export function storedAnswer<Outcome>(item: Record<string, AttributeValue>): StoredAnswer<Outcome> {
  const record = unmarshall(item);
  return { fingerprint: record.fingerprint as string, outcome: JSON.parse(record.outcome as string) as Outcome };
}

/** The stored answer when a transaction was cancelled because its idempotency record's key is taken. */
export function takenKey<Outcome>(reason: CancellationReason | undefined): { kind: 'key-taken'; stored: StoredAnswer<Outcome> } | null {
  return reason?.Code === 'ConditionalCheckFailed' && reason.Item ? { kind: 'key-taken', stored: storedAnswer(reason.Item) } : null;
}
