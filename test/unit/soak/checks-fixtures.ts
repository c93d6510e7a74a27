/** What the soak's check tests (checks.test.ts, owner-checks.test.ts) share: a job that kept every promise. */
import type { Job } from '../../../lambdas/core/state/job.js';

export const at = '2026-03-01T10:00:00.000Z';

export function job(over: Partial<Job> = {}): Job {
  return {
    jobId: 'j-1',
    status: 'completed',
    lane: 'realtime',
    bucket: 'b',
    key: 'k',
    analysts: ['a1', 'a2'],
    chunkCount: 1,
    clauseCount: 2,
    callsPlanned: 4,
    chunksTerminal: 1,
    chunksDone: 1,
    ceilingMicros: 1000,
    costCommitted: 400,
    costReserved: 0,
    costSpent: 400,
    createdAt: at,
    updatedAt: at,
    deadline: 0,
    finalizedAt: at,
    reportKey: 'reports/j-1/report.json',
    ...over,
  };
}
