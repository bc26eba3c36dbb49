import middy from '@middy/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDynamoClients } from '../../functions/adapters/dynamo/client';
import { createSqsClient } from '../../functions/adapters/sqs/sqs';
import { createTracing } from '../../functions/platform/tracing';
import { context } from '../support/factories';

beforeEach(() => {
  // In Lambda (Powertools traces there only), but with no X-Ray context to record into.
  vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs24.x');
  vi.stubEnv('AWS_XRAY_CONTEXT_MISSING', 'IGNORE_ERROR');
  // Powertools warns that it found no segment to annotate: there is no X-Ray daemon here.
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

/** The X-Ray SDK's middleware on a client's stack: each call then becomes a subsegment. */
function tracedCalls(client: { middlewareStack: { identify(): string[] } }): boolean {
  return client.middlewareStack.identify().some((name) => /XRay/i.test(name));
}

/** A function's tracing with a counted loader, one client built before its first invocation, and its handler. */
function tracedFunction() {
  const load = vi.fn(() => import('../../functions/platform/tracer'));
  const tracing = createTracing(load);
  const { client } = createDynamoClients({ endpoint: 'http://127.0.0.1:9', instrument: tracing.instrument });
  const handler = middy(async () => 'done').use(tracing.middleware());
  const invoke = (traceHeader: string | undefined) => {
    vi.stubEnv('_X_AMZN_TRACE_ID', traceHeader);
    return handler({}, context());
  };
  return { load, tracing, client, invoke };
}

const sampled = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
const unsampled = sampled.replace('Sampled=1', 'Sampled=0');

describe('tracing', () => {
  it('loads nothing for invocations Lambda does not sample, nor where no trace header comes (the local stack, the tests)', async () => {
    const { load, client, invoke } = tracedFunction();
    await invoke(unsampled);
    await invoke(undefined);
    expect(load).not.toHaveBeenCalled();
    expect(tracedCalls(client)).toBe(false);
  });

  it('loads the Tracer once, on the first sampled invocation, and traces the clients built before and after', async () => {
    const { load, tracing, client, invoke } = tracedFunction();
    await invoke(unsampled);
    await invoke(sampled);
    await invoke(sampled);
    expect(load).toHaveBeenCalledTimes(1);
    expect(tracedCalls(client)).toBe(true);
    expect(tracedCalls(createSqsClient({ endpoint: 'http://127.0.0.1:9', instrument: tracing.instrument }))).toBe(true);
  });

  it('leaves the clients as they were when Powertools has tracing off (POWERTOOLS_TRACE_ENABLED=false)', async () => {
    vi.stubEnv('POWERTOOLS_TRACE_ENABLED', 'false');
    const { client, invoke } = tracedFunction();
    await invoke(sampled);
    expect(tracedCalls(client)).toBe(false);
  });
});
