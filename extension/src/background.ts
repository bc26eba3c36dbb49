import { startWorker } from './worker';

/** The shipped service worker: a send that has not answered in 20 s counts as unreachable and is retried. */
startWorker({ sendTimeoutMs: 20_000 });
