import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { lambdaContext } from './lambda-runtime';

export interface StreamPollerOptions {
  /** The records written since the last read. */
  readonly read: () => Promise<DynamoDBRecord[]>;
  readonly handle: (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;
  readonly functionName: string;
  /** Wait between reads that found nothing. */
  readonly idleMs?: number;
  /** Invocations of a failing batch before it is set aside (Lambda's retry attempts, then its dead-letter queue). */
  readonly maxAttempts: number;
  readonly log?: (line: string) => void;
}

export interface StreamPoller {
  stop(): Promise<void>;
}

/**
 * Lambda's DynamoDB event source mapping, for one machine: reads the stream, invokes the handler with
 * a batch, and on reported failures invokes it again from the first failed record, up to
 * `maxAttempts`, then sets the batch aside with a log line (where AWS would send it to the DLQ).
 */
export function startStreamPoller(options: StreamPollerOptions): StreamPoller {
  const idleMs = options.idleMs ?? 200;
  let stopped = false;
  let wake: (() => void) | null = null;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const run = async () => {
    let pending: DynamoDBRecord[] = [];
    let attempts = 0;
    while (!stopped) {
      try {
        if (pending.length === 0) {
          pending = await options.read();
          attempts = 0;
        }
        if (pending.length === 0) {
          await sleep(idleMs);
          continue;
        }
        const response = await options.handle({ Records: pending }, lambdaContext(options.functionName));
        const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
        if (failed.size === 0) {
          pending = [];
          continue;
        }
        attempts++;
        if (attempts >= options.maxAttempts) {
          options.log?.(
            `${options.functionName}: set aside ${pending.length} stream records after ${attempts} attempts`,
          );
          pending = [];
          continue;
        }
        pending = pending.slice(
          Math.max(
            0,
            pending.findIndex((record) => failed.has(record.dynamodb?.SequenceNumber ?? '')),
          ),
        );
        await sleep(Math.min(5000, 200 * 2 ** attempts));
      } catch (error) {
        options.log?.(`${options.functionName}: reading the stream failed: ${String(error)}`);
        await sleep(1000);
      }
    }
  };
  const running = run();
  return {
    async stop() {
      stopped = true;
      wake?.();
      await running;
    },
  };
}
