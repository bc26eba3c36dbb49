/**
 * Custom metrics (namespace METRICS_NAMESPACE, dimension `service`) that the stack's alarms read,
 * named once for the handlers that emit them and for lib/.
 */
export const metricNames = {
  /** Age of the oldest enrichment still waiting in the outbox, each sweep (seconds). */
  outboxOldestPending: 'OutboxOldestPendingSeconds',
  /** A worker could not delay a message's redelivery, so it comes back sooner than its backoff. */
  redeliveryDelayFailed: 'RedeliveryDelayFailed',
} as const;
