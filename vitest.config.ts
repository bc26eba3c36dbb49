import { defineConfig } from 'vitest/config';

/** Tests that talk to DynamoDB Local share one per run, started by the global setup. */
const withDynamoDbLocal = ['test/support/global-setup.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Conditions waited on (a save landing, a worker waking) get the time a busy 2-core machine needs.
    expect: { poll: { timeout: 10_000 } },
    env: {
      // The AWS SDK warns on every client that Node 20 support ends in 2027; tests need no reminder.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // Metrics would print embedded-metric-format JSON; tests spy on them instead.
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
    // Pure code, adapters with mocked clients and the CDK stack start no database: they run first, two
    // files at a time (groupOrder 0). The unit files also share one process and its loaded modules
    // (isolate: false): they hold no state between files, and a fresh process per file doubled their time.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          isolate: false,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'infra', include: ['test/infra/**/*.test.ts'], maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      // Then, one file at a time, what runs servers, DynamoDB Local, Chromium and child processes.
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/http/**/*.test.ts'],
          globalSetup: withDynamoDbLocal,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: withDynamoDbLocal,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
