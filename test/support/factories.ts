import type { APIGatewayProxyEvent, Context, SQSRecord } from 'aws-lambda';
import {
  lambdaContext,
  type ProxyRequest,
  sqsRecord as receivedRecord,
  restProxyEvent,
} from '../../local/lambda-runtime';

/**
 * The events and contexts tests hand to handlers they invoke directly, in the shapes the local stack
 * builds for every invocation (local/lambda-runtime.ts), with defaults a test overrides as it needs.
 */

/** A REST API proxy event: a POST to `/` from a documentation address unless overridden. */
export function proxyEvent(overrides: Partial<ProxyRequest> = {}): APIGatewayProxyEvent {
  const headers = overrides.headers ?? {};
  return restProxyEvent({
    httpMethod: 'POST',
    resource: '/',
    path: '/',
    resourceId: 'test',
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    body: null,
    isBase64Encoded: false,
    sourceIp: '203.0.113.7',
    protocol: 'HTTP/1.1',
    ...overrides,
    headers,
  });
}

/** An SQS record as the event source delivers it, on its first receive unless overridden. */
export function sqsRecord(
  overrides: Partial<Parameters<typeof receivedRecord>[0]> & { readonly body: string },
): SQSRecord {
  const messageId = overrides.messageId ?? 'message-1';
  return receivedRecord({
    messageId,
    receiptHandle: `receipt-${messageId}`,
    receiveCount: 1,
    sentAt: Date.parse('2026-06-01T12:00:00Z'),
    firstReceivedAt: Date.parse('2026-06-01T12:00:00Z'),
    queueArn: 'arn:aws:sqs:local:000000000000:test-queue',
    ...overrides,
  });
}

/** The Lambda context of a direct invocation (30 s unless a test needs a shorter budget). */
export function context(functionName = 'test', timeoutMs?: number): Context {
  return lambdaContext(functionName, timeoutMs);
}
