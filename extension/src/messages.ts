import type { Delivery, OutboxState } from './queue';
import type { SaveRequest } from './save-api';

/**
 * What the popup and the options page ask of the service worker. Only the worker changes the outbox,
 * so its sends never race one another.
 */
export type WorkerRequest =
  | { readonly type: 'save'; readonly request: SaveRequest }
  | { readonly type: 'outbox' }
  | { readonly type: 'retry-now' }
  | { readonly type: 'discard'; readonly id: string }
  /** The options were saved: a queue stopped by a refused token goes on. */
  | { readonly type: 'settings-saved' };

export interface WorkerAnswers {
  save: Delivery;
  outbox: OutboxState;
  'retry-now': Delivery[];
  discard: OutboxState;
  'settings-saved': Delivery[];
}

/** The worker's answer when handling a request failed: the popup and options page show its words. */
export interface WorkerFailure {
  readonly workerFailure: string;
}

export function workerFailure(message: string): WorkerFailure {
  return { workerFailure: message };
}

/** Sends a request to the worker; a failure inside the worker, or no answer at all, is thrown with its words. */
export async function askWorker<T extends WorkerRequest>(request: T): Promise<WorkerAnswers[T['type']]> {
  const answer = (await chrome.runtime.sendMessage(request)) as WorkerAnswers[T['type']] | WorkerFailure | undefined;
  if (answer === undefined) throw new Error('Gleaner’s background worker did not answer; try again.');
  if (typeof answer === 'object' && 'workerFailure' in answer) throw new Error(answer.workerFailure);
  return answer;
}
