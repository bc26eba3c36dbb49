import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { type Attempt, RetryLaterError, retryDelaySeconds } from '../../functions/core/enrich/enrichment';
import { type SqsWorkerOptions, sqsWorker } from '../../functions/queue-consumer/sqs-batch-handler';
import { context, sqsRecord } from '../support/factories';
import { testMetrics } from '../support/observability';

interface Job {
  readonly name: string;
  /** What processing the job does: succeed, fail for good, or ask to be retried later. */
  readonly result: 'ok' | 'fail' | 'retry';
}

const MAX_ATTEMPTS = 5;
const RETRY_BASE_SECONDS = 30;

const jobRecord = (messageId: string, result: Job['result'], receiveCount = 1) =>
  sqsRecord({ messageId, body: JSON.stringify({ name: messageId, result }), receiveCount });

type DelayRedelivery = SqsWorkerOptions<Job>['delayRedelivery'];

function worker(delayRedelivery = vi.fn<DelayRedelivery>(async () => {})) {
  const process = vi.fn<SqsWorkerOptions<Job>['process']>(async (job) => {
    if (job.result === 'fail') throw new Error(`${job.name} failed`);
    if (job.result === 'retry') throw new RetryLaterError(`${job.name} is not ready`);
    return { status: 'done' };
  });
  const metrics = testMetrics();
  const counted = vi.spyOn(metrics, 'addMetric');
  const logger = new Logger({ logLevel: 'SILENT' });
  const warned = vi.spyOn(logger, 'warn');
  const handler = sqsWorker<Job>({
    logger,
    metrics,
    parse: (body) => JSON.parse(body) as Job,
    process,
    delayRedelivery,
    maxAttempts: MAX_ATTEMPTS,
    retryBaseSeconds: RETRY_BASE_SECONDS,
  });
  const invoke = (...records: SQSRecord[]) => handler({ Records: records } satisfies SQSEvent, context('test-worker'));
  return { invoke, process, delayRedelivery, counted, warned };
}

const failedIds = (response: { batchItemFailures: { itemIdentifier: string }[] }) =>
  response.batchItemFailures.map((failure) => failure.itemIdentifier).sort();

describe('sqsWorker', () => {
  it('reports no failures when every record is processed', async () => {
    const { invoke, process } = worker();
    await expect(invoke(jobRecord('m1', 'ok'), jobRecord('m2', 'ok'), jobRecord('m3', 'ok'))).resolves.toEqual({
      batchItemFailures: [],
    });
    expect(process).toHaveBeenCalledTimes(3);
  });

  it('reports only the records that failed', async () => {
    const { invoke, delayRedelivery } = worker();
    const response = await invoke(jobRecord('m1', 'ok'), jobRecord('m2', 'fail'), jobRecord('m3', 'ok'));
    expect(failedIds(response)).toEqual(['m2']);
    expect(delayRedelivery).not.toHaveBeenCalled();
  });

  it('delays the redelivery of a record that asks to be retried later, and reports it as failed', async () => {
    const { invoke, delayRedelivery } = worker();
    const retried = jobRecord('m2', 'retry', 3);
    const response = await invoke(jobRecord('m1', 'ok'), retried, jobRecord('m3', 'ok'));
    expect(failedIds(response)).toEqual(['m2']);
    expect(delayRedelivery).toHaveBeenCalledExactlyOnceWith(retried, retryDelaySeconds(3, RETRY_BASE_SECONDS));
    expect(delayRedelivery.mock.calls[0]![1]).toBe(120);
  });

  it('still reports a retried record as failed when its redelivery cannot be delayed, and says so in a metric and a warning', async () => {
    const delayRedelivery = vi.fn<DelayRedelivery>(async () => {
      throw new Error('SQS unavailable');
    });
    const { invoke, counted, warned } = worker(delayRedelivery);
    const response = await invoke(jobRecord('m1', 'retry'), jobRecord('m2', 'ok'), jobRecord('m3', 'ok'));
    expect(failedIds(response)).toEqual(['m1']);
    expect(delayRedelivery).toHaveBeenCalledOnce();
    expect(counted.mock.calls.map(([name]) => name)).toContain('RedeliveryDelayFailed');
    expect(warned).toHaveBeenCalledWith('Could not delay redelivery', {
      messageId: 'm1',
      error: 'Error: SQS unavailable',
    });
  });

  it('returns every id when the whole batch fails, instead of throwing', async () => {
    const { invoke } = worker();
    const response = await invoke(jobRecord('m1', 'fail'), jobRecord('m2', 'retry'), jobRecord('m3', 'fail'));
    expect(failedIds(response)).toEqual(['m1', 'm2', 'm3']);
  });

  it('passes the receive count as the attempt number, with the configured maximum', async () => {
    const { invoke, process } = worker();
    await invoke(jobRecord('m1', 'ok', 1), jobRecord('m2', 'ok', 2), jobRecord('m3', 'ok', 4));
    const attempts = new Map(process.mock.calls.map(([job, attempt]) => [job.name, attempt]));
    expect(Object.fromEntries(attempts)).toEqual({
      m1: { number: 1, max: MAX_ATTEMPTS },
      m2: { number: 2, max: MAX_ATTEMPTS },
      m3: { number: 4, max: MAX_ATTEMPTS },
    } satisfies Record<string, Attempt>);
  });

  it('counts processed, retried and failed messages', async () => {
    const { invoke, counted } = worker();
    await invoke(jobRecord('m1', 'ok'), jobRecord('m2', 'retry'), jobRecord('m3', 'fail'), jobRecord('m4', 'ok'));
    expect(counted.mock.calls.map(([name]) => name).sort()).toEqual([
      'MessagesFailed',
      'MessagesProcessed',
      'MessagesProcessed',
      'MessagesRetried',
    ]);
  });

  it('reports a record whose body cannot be parsed as failed, without processing it', async () => {
    const { invoke, process } = worker();
    const response = await invoke(
      jobRecord('m1', 'ok'),
      sqsRecord({ messageId: 'm2', body: '{not json' }),
      jobRecord('m3', 'ok'),
    );
    expect(failedIds(response)).toEqual(['m2']);
    expect(process.mock.calls.map(([job]) => job.name).sort()).toEqual(['m1', 'm3']);
  });
});
