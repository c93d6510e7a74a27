import { describe, expect, it } from 'vitest';
import { isPaused } from '../../../lambdas/core/state/job.js';

describe('isPaused', () => {
  it('holds a paused job, and a queued one a resume left waiting for its owner’s slot', () => {
    expect(isPaused({ status: 'paused', pausedAt: '2026-11-26T10:00:00Z' })).toBe(true);
    expect(isPaused({ status: 'queued', pausedAt: '2026-11-26T10:00:00Z' })).toBe(true);
  });

  it('does not hold a job queued at intake, a running job or none', () => {
    expect(isPaused({ status: 'queued' })).toBe(false);
    expect(isPaused({ status: 'running' })).toBe(false);
    expect(isPaused({ status: 'cancelled', pausedAt: '2026-11-26T10:00:00Z' })).toBe(false);
    expect(isPaused(undefined)).toBe(false);
  });
});
