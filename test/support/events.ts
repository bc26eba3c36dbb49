import type { APIGatewayProxyEvent } from 'aws-lambda';
import { lambdaContext } from '../../local/queue';

/** A REST API proxy event for invoking a handler directly (the local stack builds these from HTTP). */
export function proxyEvent(overrides: Partial<APIGatewayProxyEvent> & { sourceIp?: string } = {}): APIGatewayProxyEvent {
  const { sourceIp = '203.0.113.7', ...rest } = overrides;
  return {
    resource: '/',
    path: '/',
    httpMethod: 'POST',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'test-request', identity: { sourceIp } } as APIGatewayProxyEvent['requestContext'],
    ...rest,
  };
}

export const context = () => lambdaContext('test');
