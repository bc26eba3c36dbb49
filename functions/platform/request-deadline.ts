import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from 'aws-lambda';
import { Deadline } from '../core/deadline';

/**
 * The deadline of the request being handled, for the retry loops deep in the adapters, which serve
 * many requests and so cannot hold one themselves. Outside a request (the CLI, scripts) there is none.
 */
const current = new AsyncLocalStorage<Deadline>();

/** Time kept back from the function's timeout to release claims, log and answer. */
export const ANSWER_MARGIN_MS = 1500;

export function requestDeadline(): Deadline {
  return current.getStore() ?? Deadline.none();
}

/** Runs `work` with a deadline `ANSWER_MARGIN_MS` before the invocation's own end. */
export function withInvocationDeadline<T>(
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  work: () => Promise<T>,
): Promise<T> {
  return current.run(Deadline.after(context.getRemainingTimeInMillis() - ANSWER_MARGIN_MS), work);
}
