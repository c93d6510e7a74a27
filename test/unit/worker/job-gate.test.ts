import { describe, expect, it } from 'vitest';
import { JobGate, type JobGateState, JobGates } from '../../../lambdas/core/worker/job-gate.js';

function controlledReads() {
  const reads: { startedAt: number; resolve: (v: JobGateState | undefined) => void }[] = [];
  let clock = 0;
  const read = () =>
    new Promise<JobGateState | undefined>((resolve) => {
      reads.push({ startedAt: clock, resolve });
    });
  return {
    reads,
    read,
    now: () => clock,
    tick: (ms: number) => {
      clock += ms;
    },
  };
}

const flush = () => new Promise((r) => setImmediate(r));
const running: JobGateState = { status: 'running' };

describe('JobGate', () => {
  it('gives each caller a reading that began after it asked', async () => {
    const r = controlledReads();
    const gate = new JobGate(r.read, r.now);
    const first = gate.check();
    r.tick(5);
    // Asked while the first read is in flight: that read began before it, so it waits for the next.
    const second = gate.check();
    const third = gate.check();
    expect(r.reads).toHaveLength(1);
    r.reads[0]?.resolve(running);
    expect(await first).toEqual({ job: running, checkedAt: 0 });
    await flush();
    expect(r.reads).toHaveLength(2);
    expect(r.reads[1]?.startedAt).toBe(5);
    r.reads[1]?.resolve({ status: 'cancelled' });
    expect(await second).toEqual({ job: { status: 'cancelled' }, checkedAt: 5 });
    // The callers that asked during one read share the next one.
    expect(await third).toEqual({ job: { status: 'cancelled' }, checkedAt: 5 });
    expect(r.reads).toHaveLength(2);
  });

  it('starts a fresh read for a caller that asks after the last one ended', async () => {
    const r = controlledReads();
    const gate = new JobGate(r.read, r.now);
    const a = gate.check();
    r.reads[0]?.resolve(running);
    await a;
    r.tick(10);
    const b = gate.check();
    expect(r.reads).toHaveLength(2);
    r.reads[1]?.resolve(running);
    expect((await b).checkedAt).toBe(10);
  });

  it('gives a caller the newest reading, else the read in flight, that began after it asked and not too long ago', async () => {
    const r = controlledReads();
    const gate = new JobGate(r.read, r.now);
    r.tick(10);
    const a = gate.check(); // began at 10
    r.reads[0]?.resolve(running);
    await a;
    // Answered, begun after the ask at 5 and not before 0: no read.
    expect(await gate.since(5, 0)).toEqual({ job: running, checkedAt: 10 });
    expect(r.reads).toHaveLength(1);
    r.tick(20);
    const out = gate.check(); // began at 30, in flight
    // The answered one is too old (before 25): the caller that asked at 20 takes the one in
    // flight, begun after its ask, rather than a read after it.
    const b = gate.since(20, 25);
    // One that asked at 30 or later may not: that read may have begun before it.
    const c = gate.since(30, 25);
    expect(r.reads).toHaveLength(2);
    r.reads[1]?.resolve({ status: 'cancelled' });
    expect(await out).toEqual({ job: { status: 'cancelled' }, checkedAt: 30 });
    expect(await b).toEqual({ job: { status: 'cancelled' }, checkedAt: 30 });
    await flush();
    expect(r.reads).toHaveLength(3);
    r.reads[2]?.resolve(running);
    expect((await c).checkedAt).toBe(30);
    expect(r.reads[2]?.startedAt).toBe(30);
  });

  it('passes a failed read on to its callers, and reads again for the next', async () => {
    let calls = 0;
    const gate = new JobGate(async () => {
      calls++;
      if (calls === 1) throw new Error('read failed');
      return running;
    });
    await expect(gate.check()).rejects.toThrow('read failed');
    expect((await gate.check()).job).toEqual(running);
  });
});

describe('JobGates', () => {
  it('keeps the newest answered reading, offered only to callers who asked before it began', async () => {
    const r = controlledReads();
    const gate = new JobGate(r.read, r.now);
    expect(gate.latest(0)).toBeUndefined();
    r.tick(10);
    const a = gate.check();
    r.reads[0]?.resolve(running);
    await a;
    expect(gate.latest(9)).toEqual({ job: running, checkedAt: 10 });
    // Begun in the same millisecond as the ask: it may have begun before it.
    expect(gate.latest(10)).toBeUndefined();
    expect(gate.latest(11)).toBeUndefined();
  });

  it('reads again and again while watched, and stops when the last watcher lets go', async () => {
    const r = controlledReads();
    const gate = new JobGate(r.read, r.now, 0);
    const stopA = gate.watch();
    const stopB = gate.watch();
    expect(r.reads).toHaveLength(1);
    r.reads[0]?.resolve(running);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(r.reads).toHaveLength(2);
    stopA();
    stopA(); // a second call changes nothing
    r.tick(3);
    r.reads[1]?.resolve({ status: 'cancelled' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(r.reads).toHaveLength(3);
    expect(gate.latest(-1)?.job).toEqual({ status: 'cancelled' });
    stopB();
    r.reads[2]?.resolve(running);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(r.reads).toHaveLength(3);
  });

  it('shares one gate among the chunks of a job and drops it when the last lets go', async () => {
    const asked: string[] = [];
    const gates = new JobGates(async (jobId) => {
      asked.push(jobId);
      return running;
    });
    const a = gates.acquire('job-1');
    const b = gates.acquire('job-1');
    const other = gates.acquire('job-2');
    expect(a.gate).toBe(b.gate);
    expect(other.gate).not.toBe(a.gate);
    a.release();
    a.release();
    expect(gates.acquire('job-1').gate).toBe(b.gate);
    b.release();
    await other.gate.check();
    expect(asked).toEqual(['job-2']);
  });

  it('makes a new gate once every holder has let go', () => {
    const gates = new JobGates(async () => running);
    const a = gates.acquire('job-1');
    a.release();
    expect(gates.acquire('job-1').gate).not.toBe(a.gate);
  });
});
