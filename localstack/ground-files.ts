/**
 * Integration files the LocalStack suite leaves to `npm test`. Their subject is what a person
 * reads or clicks on the embedded default stack (moto, which `clause-review review` and `local
 * up` start): the CLI's review and its answered round, the reviewer app and the Word add-in in
 * Chromium. The AWS behaviour under them (uploads, queues, claims, holds, decisions, reports) is
 * each another file's subject, and those run on both grounds. Run beside the rest of the
 * LocalStack suite they were its four longest files after the deploy rehearsal (826 s of its
 * 4,062 s), on the same two cores as the timing-bound recovery and scale files.
 */
export const EMBEDDED_DEFAULT_ONLY: readonly string[] = [
  'test/integration/cli-review.test.ts',
  'test/integration/negotiation-cli.test.ts',
  'test/integration/reviewer-app.test.ts',
  'test/integration/word-addin.test.ts',
];
