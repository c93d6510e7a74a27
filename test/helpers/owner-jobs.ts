import type { Jobs } from '../../lambdas/core/state/jobs.js';

/** A job's plan as intake records it (two chunks of a four-clause contract), for tests of admission control. */
export const SMALL_PLAN = {
  chunkCount: 2,
  clauseCount: 4,
  callsPlanned: 44,
  sha256: 'ab',
  bytes: 10,
  format: 'txt' as const,
};

/**
 * Makes new jobs of an owner in status `intake`, as intake records them before their plan; the
 * ids start with `label` and are new in every run.
 *
 * @example
 * const newJob = ownerJobMaker(new Jobs(db, table), 'slots');
 * const jobId = await newJob('arn:aws:iam::000000000000:user/ann');
 */
export function ownerJobMaker(jobs: Jobs, label: string): (owner: string) => Promise<string> {
  const run = Date.now().toString(36);
  let n = 0;
  return async (owner) => {
    n++;
    const jobId = `j-${label}-${run}-${n}`;
    await jobs.createIfAbsent({
      jobId,
      owner,
      lane: 'realtime',
      bucket: 'b',
      key: `k${n}`,
      analysts: ['liability-counsel'],
      ceilingMicros: 1_000_000,
      deadline: Date.now() + 3_600_000,
    });
    return jobId;
  };
}
