import {
  type CancellationReason,
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import type { DynamoClients } from '../../functions/adapters/dynamo/client';

/**
 * Failure injection into a real DynamoDB Local client: each call is offered to `fault` (with its
 * position among all calls and the command's input) before it is sent; a returned error is thrown
 * instead of sending, as if DynamoDB had answered so after the SDK's own retries, and a returned
 * `{ output }` is answered instead. DynamoDB Local never throttles, so this is how the stores meet
 * throttling, partial results and conflicts in tests.
 */
export type Fault = (call: {
  readonly commandName: string;
  readonly index: number;
  readonly input: Record<string, unknown>;
}) => Error | { output: unknown } | undefined;

export function injectFaults({ client }: DynamoClients): { set(fault: Fault | null): void; remove(): void } {
  let current: Fault | null = null;
  let index = 0;
  const name = `injectFaults-${Math.random()}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const injected = current?.({
        commandName: context.commandName ?? 'unknown',
        index: index++,
        input: args.input as Record<string, unknown>,
      });
      if (injected instanceof Error) throw injected;
      if (injected)
        return { output: { $metadata: {}, ...(injected.output as object) }, response: {} } as Awaited<
          ReturnType<typeof next>
        >;
      return next(args);
    },
    { step: 'initialize', name },
  );
  return {
    set: (fault) => {
      current = fault;
      index = 0;
    },
    remove: () => client.middlewareStack.remove(name),
  };
}

/** What DynamoDB answers when a table or index is over its throughput, after the SDK gave up retrying. */
export function throttled(): Error {
  return new ProvisionedThroughputExceededException({
    message: 'The level of configured provisioned throughput for the table was exceeded',
    $metadata: { httpStatusCode: 400 },
  });
}

/** A transaction cancelled with one reason per item. */
export function cancelled(...codes: (CancellationReason['Code'] | 'None')[]): Error {
  return new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
}

/** A BatchGetItem answered with every key unprocessed, as DynamoDB does when it throttles some of a batch. */
export function nothingProcessed(input: Record<string, unknown>): { output: unknown } {
  const requested = input.RequestItems as Record<string, { Keys: unknown[] }>;
  return {
    output: {
      Responses: Object.fromEntries(Object.keys(requested).map((table) => [table, []])),
      UnprocessedKeys: requested,
    },
  };
}
