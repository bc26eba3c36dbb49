import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { SERVICE_NAME } from './settings';

/**
 * The Powertools Tracer and the X-Ray SDK under it: about 120 KiB that `tracing.ts` imports on the
 * first sampled invocation only (the bundling puts this module in a chunk of its own).
 */

export interface TraceOptions {
  /** Records each answer as trace metadata (off for answers that can be large: feeds, icons). @default true */
  readonly captureResponse?: boolean;
}

/** A Tracer loaded after the environment's first invocation knows it: its ColdStart annotation is then false. */
class LateTracer extends Tracer {
  constructor(isFirstInvocation: boolean) {
    super({ serviceName: SERVICE_NAME });
    if (!isFirstInvocation) this.coldStart = false;
  }
}

/** Starts tracing in an invocation: the first of its environment, or a later one. */
export function startTracer(isFirstInvocation: boolean) {
  const tracer = new LateTracer(isFirstInvocation);
  return {
    /** Traces each call of an AWS SDK client as a subsegment (X-Ray's middleware on its stack). */
    traceClient: (client: unknown) => tracer.captureAWSv3Client(client as Parameters<Tracer['captureAWSv3Client']>[0]),
    /** Opens the handler's subsegment before an invocation and closes it after, with the ColdStart and Service annotations. */
    handlerMiddleware: (options: TraceOptions) => captureLambdaHandler(tracer, options),
  };
}
