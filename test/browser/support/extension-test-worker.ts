import { startWorker } from '../../../extension/src/worker';

/**
 * The service worker of the tests' build of the extension (`extensionTestBuild`): the shipped worker,
 * with the send timeout and shortest retry wait the test asks for, and a handle on it as `globalThis.gleanerWorker` for the
 * code paths of browser UI that automation cannot press (the keyboard command, the context menu).
 */
declare const GLEANER_TEST_SEND_TIMEOUT_MS: number;
declare const GLEANER_TEST_RETRY_BASE_MS: number;

Object.assign(globalThis, {
  gleanerWorker: startWorker({ sendTimeoutMs: GLEANER_TEST_SEND_TIMEOUT_MS, retryBaseMs: GLEANER_TEST_RETRY_BASE_MS }),
});
