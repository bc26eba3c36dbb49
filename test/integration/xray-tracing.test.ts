import { execFile } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/platform/routes';
import { BUNDLE_ENTRY_FILE, bundleFunction } from '../../lib/function-bundle';
import { proxyEvent } from '../support/factories';
import { startTestStack, type TestStack } from '../support/local-stack';
import { repositoryRoot } from '../support/processes';

/**
 * What X-Ray shows of a save: the deployed bundle of the save function runs in a Lambda-like process
 * (test/support/lambda-sandbox.ts) against the local stack's DynamoDB Local and SQS, and sends its
 * segments to a stand-in X-Ray daemon (UDP, as the real one listens), which this test reads.
 */

interface SegmentDocument {
  readonly trace_id: string;
  readonly name: string;
  readonly namespace?: string;
  readonly annotations?: Record<string, unknown>;
  readonly aws?: { readonly operation?: string };
}

const saveRoute = routes.find((route) => route.id === 'SaveBookmark')!;
let stack: TestStack;
let token: string;
let daemon: Socket;
const documents: SegmentDocument[] = [];
const bundleDir = mkdtempSync(path.join(tmpdir(), 'gleaner-xray-'));

beforeAll(async () => {
  stack = await startTestStack();
  ({ token } = await stack.createUser());
  bundleFunction(saveRoute.entry, bundleDir);
  daemon = createSocket('udp4');
  // Each datagram is a header line, then one segment or subsegment document.
  daemon.on('message', (datagram) =>
    documents.push(JSON.parse(datagram.toString('utf8').split('\n')[1]!) as SegmentDocument),
  );
  daemon.bind(0, '127.0.0.1');
  await once(daemon, 'listening');
}, 60_000);

afterAll(async () => {
  daemon?.close();
  await stack?.stop();
  rmSync(bundleDir, { recursive: true, force: true });
});

const traceId = (n: number) => `1-67419b3c-${String(n).padStart(24, '0')}`;
const traceHeader = (n: number, sampled: boolean) =>
  `Root=${traceId(n)};Parent=53995c3f42cd8ad8;Sampled=${sampled ? 1 : 0}`;

/** Runs one execution environment through `invocations` (trace number, sampled) and returns its answers' statuses. */
async function runEnvironment(invocations: readonly [number, boolean][]): Promise<number[]> {
  const save = (n: number) =>
    proxyEvent({
      httpMethod: 'POST',
      resource: saveRoute.path,
      path: saveRoute.path,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ url: `https://example.com/traced/${n}`, title: `Traced ${n}` }),
    });
  const input = {
    bundle: path.join(bundleDir, BUNDLE_ENTRY_FILE),
    functionName: 'SaveBookmark',
    invocations: invocations.map(([n, sampled]) => ({ traceHeader: traceHeader(n, sampled), event: save(n) })),
  };
  // Not spawnSync: the local stack's SQS endpoint and the stand-in daemon live in this process.
  const run = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'test/support/lambda-sandbox.ts', JSON.stringify(input)],
    {
      cwd: repositoryRoot,
      timeout: 60_000,
      env: {
        PATH: process.env.PATH,
        ...stack.stack.env,
        LOG_LEVEL: 'SILENT',
        POWERTOOLS_METRICS_DISABLED: 'true',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        // What Lambda sets in a function's environment, X-Ray's daemon address here being the stand-in's.
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
        AWS_LAMBDA_FUNCTION_NAME: 'SaveBookmark',
        AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
        AWS_REGION: 'us-east-1',
        LAMBDA_TASK_ROOT: bundleDir,
        _HANDLER: 'index.handler',
        AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
        AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
      },
    },
  );
  expect(run.stderr).toBe('');
  // Datagrams on loopback arrive within moments of being sent.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return (JSON.parse(run.stdout) as { statusCode: number }[]).map((answer) => answer.statusCode);
}

const ofTrace = (n: number) => documents.filter((document) => document.trace_id === traceId(n));
const calls = (n: number) =>
  ofTrace(n)
    .filter((document) => document.namespace === 'aws')
    .map((document) => `${document.name} ${document.aws?.operation}`)
    .sort();
const handlerSubsegment = (n: number) => ofTrace(n).find((document) => document.name === '## index.handler');

describe('X-Ray tracing of a save, as deployed', () => {
  it('shows each sampled save with its DynamoDB and SQS calls; an unsampled one sends nothing', async () => {
    expect(
      await runEnvironment([
        [1, false],
        [2, true],
        [3, true],
      ]),
    ).toEqual([200, 200, 200]);

    expect(ofTrace(1)).toEqual([]);
    for (const n of [2, 3]) {
      expect(calls(n), `trace ${n}`).toEqual([
        'DynamoDB BatchGetItem',
        'DynamoDB TransactWriteItems',
        'DynamoDB UpdateItem',
        'SQS SendMessage',
      ]);
      expect(handlerSubsegment(n)?.annotations, `trace ${n}`).toMatchObject({ Service: 'gleaner', ColdStart: false });
    }
  }, 90_000);

  it("marks the cold start when the environment's first invocation is sampled", async () => {
    expect(
      await runEnvironment([
        [4, true],
        [5, true],
      ]),
    ).toEqual([200, 200]);

    expect(handlerSubsegment(4)?.annotations).toMatchObject({ ColdStart: true });
    expect(handlerSubsegment(5)?.annotations).toMatchObject({ ColdStart: false });
    expect(calls(4)).toContain('DynamoDB TransactWriteItems');
  }, 90_000);
});
