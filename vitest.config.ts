process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { defineConfig } from 'vitest/config';

/**
 * Three kinds of project in one run, their files side by side in `maxWorkers` workers.
 *  - unit: in-process, no network; most behaviour is checked here, through the use cases' ports.
 *  - cdk: synthesises the default app once per run (test/cdk/app.ts shares it between workers through
 *    the directory test/support/cdk-setup.ts makes; files of one worker share the loaded CDK library),
 *    with hook and test timeouts that hold on a busy two-core machine.
 *  - integration: every file shares the one service global-setup starts (a file may start at most one
 *    more, for a fault it cannot inject otherwise); they mostly wait on it, so they overlap well.
 * Vitest's default on two cores is a single worker, which runs the files one after the other.
 */
export default defineConfig({
  test: {
    maxWorkers: 3,
    projects: [
      // A unit test runs in milliseconds on a quiet machine; the timeout holds on a loaded one. The unit
      // files of a worker share one process (no fresh one per file: that was 40 % of their CPU); they
      // set what they need themselves. The one file that must load the logger's runtime store anew
      // (it reads the process's concurrency once) runs in a process of its own.
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: ['test/unit/invocation-context.test.ts'],
          isolate: false,
          testTimeout: 30_000,
        },
      },
      { test: { name: 'unit-fresh', include: ['test/unit/invocation-context.test.ts'], testTimeout: 30_000 } },
      {
        test: {
          name: 'cdk',
          include: ['test/cdk/**/*.test.ts'],
          globalSetup: ['test/support/cdk-setup.ts'],
          isolate: false,
          // The shared synthesis bundles every function and runs the policy checks.
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/service-ready.ts'],
          // Generous: a timeout only ends a test that is stuck; polls fail sooner, with what they saw.
          testTimeout: 180_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
