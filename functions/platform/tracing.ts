import { isRequestXRaySampled } from '@aws-lambda-powertools/commons/utils/env';
import type { MiddlewareObj, Request } from '@middy/core';
import type { startTracer, TraceOptions } from './tracer';

/** What the client factories take to trace the calls of an AWS SDK client. */
type ClientInstrument = <Client>(client: Client) => Client;

/**
 * X-Ray tracing with the Powertools Tracer: each sampled invocation a handler subsegment, each
 * DynamoDB and SQS call within it a subsegment of its own.
 *
 * The Tracer and the X-Ray SDK are loaded on the first invocation Lambda samples (`Sampled=1` in its
 * trace header), not at init: they weigh as much as a quarter of the SDK clients' init, an
 * unsampled invocation records nothing, and under load most invocations are not sampled (X-Ray's
 * default rule: the first request each second, then 5%). The clients built at init are instrumented
 * when the Tracer arrives. Powertools then decides as it always does: on in Lambda (the stack turns
 * on active tracing), off elsewhere and with POWERTOOLS_TRACE_ENABLED=false. The local stack and the
 * tests send no trace header, so there it never loads.
 */
export interface Tracing {
  /** Registers an SDK client: its calls are traced on sampled invocations. Returns the client. */
  readonly instrument: ClientInstrument;
  /** The handler's middleware (use it first): loads the Tracer when needed and traces each sampled invocation. */
  middleware(options?: TraceOptions): MiddlewareObj;
}

type StartedTracer = ReturnType<typeof startTracer>;

export function createTracing(
  load: () => Promise<{ startTracer: typeof startTracer }> = () => import('./tracer'),
): Tracing {
  const clients: unknown[] = [];
  let started: StartedTracer | undefined;
  let starting: Promise<StartedTracer> | undefined;
  let invocations = 0;

  const start = async (isFirstInvocation: boolean) => {
    const tracer = (await load()).startTracer(isFirstInvocation);
    for (const client of clients) tracer.traceClient(client);
    started = tracer;
    return tracer;
  };

  return {
    instrument: (client) => {
      clients.push(client);
      started?.traceClient(client);
      return client;
    },
    middleware(options = {}) {
      let handlerMiddleware: MiddlewareObj | undefined;
      const traced = new WeakSet<Request>();
      return {
        before: async (request) => {
          const isFirstInvocation = invocations++ === 0;
          if (!isRequestXRaySampled()) return;
          const tracer = started ?? (await (starting ??= start(isFirstInvocation)));
          handlerMiddleware ??= tracer.handlerMiddleware(options);
          traced.add(request);
          await handlerMiddleware.before?.(request);
        },
        after: async (request) => {
          if (traced.delete(request)) await handlerMiddleware!.after?.(request);
        },
        onError: async (request) => {
          if (traced.delete(request)) await handlerMiddleware!.onError?.(request);
        },
      };
    },
  };
}
