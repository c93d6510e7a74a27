import { describe, expect, it } from 'vitest';
import { callNamedIn, classifyDeadLetter } from '../../../lambdas/core/dlq/index.js';
import type { Checkpoint } from '../../../lambdas/core/state/claims.js';
import type { Job } from '../../../lambdas/core/state/job.js';
import { decide, type SweepRules, sweepRules } from '../../../lambdas/core/sweeper/index.js';
import { topology } from '../../../lib/topology.js';

// A fake clock: every decision is taken at an explicit `now`.
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const MIN = 60_000;

const rules: SweepRules = {
  quietMs: { realtime: 10 * MIN, batch: 20 * MIN },
  finalizeQuietMs: 5 * MIN,
  maxReceiveCount: 3,
  maxSpacingFactor: 8,
};

function job(over: Partial<Job> = {}): Job {
  return {
    jobId: 'j-1',
    status: 'running',
    lane: 'realtime',
    bucket: 'b',
    key: 'k',
    analysts: [],
    chunkCount: 2,
    clauseCount: 4,
    callsPlanned: 44,
    chunksTerminal: 0,
    chunksDone: 0,
    ceilingMicros: 1,
    costCommitted: 0,
    costReserved: 0,
    costSpent: 0,
    createdAt: iso(T0),
    updatedAt: iso(T0),
    deadline: T0 + 360 * MIN,
    fanoutCompletedAt: iso(T0),
    ...over,
  };
}

function cp(chunk: number, stage: 'analyze' | 'consolidate', over: Partial<Checkpoint> = {}): Checkpoint {
  return { jobId: 'j-1', chunk, stage, status: 'pending', fence: 0, attempts: 0, ...over };
}

/** Both chunks finished except what `over` says about chunk 1's analyze stage. */
function checkpoints(analyze1: Partial<Checkpoint>): Checkpoint[] {
  return [
    cp(0, 'analyze', { status: 'done', finishedAt: iso(T0 + MIN) }),
    cp(0, 'consolidate', { status: 'done', finishedAt: iso(T0 + MIN) }),
    cp(1, 'analyze', analyze1),
    cp(1, 'consolidate'),
  ];
}

describe('sweeper rules: lost chunk messages', () => {
  it('derives the quiet period from visibility, lease, backoff and grace', () => {
    const r = sweepRules(topology({ redeliveryBackoffSeconds: [30, 120, 300] }), 120_000, 60_000);
    expect(r.quietMs.realtime).toBe((1800 + 300 + 60) * 1000);
    expect(r.quietMs.batch).toBe((300 + 300 + 60) * 1000);
    expect(r.finalizeQuietMs).toBe((720 + 60) * 1000);
    expect(r.maxReceiveCount).toBe(3);
  });

  it('leaves a never-claimed stage alone until the quiet period after fan-out has passed, then re-sends it', () => {
    const cps = checkpoints({});
    expect(decide(job(), cps, T0 + 10 * MIN, rules)).toEqual([]);
    const actions = decide(job(), cps, T0 + 10 * MIN + 1, rules);
    expect(actions).toHaveLength(1);
    expect(actions[0]).toMatchObject({ kind: 'resend', checkpoint: { chunk: 1, stage: 'analyze' } });
  });

  it('never re-sends a stage whose claim is still live', () => {
    const cps = checkpoints({
      status: 'running',
      claimedBy: 'w',
      claimExpiresAt: T0 + 100 * MIN,
      attempts: 1,
    });
    expect(decide(job(), cps, T0 + 99 * MIN, rules)).toEqual([]);
  });

  it('counts silence from the claim expiry of a dead worker, not from fan-out', () => {
    const expired = T0 + 30 * MIN;
    const cps = checkpoints({ status: 'running', claimedBy: 'w', claimExpiresAt: expired, attempts: 1 });
    expect(decide(job(), cps, expired + 10 * MIN, rules)).toEqual([]);
    expect(decide(job(), cps, expired + 10 * MIN + 1, rules)[0]).toMatchObject({ kind: 'resend' });
  });

  it('uses the batch lane quiet period for batch jobs', () => {
    const cps = checkpoints({});
    expect(decide(job({ lane: 'batch' }), cps, T0 + 15 * MIN, rules)).toEqual([]);
    expect(decide(job({ lane: 'batch' }), cps, T0 + 21 * MIN, rules)).toHaveLength(1);
  });

  it('spaces repeated re-sends out exponentially from the last one', () => {
    const swept = T0 + 20 * MIN;
    const once = checkpoints({ sweeps: 1, sweptAt: iso(swept) });
    expect(decide(job(), once, swept + 19 * MIN, rules)).toEqual([]);
    expect(decide(job(), once, swept + 20 * MIN + 1, rules)).toHaveLength(1);
    const many = checkpoints({ sweeps: 9, sweptAt: iso(swept) });
    expect(decide(job(), many, swept + 79 * MIN, rules)).toEqual([]);
    expect(decide(job(), many, swept + 80 * MIN + 1, rules)).toHaveLength(1);
  });

  it('leaves a stage whose current message has used up its receives to DLQ triage', () => {
    const cps = checkpoints({ status: 'retrying', attempts: 3, failedAt: iso(T0), errorClass: 'transient' });
    expect(decide(job(), cps, T0 + 100 * MIN, rules)).toEqual([]);
    const redriven = checkpoints({ status: 'retrying', attempts: 4, enqueuedAttempts: 3, failedAt: iso(T0) });
    expect(decide(job(), redriven, T0 + 100 * MIN, rules)).toHaveLength(1);
  });

  it('does nothing for a job still fanning out before its deadline', () => {
    expect(decide(job({ fanoutCompletedAt: undefined }), checkpoints({}), T0 + 100 * MIN, rules)).toEqual([]);
  });

  it('re-sends the chunks of a job started from the queue whose starter died before they were sent', () => {
    // Queued at T0, started at T0 + 50 min (the take moved it to running), its messages never sent:
    // no intake message is left to retry it, so the sweeper counts silence from the start.
    const started = job({ fanoutCompletedAt: undefined, queuedAt: iso(T0), updatedAt: iso(T0 + 50 * MIN) });
    const never = [cp(0, 'analyze'), cp(0, 'consolidate'), cp(1, 'analyze'), cp(1, 'consolidate')];
    expect(decide(started, never, T0 + 60 * MIN, rules)).toEqual([]);
    const actions = decide(started, never, T0 + 60 * MIN + 1, rules);
    expect(actions.map((a) => a.kind === 'resend' && [a.checkpoint.chunk, a.checkpoint.stage])).toEqual([
      [0, 'analyze'],
      [1, 'analyze'],
    ]);
  });

  it('re-sends the chunks of a job cancelled while queued whose cancel died before sending them', () => {
    // Workers end the chunks of a cancelled job without a call; nobody else sends them.
    const cancelled = job({
      status: 'cancelled',
      fanoutCompletedAt: undefined,
      queuedAt: iso(T0),
      cancelledAt: iso(T0 + 5 * MIN),
      updatedAt: iso(T0 + 5 * MIN),
    });
    const never = [cp(0, 'analyze'), cp(0, 'consolidate'), cp(1, 'analyze'), cp(1, 'consolidate')];
    expect(decide(cancelled, never, T0 + 15 * MIN, rules)).toEqual([]);
    expect(decide(cancelled, never, T0 + 15 * MIN + 1, rules)).toHaveLength(2);
  });

  it('does nothing for a finalized or terminal job', () => {
    expect(decide(job({ finalizedAt: iso(T0) }), checkpoints({}), T0 + 999 * MIN, rules)).toEqual([]);
    expect(decide(job({ status: 'completed' }), checkpoints({}), T0 + 999 * MIN, rules)).toEqual([]);
  });
});

describe('sweeper rules: finalize', () => {
  const terminal = job({ chunksTerminal: 2, chunksDone: 2 });

  it('finalizes a job whose chunks are all terminal but whose finalize was never enqueued', () => {
    expect(decide(terminal, [], T0, rules)).toEqual([{ kind: 'finalize' }]);
  });

  it('sends finalize again only after the finalize quiet period, once per period', () => {
    const claimed = { ...terminal, finalizeEnqueuedAt: iso(T0) };
    expect(decide(claimed, [], T0 + 5 * MIN, rules)).toEqual([]);
    expect(decide(claimed, [], T0 + 5 * MIN + 1, rules)).toEqual([{ kind: 'refinalize', seen: undefined }]);
    const resent = { ...claimed, finalizeResentAt: iso(T0 + 6 * MIN) };
    expect(decide(resent, [], T0 + 10 * MIN, rules)).toEqual([]);
    expect(decide(resent, [], T0 + 11 * MIN + 1, rules)).toEqual([
      { kind: 'refinalize', seen: iso(T0 + 6 * MIN) },
    ]);
  });
});

describe('sweeper rules: deadline', () => {
  it('expires every unfinished chunk of a job past its deadline, naming each, then finalizes', () => {
    const j = job({ chunkCount: 3, deadline: T0 + 60 * MIN });
    const cps = [
      ...checkpoints({ status: 'retrying', attempts: 2, lastError: 'ThrottlingException: slow down' }),
      cp(2, 'analyze', { status: 'done' }),
      cp(2, 'consolidate', { status: 'running', claimedBy: 'w', claimExpiresAt: T0 + 999 * MIN }),
    ];
    expect(decide(j, cps, T0 + 60 * MIN, rules).map((a) => a.kind)).not.toContain('expire');
    const actions = decide(j, cps, T0 + 60 * MIN + 1, rules);
    expect(actions.map((a) => a.kind)).toEqual(['expire', 'finalize']);
    const expire = actions[0];
    if (expire?.kind !== 'expire') throw new Error('expected expire');
    expect(expire.chunks.map((c) => c.chunk)).toEqual([1, 2]);
    expect(expire.reason).toContain(
      'chunk 1 (analyze retrying, 2 attempt(s), last error: ThrottlingException',
    );
    expect(expire.reason).toContain('chunk 2 (consolidate running');
  });
});

describe('dead-letter classification', () => {
  const running = job();
  it('sorts by the recorded class first, then the error text, then infrastructure', () => {
    const base = { role: 'realtime' as const, wellFormed: true, job: running };
    expect(
      classifyDeadLetter({ ...base, checkpoint: cp(1, 'analyze', { errorClass: 'validation' }) }),
    ).toMatchObject({ errorClass: 'validation', retryable: false });
    expect(
      classifyDeadLetter({ ...base, lastError: 'AccessDeniedException: no model access' }),
    ).toMatchObject({
      errorClass: 'logic',
      retryable: false,
    });
    expect(classifyDeadLetter({ ...base, lastError: 'ThrottlingException: too many' })).toMatchObject({
      errorClass: 'transient',
      retryable: true,
    });
    expect(classifyDeadLetter({ ...base, lastError: 'answer does not match the schema' }).errorClass).toBe(
      'validation',
    );
    expect(classifyDeadLetter({ ...base, checkpoint: cp(1, 'analyze', { attempts: 3 }) })).toMatchObject({
      errorClass: 'infrastructure',
      retryable: true,
    });
  });

  it('calls a body that is not a queue message validation, and a missing job logic', () => {
    expect(classifyDeadLetter({ role: 'batch', wellFormed: false }).errorClass).toBe('validation');
    expect(classifyDeadLetter({ role: 'finalize', wellFormed: true }).errorClass).toBe('logic');
  });

  it('reads the clause and analyst an error names', () => {
    expect(callNamedIn('3 call(s) out of tier-1 retries; first: c0012/liability-cap: Throttling')).toEqual({
      clauseId: 'c0012',
      analystId: 'liability-cap',
    });
    expect(callNamedIn('nothing')).toEqual({});
  });
});

describe('sweeper rules: holds', () => {
  const silent = checkpoints({ status: 'pending', attempts: 1 });

  it('leaves a paused job alone, past its quiet periods and its deadline alike', () => {
    const paused = job({ status: 'paused', pausedAt: iso(T0 + MIN) });
    expect(decide(paused, silent, T0 + 1000 * MIN, rules)).toEqual([]);
    // The same job running would have its chunk re-sent and, past the deadline, expired.
    expect(decide({ ...paused, status: 'running' }, silent, T0 + 1000 * MIN, rules)[0]?.kind).toBe('expire');
  });

  it('closes a review once its deadline passes, and not before', () => {
    const waiting = job({
      status: 'awaiting_review',
      chunksTerminal: 2,
      finalizeEnqueuedAt: iso(T0 + 2 * MIN),
      reviewStartedAt: iso(T0 + 2 * MIN),
      reviewDeadline: T0 + 60 * MIN,
    });
    expect(decide(waiting, silent, T0 + 59 * MIN, rules)).toEqual([]);
    expect(decide(waiting, silent, T0 + 61 * MIN, rules)).toEqual([
      { kind: 'review-expired', deadline: T0 + 60 * MIN },
    ]);
  });

  it('sends finalize again for a closed review whose finalize went missing', () => {
    const closed = job({
      status: 'awaiting_review',
      chunksTerminal: 2,
      finalizeEnqueuedAt: iso(T0 + 2 * MIN),
      reviewStartedAt: iso(T0 + 2 * MIN),
      reviewDeadline: T0 + 60 * MIN,
      reviewCompletedAt: iso(T0 + 10 * MIN),
    });
    expect(decide(closed, silent, T0 + 14 * MIN, rules)).toEqual([]);
    expect(decide(closed, silent, T0 + 16 * MIN, rules)).toEqual([{ kind: 'refinalize', seen: undefined }]);
    // Once reported, nothing.
    expect(decide({ ...closed, finalizedAt: iso(T0 + 11 * MIN) }, silent, T0 + 100 * MIN, rules)).toEqual([]);
  });

  it('counts a resume as a sign of life of the chunks it re-sent', () => {
    const resumed = checkpoints({ status: 'pending', attempts: 1, resumedAt: iso(T0 + 100 * MIN) });
    const running = job({ deadline: T0 + 1000 * MIN });
    expect(decide(running, resumed, T0 + 105 * MIN, rules)).toEqual([]);
    expect(decide(running, resumed, T0 + 111 * MIN, rules)[0]?.kind).toBe('resend');
  });
});
