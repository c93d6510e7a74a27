import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { EMBEDDED_DEFAULT_ONLY } from './localstack/ground-files.js';
import LongestFirstSequencer from './test/helpers/longest-first-sequencer.js';

export default defineConfig({
  test: {
    pool: 'forks',
    // Two files per core (vitest's default is one fewer than the cores): the integration files
    // spend most of their time waiting on timers, leases and the emulator, so with one per core
    // the machine sat idle 38 % of the run; each worker has a moto server of its own
    // (test/helpers/global-setup.ts).
    maxWorkers: 2 * availableParallelism(),
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The slowest files and the sum of file times against the wall clock, after the usual report;
    // RECORD_FILE_TIMES=1 also records each file's time for the longest-first order.
    reporters: [
      'default',
      ['./test/helpers/file-times-reporter.ts', { record: !!process.env.RECORD_FILE_TIMES }],
    ],
    sequence: { sequencer: LongestFirstSequencer },
    // The SDK's notice that releases after January 2027 need Node 22 would repeat once per test file.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/infra/**/*.test.ts'],
          // These files share each worker's module cache: aws-cdk-lib, the SDK and the handlers
          // are loaded once per worker rather than once per file, which was most of their time.
          // They start no server and leave no state behind (client mocks are reset per suite).
          isolate: false,
          setupFiles: ['test/helpers/unit-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // The deploy rehearsal starts a LocalStack with CloudFormation of its own and runs with the
          // LocalStack suite (localstack/test-localstack.ts sets the variable), not with npm test;
          // the files whose subject is what a person reads on the embedded default stack run with
          // npm test only (the list and why: localstack/ground-files.ts).
          exclude: process.env.CLAUSE_REVIEW_LOCALSTACK_SUITE
            ? [...EMBEDDED_DEFAULT_ONLY]
            : ['test/integration/deploy-rehearsal.test.ts'],
          globalSetup: ['test/helpers/global-setup.ts'],
        },
      },
    ],
  },
});
