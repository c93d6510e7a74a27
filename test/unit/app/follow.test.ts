import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppApi, FindingsView, JobView, ReportClause } from '../../../lambdas/app/api.js';
import { type FollowSteps, followJob } from '../../../lambdas/app/follow.js';

const clause = (id: string) => ({ id, findings: [] }) as unknown as ReportClause;

/**
 * A job that runs for `runningReads` readings and then finishes; its findings come a page of
 * one clause per reading while it runs, and one last page when it has ended.
 */
function fakeApi(runningReads: number, failFirst = 0) {
  let reads = 0;
  let pages = 0;
  const calls = { status: 0, findings: 0 };
  const api = {
    async status(): Promise<JobView> {
      calls.status++;
      if (failFirst-- > 0) throw new Error('network down');
      reads++;
      const finished = reads > runningReads;
      return { status: finished ? 'completed' : 'running', finished } as unknown as JobView;
    },
    async liveFindings() {
      calls.findings++;
      pages++;
      return {
        clauses: [clause(`c-${pages}`)],
        cursor: String(pages),
        more: false,
        ended: reads > runningReads,
      };
    },
    async gatedFindings(): Promise<FindingsView> {
      throw new Error('no review on this job');
    },
  };
  return { api: api as unknown as AppApi, calls };
}

function steps(overrides: Partial<FollowSteps> = {}) {
  const seen = { shown: 0, clauses: [] as string[], failed: 0 };
  const s: FollowSteps = {
    shown: () => void seen.shown++,
    clauses: (clauses) => void seen.clauses.push(...clauses.map((c) => c.id)),
    changes: () => {},
    review: () => {},
    failed: () => {
      seen.failed++;
      return true;
    },
    ...overrides,
  };
  return { s, seen };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('following a job from a page', () => {
  it('reads it until it has finished and its findings are all read, then stops reading', async () => {
    const { api, calls } = fakeApi(2);
    const { s, seen } = steps();
    followJob(api, 'j-1', s, 100);
    await vi.advanceTimersByTimeAsync(1000);
    expect(seen.shown).toBe(3);
    expect(seen.clauses).toEqual(['c-1', 'c-2', 'c-3']);
    expect(calls.status).toBe(3);
  });

  it('keeps reading while the page is not settled (a report still to offer)', async () => {
    const { api, calls } = fakeApi(0);
    let settledAfter = 3;
    const { s } = steps({ settled: () => --settledAfter <= 0 });
    followJob(api, 'j-1', s, 100);
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls.status).toBe(3);
  });

  it('reads again after a failed reading, twice as late, and stops when the page says so', async () => {
    const { api, calls } = fakeApi(0, 1);
    const { s, seen } = steps();
    followJob(api, 'j-1', s, 100);
    await vi.advanceTimersByTimeAsync(150);
    expect([seen.failed, calls.status]).toEqual([1, 1]);
    await vi.advanceTimersByTimeAsync(100);
    expect(calls.status).toBe(2);

    const ended = fakeApi(0, 5);
    followJob(ended.api, 'j-2', steps({ failed: () => false }).s, 100);
    await vi.advanceTimersByTimeAsync(1000);
    expect(ended.calls.status).toBe(1);
  });

  it('reads no more once stopped, and at once when asked again', async () => {
    const { api, calls } = fakeApi(100);
    const following = followJob(api, 'j-1', steps().s, 100);
    await vi.advanceTimersByTimeAsync(250);
    expect(calls.status).toBe(3);
    following.again();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.status).toBe(4);
    following.stop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls.status).toBe(4);
  });
});
