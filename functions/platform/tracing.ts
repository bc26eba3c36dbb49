import { Tracer } from '@aws-lambda-powertools/tracer';
import { SERVICE_NAME } from './settings';

/**
 * X-Ray tracing (Powertools Tracer): each invocation a segment, each DynamoDB and SQS call a
 * subsegment. Powertools turns it on in Lambda only (AWS_EXECUTION_ENV; the stack turns on active
 * tracing), unless POWERTOOLS_TRACE_ENABLED=false. In the local stack and the tests, which have no
 * X-Ray daemon, it is off and does nothing.
 */
export function createTracer(): Tracer {
  return new Tracer({ serviceName: SERVICE_NAME });
}

/** What the client factories take to trace the calls of an AWS SDK client (Tracer.captureAWSv3Client). */
export type ClientInstrument = <Client>(client: Client) => Client;

export function traceClients(tracer: Tracer): ClientInstrument {
  return (client) => tracer.captureAWSv3Client(client);
}
