import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: {
      // The AWS SDK warns on every client that Node 20 support ends in 2027; tests need no reminder.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // Metrics would print embedded-metric-format JSON; tests spy on them instead.
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
  },
});
