import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export interface RoundTripCounter {
  /** DynamoDB API calls made since the last reset, by command name, in the order they started. */
  readonly operations: string[];
  /**
   * The longest chain of calls of which each started only after the previous one finished: the
   * round trips a caller waits for one after another. Calls that overlap count once.
   */
  readonly serial: number;
  reset(): void;
}

/**
 * Records every call through `client` with its position in the chain of waits: a call's depth is one
 * more than the deepest call that had finished before it started (anything finished earlier may have
 * been waited for), so parallel calls share a depth and dependent ones add to it.
 */
export function countRoundTrips(client: DynamoDBClient): RoundTripCounter {
  const operations: string[] = [];
  let finishedDepth = 0;
  let serial = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      operations.push(context.commandName ?? 'unknown');
      const depth = finishedDepth + 1;
      serial = Math.max(serial, depth);
      try {
        return await next(args);
      } finally {
        finishedDepth = Math.max(finishedDepth, depth);
      }
    },
    { step: 'initialize', name: 'countRoundTrips' },
  );
  return {
    operations,
    get serial() {
      return serial;
    },
    reset: () => {
      operations.splice(0);
      finishedDepth = 0;
      serial = 0;
    },
  };
}
