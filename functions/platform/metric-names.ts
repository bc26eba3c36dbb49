/**
 * Custom metrics (namespace METRICS_NAMESPACE, dimension `service`) the handlers emit and the
 * stack's alarms and dashboard read, named once for both.
 */
export const metricNames = {
  /** A save made a new bookmark and its note. */
  bookmarkCreated: 'BookmarkCreated',
  /** A save of a URL already saved appended to its note. */
  noteAppended: 'NoteAppended',
  /** A save repeated with its Idempotency-Key got the first answer again. */
  saveReplayed: 'SaveReplayed',
  /** Saves refused, by reason. */
  saveUnauthorized: 'SaveUnauthorized',
  saveInvalid: 'SaveInvalid',
  saveRateLimited: 'SaveRateLimited',
  noteLimitReached: 'NoteLimitReached',
  idempotencyKeyInFlight: 'IdempotencyKeyInFlight',
  idempotencyKeyReused: 'IdempotencyKeyReused',
  /** Queue workers: messages done, handed back for a later retry, failed for good. */
  messagesProcessed: 'MessagesProcessed',
  messagesRetried: 'MessagesRetried',
  messagesFailed: 'MessagesFailed',
  /** A worker could not delay a message's redelivery, so it comes back sooner than its backoff. */
  redeliveryDelayFailed: 'RedeliveryDelayFailed',
  /** The outbox sweep: requests published again, given up on, and the age of the oldest waiting (seconds). */
  outboxRepublished: 'OutboxRepublished',
  outboxAbandoned: 'OutboxAbandoned',
  outboxOldestPending: 'OutboxOldestPendingSeconds',
  /** The search indexer: notes written to the index, deleted from it, and batches that failed (replayed). */
  notesIndexed: 'NotesIndexed',
  notesUnindexed: 'NotesUnindexed',
  indexBatchFailed: 'IndexBatchFailed',
  /** The links between notes, kept by the same consumer: batches whose links failed (replayed). */
  linkBatchFailed: 'LinkBatchFailed',
} as const;
