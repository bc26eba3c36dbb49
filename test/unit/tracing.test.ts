import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDynamoClients } from '../../functions/adapters/dynamo/client';
import { createSqsClient } from '../../functions/adapters/sqs/sqs';
import { createTracer, traceClients } from '../../functions/platform/tracing';

afterEach(() => vi.unstubAllEnvs());

/** The X-Ray SDK's middleware on a client's stack: each call then becomes a subsegment. */
function tracedCalls(client: { middlewareStack: { identify(): string[] } }): boolean {
  return client.middlewareStack.identify().some((name) => /XRay/i.test(name));
}

function clients() {
  const instrument = traceClients(createTracer());
  const { client, doc } = createDynamoClients({ endpoint: 'http://127.0.0.1:9', instrument });
  return { dynamo: client, doc, sqs: createSqsClient({ endpoint: 'http://127.0.0.1:9', instrument }) };
}

describe('tracing', () => {
  it('traces every DynamoDB and SQS call in Lambda', () => {
    vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs24.x');
    expect(createTracer().isTracingEnabled()).toBe(true);
    const { dynamo, doc, sqs } = clients();
    expect([tracedCalls(dynamo), tracedCalls(doc), tracedCalls(sqs)]).toEqual([true, true, true]);
  });

  it('is off outside Lambda (the local stack, the tests), leaving the clients as they were', () => {
    vi.stubEnv('AWS_EXECUTION_ENV', '');
    expect(createTracer().isTracingEnabled()).toBe(false);
    const { dynamo, doc, sqs } = clients();
    expect([tracedCalls(dynamo), tracedCalls(doc), tracedCalls(sqs)]).toEqual([false, false, false]);
  });

  it('can be turned off in Lambda with POWERTOOLS_TRACE_ENABLED=false', () => {
    vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs24.x');
    vi.stubEnv('POWERTOOLS_TRACE_ENABLED', 'false');
    expect(createTracer().isTracingEnabled()).toBe(false);
  });
});
