import type { SQSRecord } from 'aws-lambda';
import { tableFromEnv } from '../adapters/dynamo/client';
import {
  createSafeFetcher,
  FetchFailedError,
  FetchRefusedError,
  parseFetchAllow,
  type SafeFetchRequest,
  type SafeResponse,
} from '../adapters/safe-fetch';
import { createSqsClient, delayRedelivery } from '../adapters/sqs/sqs';
import type { Attempt, FetchOutcome } from '../core/enrich/enrichment';
import type { Environment } from '../platform/env';
import { createLogger, createMetrics } from '../platform/observability';
import { setting, settings } from '../platform/settings';
import { createTracing } from '../platform/tracing';
import { MAX_FETCH_ATTEMPTS } from '../platform/workers';
import { sqsWorker } from './sqs-batch-handler';

const DAY_MS = 24 * 60 * 60 * 1000;

export type WorkerContext = ReturnType<typeof workerContext>;

/**
 * An enrichment worker (page or favicon): the SQS batch handler around one step of the domain,
 * wired from the environment the same way for both. Messages are read with `parse`; `step` gets the
 * shared context (table, queues, fetcher, settings) and returns what to do with each message.
 */
export function enrichmentWorker<T>(
  env: Environment,
  parse: (body: string) => T,
  step: (context: WorkerContext) => (message: T, attempt: Attempt) => Promise<unknown>,
) {
  const context = workerContext(env);
  return sqsWorker({
    ...context.worker,
    logger: context.logger,
    metrics: context.metrics,
    tracing: context.tracing,
    parse,
    process: step(context),
  });
}

/** What both enrichment workers are built from, read from their environment. */
export function workerContext(env: Environment) {
  const tracing = createTracing();
  const { instrument } = tracing;
  const sqs = createSqsClient({ endpoint: setting(env, settings.sqsEndpoint), instrument });
  const sourceQueueUrl = setting(env, settings.sourceQueueUrl);
  const logger = createLogger(env);
  // GLEANER_FETCH_ALLOW exempts local fixture servers from the address rules; the stack never sets it.
  const fetcher = createSafeFetcher({ allow: parseFetchAllow(setting(env, settings.fetchAllow)) });
  return {
    ...tableFromEnv(env, instrument),
    sqs,
    logger,
    metrics: createMetrics(logger),
    tracing,
    iconRefreshMs: setting(env, settings.iconRefreshDays) * DAY_MS,
    worker: {
      maxAttempts: MAX_FETCH_ATTEMPTS,
      retryBaseSeconds: setting(env, settings.retryBaseSeconds),
      delayRedelivery: (record: SQSRecord, seconds: number) =>
        delayRedelivery(sqs, sourceQueueUrl, record.receiptHandle, seconds),
    },
    fetch: (url: string, request: SafeFetchRequest) => fetchOutcome(() => fetcher.fetch(url, request)),
  };
}

/** The fetcher's answer in the domain's terms: refusals are final, failures say if they may pass. */
async function fetchOutcome(fetch: () => Promise<SafeResponse>): Promise<FetchOutcome> {
  try {
    return { ok: true, ...(await fetch()) };
  } catch (error) {
    if (error instanceof FetchRefusedError) return { ok: false, retryable: false, reason: `refused: ${error.message}` };
    if (error instanceof FetchFailedError)
      return { ok: false, retryable: error.retryable, reason: `${error.kind}: ${error.message}` };
    throw error;
  }
}
