import { createHash, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, Context, SQSRecord } from 'aws-lambda';

/**
 * The values Lambda hands a function, built in the shapes AWS sends them: by the local stack for
 * every invocation, and by tests (test/support/factories.ts) that invoke a handler directly.
 */

/** The parts of a REST API proxy request that vary; the rest of the event is API Gateway's constant framing. */
export interface ProxyRequest {
  readonly httpMethod: string;
  readonly resource: string;
  readonly path: string;
  /** API Gateway's id of the route's resource (the local stack uses the route id). */
  readonly resourceId: string;
  readonly headers: Record<string, string>;
  readonly multiValueHeaders: Record<string, string[]>;
  readonly queryStringParameters: Record<string, string> | null;
  readonly multiValueQueryStringParameters: Record<string, string[]> | null;
  readonly pathParameters: Record<string, string> | null;
  readonly body: string | null;
  readonly isBase64Encoded: boolean;
  readonly sourceIp: string;
  readonly protocol: string;
}

export function restProxyEvent(request: ProxyRequest): APIGatewayProxyEvent {
  const header = (name: string) => Object.entries(request.headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return {
    resource: request.resource,
    path: request.path,
    httpMethod: request.httpMethod,
    headers: request.headers,
    multiValueHeaders: request.multiValueHeaders,
    queryStringParameters: request.queryStringParameters,
    multiValueQueryStringParameters: request.multiValueQueryStringParameters,
    pathParameters: request.pathParameters,
    stageVariables: null,
    body: request.body,
    isBase64Encoded: request.isBase64Encoded,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      domainName: header('host') ?? 'localhost',
      httpMethod: request.httpMethod,
      path: request.path,
      protocol: request.protocol,
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: request.resourceId,
      resourcePath: request.resource,
      stage: 'local',
      identity: {
        sourceIp: request.sourceIp,
        userAgent: header('user-agent') ?? null,
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        user: null,
        userArn: null,
      },
    },
  };
}

/** One received message, as the SQS event source hands it to a function. */
export interface ReceivedMessage {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
  readonly receiveCount: number;
  readonly sentAt: number;
  readonly firstReceivedAt: number;
  readonly queueArn: string;
}

export function sqsRecord(message: ReceivedMessage): SQSRecord {
  return {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentAt),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt),
    },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(message.body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: message.queueArn,
    awsRegion: message.queueArn.split(':')[3] ?? 'local',
  };
}

/** The Lambda context of one invocation, whose remaining time counts down from `timeoutMs`. */
export function lambdaContext(functionName: string, timeoutMs = 30_000): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
