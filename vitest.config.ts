import path from 'node:path';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// Node 22 keeps the code it compiles of what the processes of a run load natively (aws-cdk-lib in
// each CDK worker, the functions' bundles in each thread of every service a test starts): the second
// load of each is not compiled again. A directory under node_modules/.cache, as build tools keep theirs.
process.env.NODE_COMPILE_CACHE ||= path.join(import.meta.dirname, 'node_modules', '.cache', 'node-compile');

import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that run for minutes (they stop and restart whole services, drive a browser through every
 * scene, or wait out a dependency's slowdown): they start first of the whole run, before any other
 * project's files, so that none of them starts late and runs on alone while the other workers sit
 * idle. The other files keep vitest's order: by their last run's duration when they have one, by
 * size otherwise (a clean clone has none, and these are not the largest files). Started after the
 * CDK files, as when each project's files kept together, the two-minute slowdown began 70 s into a
 * clean run.
 */
const longRunning = [
  'test/integration/writer-backoff.test.ts',
  'test/integration/local-stops.test.ts',
  'test/integration/local-stops-npm.test.ts',
  'test/e2e/console.test.ts',
  'test/integration/monitoring.test.ts',
];

class LongRunningFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const index = longRunning.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
      return index === -1 ? longRunning.length : index;
    };
    return (await super.sort(files))
      .map((spec, position) => ({ spec, position }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.position - b.position)
      .map(({ spec }) => spec);
  }
}

/**
 * Three kinds of project in one run, their files side by side in `maxWorkers` workers.
 *  - unit: in-process, no network; most behaviour is checked here, through the use cases' ports.
 *  - cdk: synthesises the default app once per run (test/cdk/app.ts shares it between workers through
 *    the directory test/support/cdk-setup.ts makes; files of one worker share the loaded CDK library),
 *    with hook and test timeouts that hold on a busy two-core machine.
 *  - integration: every file shares the one service global-setup starts (a file may start at most one
 *    more, for a fault it cannot inject otherwise); they mostly wait on it, so they overlap well.
 * Vitest's default on two cores is a single worker, which runs the files one after the other. The files
 * that take minutes start first (LongRunningFirst), the one that mostly waits (two minutes of a slow
 * table) before all. Four workers on two cores: with three, the machine sat half idle for two minutes
 * while that file and two others waited on their services (average use 89 %, 97 % with four); five
 * spent a fifth more CPU (640 against 536 CPU-s) and took longer (376 against 335 s).
 */
export default defineConfig({
  test: {
    maxWorkers: 4,
    sequence: { sequencer: LongRunningFirst },
    projects: [
      // A unit test runs in milliseconds on a quiet machine; the timeout holds on a loaded one. The unit
      // files of a worker share one process (no fresh one per file: that was 40 % of their CPU); they
      // set what they need themselves. The one file that must load the logger's runtime store anew
      // (it reads the process's concurrency once) runs in a process of its own.
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'console/test/**/*.test.ts'],
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
