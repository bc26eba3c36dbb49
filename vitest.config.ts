import { defineConfig } from 'vitest/config';

/** Tests that talk to DynamoDB Local share one per run, started by the global setup. */
const withDynamoDbLocal = ['test/support/global-setup.ts'];

/**
 * Two files at a time, one per core, in every project: a file mostly waits (on DynamoDB Local, a
 * server, Chromium), so two keep both cores busy. Projects of one group must share a worker count.
 */
const twoAtATime = { maxWorkers: 2, sequence: { groupOrder: 0 } };

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
    projects: [
      // Pure code and adapters with mocked clients, and the CDK stack: each project's files share a
      // process and its loaded modules (isolate: false), as they hold no state between files; a fresh
      // process per file doubled the unit files' time, and loading the CDK took infra files 8 s each.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false, ...twoAtATime } },
      // A test that synthesizes a whole stack (seven templates since the route groups) takes a busy
      // 2-core machine past the default 30 s.
      {
        extends: true,
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          isolate: false,
          testTimeout: 120_000,
          ...twoAtATime,
        },
      },
      // Servers, DynamoDB Local, Chromium and child processes. Each file starts and stops its own
      // servers, so these files share a process too: its modules (the AWS SDK, the handlers,
      // playwright) load once per worker, not once per file.
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/http/**/*.test.ts'],
          globalSetup: withDynamoDbLocal,
          isolate: false,
          ...twoAtATime,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: withDynamoDbLocal,
          isolate: false,
          // One test walks a flow through many pages (sign-up to account deletion, an MCP client's
          // consent and every tool): the MCP one took 41 s at a load average of 21, past the 30 s default.
          testTimeout: 120_000,
          ...twoAtATime,
        },
      },
    ],
  },
});
