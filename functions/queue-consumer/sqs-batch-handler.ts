import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type Attempt, RetryLaterError, retryDelaySeconds } from '../core/enrich/enrichment';
import { metricNames } from '../platform/metric-names';
import { count } from '../platform/observability';
import { withInvocationDeadline } from '../platform/request-deadline';
import type { Tracing } from '../platform/tracing';

/**
 * An SQS-triggered worker: each record is processed on its own and failures are reported per record
 * (Powertools batch), so only failed messages come back. A record that asks to be retried later is
 * made invisible for an exponentially growing delay first; after the queue's maxReceiveCount the
 * message lands in the dead-letter queue.
 */
export interface SqsWorkerOptions<T> {
  readonly logger: Logger;
  /** Counts MessagesProcessed, MessagesRetried, MessagesFailed and RedeliveryDelayFailed. */
  readonly metrics: Metrics;
  /** Traces each batch (X-Ray); the worker's AWS clients are traced where they are built. */
  readonly tracing?: Tracing;
  readonly parse: (body: string) => T;
  readonly process: (message: T, attempt: Attempt) => Promise<unknown>;
  /** Makes a received message invisible for `seconds` (SQS ChangeMessageVisibility). */
  readonly delayRedelivery: (record: SQSRecord, seconds: number) => Promise<void>;
  readonly maxAttempts: number;
  readonly retryBaseSeconds: number;
}

export function sqsWorker<T>(options: SqsWorkerOptions<T>) {
  const processor = new BatchProcessor(EventType.SQS);
  const processRecord = async (record: SQSRecord) => {
    const attempt: Attempt = {
      number: Number(record.attributes.ApproximateReceiveCount) || 1,
      max: options.maxAttempts,
    };
    try {
      const outcome = await options.process(options.parse(record.body), attempt);
      count(options.metrics, metricNames.messagesProcessed);
      options.logger.info('Processed message', {
        messageId: record.messageId,
        attempt: attempt.number,
        outcome: outcome as Record<string, unknown>,
      });
    } catch (error) {
      if (error instanceof RetryLaterError) {
        const seconds = retryDelaySeconds(attempt.number, options.retryBaseSeconds);
        count(options.metrics, metricNames.messagesRetried);
        options.logger.info('Retrying message later', {
          messageId: record.messageId,
          attempt: attempt.number,
          reason: error.message,
          seconds,
        });
        await options.delayRedelivery(record, seconds).catch((delayError: unknown) => {
          // The message then comes back after the queue's visibility timeout instead: worth an alarm.
          count(options.metrics, metricNames.redeliveryDelayFailed);
          options.logger.warn('Could not delay redelivery', { messageId: record.messageId, error: String(delayError) });
        });
      } else {
        count(options.metrics, metricNames.messagesFailed);
        options.logger.error('Processing the message failed', {
          messageId: record.messageId,
          attempt: attempt.number,
          error: error as Error,
        });
      }
      throw error;
    }
  };
  const worker = middy(
    (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
      withInvocationDeadline(context, () =>
        processPartialResponse(event, processRecord, processor, { context, throwOnFullBatchFailure: false }),
      ),
  );
  if (options.tracing) worker.use(options.tracing.middleware());
  return worker.use(injectLambdaContext(options.logger, { resetKeys: true })).use(logMetrics(options.metrics));
}
