import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * The round trips a caller waits for one after another. A call's depth is one more than the deepest
 * call that had finished before it started (anything finished earlier may have been waited for), so
 * parallel calls share a depth and dependent ones add to it; `serial` is the deepest.
 */
export class RoundTripChain {
  /** Calls since the last reset, by operation name, in the order they started. */
  readonly operations: string[] = [];
  /** The operations started at each depth: `steps[0]` are those nothing was waited for before. */
  readonly steps: string[][] = [];
  private finishedDepth = 0;

  get serial(): number {
    return this.steps.length;
  }

  /** Records a call starting now; call the answer when it finishes. */
  start(operation: string): () => void {
    this.operations.push(operation);
    const depth = this.finishedDepth + 1;
    (this.steps[depth - 1] ??= []).push(operation);
    return () => {
      this.finishedDepth = Math.max(this.finishedDepth, depth);
    };
  }

  reset(): void {
    this.operations.splice(0);
    this.steps.splice(0);
    this.finishedDepth = 0;
  }
}

/** Records every call made through `client`, by command name. */
export function countRoundTrips(client: DynamoDBClient): RoundTripChain {
  const chain = new RoundTripChain();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const finished = chain.start(context.commandName ?? 'unknown');
      try {
        return await next(args);
      } finally {
        finished();
      }
    },
    { step: 'initialize', name: 'countRoundTrips' },
  );
  return chain;
}
