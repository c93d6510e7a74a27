/**
 * A chunk marked dead without a lease holder (DLQ triage after its worker died, the sweeper at
 * a job's deadline) returns the allotment its last holder took, so the job ends with nothing
 * reserved and its spend counts what the holder may have spent. Found by the chaos soak (seed
 * 7, 300 jobs): a job finalized with 783,600 µ$ still reserved on a dead chunk.
 *
 * A chunk taken over from a dead holder on a job cancelled meanwhile returns that holder's
 * allotment as a takeover on the analyze path does. Found by the chaos soak (seed 42, 150 jobs,
 * concurrency 12): a chunk ended `cancelled-at-stage-1` at fence 2 still holding its dead
 * holder's 706,176 µ$ allotment, with 25 of that holder's intents in flight.
 */
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import { ANALYSTS } from '../../lambdas/core/analysts/index.js';
import { Allotments } from '../../lambdas/core/state/allotments.js';
import { CallLedger } from '../../lambdas/core/state/call-ledger.js';
import { Claims, type Lease, leaseOwner } from '../../lambdas/core/state/claims.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { StageRecovery } from '../../lambdas/core/state/stage-recovery.js';
import { processChunk, type WorkerDeps } from '../../lambdas/core/worker/process-chunk.js';
import { provisionTestStack } from '../helpers/local-aws.js';

const stack = await provisionTestStack('dead-chunk-allotment');
const db = stack.clients.documents;
const table = stack.resources.tableName;
const clock = { t: Date.UTC(2026, 10, 25, 12, 0, 0) };
const now = () => clock.t;
const jobs = new Jobs(db, table, now);
const claims = new Claims(db, table, now);
const recovery = new StageRecovery(db, table, now);
const allotments = new Allotments(db, table, now);
const ledger = new CallLedger(db, table, now);
const LEASE_MS = 8_000;

/** A running job of one chunk and `calls` planned calls. */
async function runningJob(jobId: string, calls: number): Promise<void> {
  await jobs.createIfAbsent({
    jobId,
    lane: 'batch',
    bucket: 'b',
    key: 'k',
    analysts: ANALYSTS.slice(0, calls).map((a) => a.id),
    ceilingMicros: 1_000_000,
    deadline: clock.t + 600_000,
  });
  await claims.createAll(jobId, 1);
  await jobs.recordPlan(jobId, {
    chunkCount: 1,
    clauseCount: 1,
    callsPlanned: calls,
    sha256: 'abc',
    bytes: 10,
    format: 'txt',
  });
}

/** A running job of one chunk whose analyze stage a worker holds with an allotment of 50,000 µ$. */
async function heldChunk(jobId: string): Promise<Lease> {
  await runningJob(jobId, 3);
  const claimed = await claims.claim(jobId, 0, 'analyze', 'worker-a', LEASE_MS);
  if (!claimed.won) throw new Error('claim lost');
  const { lease } = claimed;
  expect(
    await allotments.move(lease, { spent: 0, release: 0, take: 50_000 }, { ceilingMicros: 1_000_000 }),
  ).toEqual({ ok: true });
  // Three calls: one answered (cost 1,200), one in flight (reserved 4,000), one not started.
  const call = (analystId: string) => ({
    call: { jobId, chunk: 0, clauseId: 'c0001', analystId, idempotencyKey: `k-${analystId}` },
    owner: leaseOwner(lease),
    reservation: 4_000,
  });
  await ledger.writeIntents([call('a1'), call('a2')]);
  await ledger.settle(call('a1').call, leaseOwner(lease), {
    status: 'done',
    attempts: 1,
    inputTokens: 100,
    outputTokens: 50,
    cost: 1_200,
    result: '{}',
  });
  return lease;
}

async function money(jobId: string) {
  const job = await jobs.get(jobId);
  const [cp] = await claims.list(jobId);
  return {
    reserved: job.costReserved,
    spent: job.costSpent,
    committed: job.costCommitted,
    terminal: job.chunksTerminal,
    status: cp?.status,
    allotment: cp?.allotment,
    owner: cp?.allotmentOwner,
  };
}

describe('a chunk marked dead without its holder', () => {
  it('returns the dead holder’s allotment, counting its settled cost and its intents in flight as spent', async () => {
    await heldChunk('j-dead-letter');
    // The worker dies; its lease runs out; its message ends in the DLQ and triage marks the
    // chunk dead.
    clock.t += LEASE_MS + 1;
    expect(
      await recovery.markDead('j-dead-letter', 0, {
        reason: 'dead letter: infrastructure',
        errorClass: 'infrastructure',
      }),
    ).toBe('analyze');
    expect(await money('j-dead-letter')).toEqual({
      reserved: 0,
      spent: 1_200 + 4_000,
      committed: 1_200 + 4_000,
      terminal: 1,
      status: 'dead',
      allotment: 0,
      owner: undefined,
    });
  });

  it('returns a live holder’s allotment when the sweeper forces the chunk dead at the deadline, and the holder can move no more', async () => {
    const lease = await heldChunk('j-deadline');
    expect(
      await recovery.markDead(
        'j-deadline',
        0,
        { reason: 'deadline: job deadline passed', errorClass: 'infrastructure' },
        { force: true },
      ),
    ).toBe('analyze');
    expect(await money('j-deadline')).toMatchObject({
      reserved: 0,
      spent: 5_200,
      committed: 5_200,
      allotment: 0,
    });
    // The holder, still running, tries to hand back what it has: its lease is gone.
    await expect(
      allotments.move(lease, { spent: 1_200, release: 48_800, take: 0 }, { ceilingMicros: 1_000_000 }),
    ).rejects.toMatchObject({ name: 'LeaseLostError' });
    expect((await money('j-deadline')).reserved).toBe(0);
  });

  it('does not mark a chunk dead on a reading that missed an allotment taken since, by a holder whose claim ran out', async () => {
    const jobId = 'j-late-take';
    await runningJob(jobId, 1);
    const claimed = await claims.claim(jobId, 0, 'analyze', 'worker-slow', LEASE_MS);
    if (!claimed.won) throw new Error('claim lost');
    clock.t += LEASE_MS + 1;
    // Triage reads the checkpoint (no money on it, the claim run out) ...
    const reading = await claims.list(jobId);
    // ... then the slow holder, its claim not yet taken by anyone, takes an allotment ...
    expect(
      await allotments.move(
        claimed.lease,
        { spent: 0, release: 0, take: 30_000 },
        { ceilingMicros: 1_000_000 },
      ),
    ).toEqual({ ok: true });
    // ... and triage writes on what it read: refused, so the money is not stranded.
    const stale = new StageRecovery(db, table, now, { list: async () => reading });
    expect(
      await stale.markDead(jobId, 0, { reason: 'dead letter: infrastructure', errorClass: 'infrastructure' }),
    ).toBeUndefined();
    expect(await money(jobId)).toMatchObject({ reserved: 30_000, status: 'running', allotment: 30_000 });
    // Read afresh, the chunk is marked dead and the money returns.
    expect(
      await recovery.markDead(jobId, 0, {
        reason: 'dead letter: infrastructure',
        errorClass: 'infrastructure',
      }),
    ).toBe('analyze');
    expect(await money(jobId)).toMatchObject({ reserved: 0, spent: 0, status: 'dead', allotment: 0 });
  });

  it('leaves a chunk whose holder is alive to that holder, allotment and all', async () => {
    await heldChunk('j-held');
    expect(
      await recovery.markDead('j-held', 0, {
        reason: 'dead letter: duplicate',
        errorClass: 'infrastructure',
      }),
    ).toBeUndefined();
    expect(await money('j-held')).toMatchObject({ reserved: 50_000, status: 'running', allotment: 50_000 });
  });
});

describe('a chunk taken over from a dead holder, its job cancelled meanwhile', () => {
  /** Worker dependencies for one delivery; no model request is made on a cancelled job. */
  function workerDeps(workerId: string): WorkerDeps {
    return {
      db,
      sqs: stack.clients.sqs,
      bedrock: new BedrockRuntimeClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9' }),
      tableName: table,
      finalizeQueueUrl: stack.resources.queueUrls.finalize,
      workerId,
      leaseMs: LEASE_MS,
      callConcurrency: 4,
      modelTimeoutMs: 1_000,
      redeliveryBackoffSeconds: [1],
      now,
    };
  }

  it('returns the dead holder’s allotment, counting its intents in flight as spent, when it ends the chunk cancelled', async () => {
    const jobId = 'j-cancel-takeover';
    await heldChunk(jobId);
    // The holder dies with its allotment and an intent in flight; the job is cancelled; the
    // chunk's message comes back after the lease ran out and another worker takes it over.
    clock.t += LEASE_MS + 1;
    expect((await jobs.cancel(jobId)).cancelled).toBe(true);
    const queueUrl = stack.resources.queueUrls.batch;
    const body = JSON.stringify({
      v: 1,
      jobId,
      chunk: 0,
      lane: 'batch',
      clauses: [{ index: 0, id: 'c0001', start: 0, end: 4, text: 'text' }],
    });
    const disposition = await processChunk(
      { messageId: 'm-1', receiptHandle: 'gone', body, receiveCount: 2, queueUrl },
      workerDeps('worker-b'),
    );
    expect(disposition).toEqual({ action: 'ack', outcome: 'cancelled-at-stage-1' });
    const [cp] = await claims.list(jobId);
    expect(cp).toMatchObject({
      status: 'cancelled',
      fence: 2,
      attempts: 2,
      allotment: 0,
      spentAccounted: 1_200,
    });
    expect(cp?.allotmentOwner).toBeUndefined();
    // As a takeover on the analyze path counts it: the settled cost and the intent in flight
    // are spent, the rest of the allotment is the job's again.
    expect(await money(jobId)).toMatchObject({
      reserved: 0,
      spent: 1_200 + 4_000,
      committed: 1_200 + 4_000,
      terminal: 1,
      allotment: 0,
    });
  });
});
