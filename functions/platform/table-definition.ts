/**
 * The single DynamoDB table, described once. The CDK data stack and the local stack (DynamoDB Local)
 * both build the table from this object, so the two cannot drift apart.
 *
 * Keys are overloaded per entity (`USER#…`, `NOTE#…`, …); see functions/adapters/dynamo/keys.ts.
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes the item some time after it passes (rate-limit windows, Idempotency-Key records). */
  timeToLiveAttribute: 'expiresAt',
  /** Every change, before and after, feeds the search indexer (a Lambda on AWS, a poller locally). */
  streamView: 'NEW_AND_OLD_IMAGES',
  globalSecondaryIndexes: [
    /** Overloaded lookup index: token by id, a user's feeds, notes by (user, tag) newest first. */
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  ],
} as const;
