import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The deploy rehearsal starts a LocalStack with CloudFormation of its own and runs with the
    // LocalStack suite (localstack/test-localstack.ts sets the variable), not with npm test.
    exclude: process.env.CLAUSE_REVIEW_LOCALSTACK_SUITE ? [] : ['test/integration/deploy-rehearsal.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The SDK's notice that releases after January 2027 need Node 22 would repeat once per test file.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
