/**
 * The CLI tells an upload intake has not read yet from a job queued behind its owner's jobs, and
 * its progress line says why such a job waits.
 */
import { describe, expect, it } from 'vitest';
import { awaitsIntake, progressLine } from '../../../bin/commands/api-commands.js';
import type { JobView } from '../../../lambdas/api/jobs-api.js';

/** A job view with what the progress line reads. */
function view(status: JobView['status'], chunksTotal: number, callsScreened = 0): JobView {
  return {
    jobId: 'j-1',
    status,
    progress: { chunksTerminal: 0, chunksTotal, callsPlanned: chunksTotal * 88, callsScreened },
    cost: { spentUsd: 0, ceilingUsd: 20 },
  } as unknown as JobView;
}

describe('progressLine', () => {
  it('says a job queued behind its owner starts when one of its running jobs ends', () => {
    const line = progressLine(view('queued', 3));
    expect(line).toContain('· queued (its owner has as many jobs running as allowed');
    expect(line).toContain('0/3 chunks');
  });

  it('adds nothing to an upload intake has not read yet', () => {
    expect(progressLine(view('queued', 0))).toMatch(/· queued$/);
    expect(progressLine(view('running', 3))).toMatch(/· running$/);
  });

  it('says how many planned calls the relevance screen leaves out, when it leaves some', () => {
    expect(progressLine(view('running', 3, 100))).toContain('· 264 calls planned (100 screened) ·');
    expect(progressLine(view('running', 3))).toContain('· 264 calls planned ·');
  });
});

describe('awaitsIntake', () => {
  it('holds for an upload intake has not recorded or is reading, not for a job queued with its plan', () => {
    expect(awaitsIntake(view('queued', 0))).toBe(true);
    expect(awaitsIntake(view('intake', 0))).toBe(true);
    expect(awaitsIntake(view('queued', 3))).toBe(false);
    expect(awaitsIntake(view('running', 3))).toBe(false);
  });
});
