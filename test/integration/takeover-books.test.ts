/**
 * A chunk taken over after its holder stopped near the ceiling ends with its books whole: no
 * allotment left (above or below zero), no intent in flight, and the ledger's cost what the job
 * was told. Found by the chaos soak (seed 23, 150 jobs, owners capped at 4): a chunk ended `done`
 * at fence 3 with an allotment of -90 µ$ and eleven of its fence-2 holder's intents in flight.
 *
 * That holder, near the ceiling, gave its unused allotment back while a smaller call reserved
 * against the same money; the call was answered (90 µ$), the next give-back accounted it from an
 * allotment that no longer held it (-90), and the holder's lease ran out before it closed. The
 * takeover returned nothing, as it only settled allotments above zero, and ended the stage with
 * the holder's window of intents still in flight. Here the worker, the sweeper's re-send and the
 * next worker are driven step by step on the moto ground.
 */
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { selectAnalysts, withModels } from '../../lambdas/core/analysts/index.js';
import type { Clause } from '../../lambdas/core/clause.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { Allotments } from '../../lambdas/core/state/allotments.js';
import { CallLedger, type CallRef } from '../../lambdas/core/state/call-ledger.js';
import { chunkBooks } from '../../lambdas/core/state/chunk-books.js';
import { Claims, type Lease, leaseOwner } from '../../lambdas/core/state/claims.js';
import { isAllotmentOverdrawnError } from '../../lambdas/core/state/errors.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { checkpointSk, JOB_SK, jobPk } from '../../lambdas/core/state/keys.js';
import { StageRecovery } from '../../lambdas/core/state/stage-recovery.js';
import { takeOver } from '../../lambdas/core/state/takeover.js';
import { decide, sweepRules } from '../../lambdas/core/sweeper/rules.js';
import { idempotencyKey } from '../../lambdas/core/worker/call-key.js';
import { ChunkBudget } from '../../lambdas/core/worker/chunk-budget.js';
import { processChunk, type WorkerDeps } from '../../lambdas/core/worker/process-chunk.js';
import { topology } from '../../lib/topology.js';
import { provisionTestStack } from '../helpers/local-aws.js';

const stack = await provisionTestStack('takeover-books');
const db = stack.clients.documents;
const table = stack.resources.tableName;
const clock = { t: Date.UTC(2026, 11, 1, 19, 37, 21) };
const now = () => clock.t;
const jobs = new Jobs(db, table, now);
const claims = new Claims(db, table, now);
const allotments = new Allotments(db, table, now);
const ledger = new CallLedger(db, table, now);
const LEASE_MS = 8_000;
const LIMIT = 10_000;

const TEXT = 'The Supplier shall not be liable for any indirect or consequential damages.';
const clause: Clause = { index: 0, id: 'c0001', start: 0, end: TEXT.length, text: TEXT };
const ANALYST_IDS = ['liability-counsel', 'risk-transfer'];
const panel = withModels(selectAnalysts(ANALYST_IDS), {
  primary: PRIMARY_MODEL_ID,
  fallback: FALLBACK_MODEL_ID,
});
const message = (jobId: string) =>
  JSON.stringify({ v: 1, jobId, chunk: 0, lane: 'batch', clauses: [clause] });

/** A running job of two chunks, its ceiling 10,000 µ$; chunk 1's holder has 7,500 of it. */
async function nearlySpentJob(jobId: string): Promise<void> {
  await jobs.createIfAbsent({
    jobId,
    lane: 'batch',
    bucket: 'b',
    key: 'k',
    analysts: ANALYST_IDS,
    ceilingMicros: LIMIT,
    deadline: clock.t + 86_400_000,
  });
  await claims.createAll(jobId, 2);
  await jobs.recordPlan(jobId, {
    chunkCount: 2,
    clauseCount: 2,
    callsPlanned: 4,
    sha256: 'abc',
    bytes: 10,
    format: 'txt',
  });
  await jobs.markFannedOut(jobId);
  const other = await claims.claim(jobId, 1, 'analyze', 'worker-other', 86_400_000);
  if (!other.won) throw new Error('claim lost');
  await allotments.move(other.lease, { spent: 0, release: 0, take: 7_500 }, { ceilingMicros: LIMIT });
}

/** The chunk's two calls, as its holder's window of intents writes them. */
function calls(jobId: string): CallRef[] {
  return panel.map((a) => ({
    jobId,
    chunk: 0,
    clauseId: clause.id,
    analystId: a.id,
    idempotencyKey: idempotencyKey(a, clause),
  }));
}

/**
 * Worker A's run on chunk 0 until it stops for the ceiling: it holds 2,000 µ$ with nothing in
 * flight; one call asks for 3,000 (more than is free), so the 2,000 go back; while that write is
 * out, the other call asks for 1,500. Returns A's lease; A then dies without closing.
 */
async function holderStopsNearTheCeiling(jobId: string): Promise<Lease> {
  const claimed = await claims.claim(jobId, 0, 'analyze', 'worker-a', LEASE_MS);
  if (!claimed.won) throw new Error('claim lost');
  const { lease } = claimed;
  const owner = leaseOwner(lease);
  const [first, second] = calls(jobId) as [CallRef, CallRef];
  await ledger.writeIntents([first, second].map((call) => ({ call, owner, reservation: 3_000 })));
  let reachGiveBack = () => {};
  const atGiveBack = new Promise<void>((resolve) => (reachGiveBack = resolve));
  let letThrough = () => {};
  const gate = new Promise<void>((resolve) => (letThrough = resolve));
  const gated = {
    move: async (...args: Parameters<Allotments['move']>) => {
      const [, m] = args;
      if (m.release > 0 && m.take === 0 && m.spent === 0) {
        reachGiveBack();
        await gate;
      }
      return allotments.move(...args);
    },
  } as Allotments;
  const budget = new ChunkBudget({
    allotments: gated,
    lease,
    job: await jobs.get(jobId),
    markBudgetExceeded: () => jobs.markBudgetExceeded(jobId),
    callsLeft: () => 1,
    contendedWaitMs: 1_000,
    now,
    sleep: async (ms) => {
      clock.t += ms;
    },
    random: () => 0.5,
  });
  expect(await budget.reserve(2_000)).toEqual({ ok: true });
  budget.release(2_000);
  const big = budget.reserve(3_000);
  await atGiveBack;
  const small = budget.reserve(1_500);
  letThrough();
  if ((await small).ok) {
    // The call is sent and answered for 90 µ$, and settled in the ledger.
    budget.settle(1_500, 90);
    await ledger.settle(second, owner, {
      status: 'done',
      attempts: 1,
      inputTokens: 60,
      outputTokens: 5,
      cost: 90,
      result: '{}',
    });
  }
  expect(await big).toEqual({ ok: false, why: 'budget' });
  return lease;
}

function workerDeps(workerId: string): WorkerDeps {
  return {
    db,
    sqs: stack.clients.sqs,
    // The job's ceiling is recorded: no model request is made.
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

async function books(jobId: string) {
  const job = await jobs.get(jobId);
  const analyze = await claims.get(jobId, 0, 'analyze');
  const entries = await ledger.forChunk(jobId, 0);
  if (!analyze) throw new Error('no checkpoint');
  return {
    // What chunk 1's holder still has is the only money reserved.
    reservedByOthers: job.costReserved - 7_500,
    committed: job.costCommitted,
    spent: job.costSpent,
    allotment: analyze.allotment ?? 0,
    inFlight: [...entries.values()].filter((e) => e.status === 'in-flight').length,
    breaches: chunkBooks(analyze, entries.values()).map((b) => b.kind),
  };
}

describe('a chunk taken over after its holder stopped near the ceiling', () => {
  it('ends with no allotment, no intent in flight and its spend accounted, and the job under its ceiling', async () => {
    const jobId = 'j-seed-23';
    await nearlySpentJob(jobId);
    await holderStopsNearTheCeiling(jobId);
    expect((await books(jobId)).allotment).toBeGreaterThanOrEqual(0);

    // A dies. Its lease runs out; the sweeper, after the batch lane's quiet period, re-sends.
    const rules = sweepRules(topology(), LEASE_MS);
    clock.t += LEASE_MS + rules.quietMs.batch + 1;
    const job = await jobs.get(jobId);
    const checkpoints = await claims.list(jobId);
    const resends = decide(job, checkpoints, now(), rules).flatMap((a) => (a.kind === 'resend' ? [a] : []));
    expect(resends.map((a) => [a.checkpoint.chunk, a.checkpoint.stage])).toEqual([[0, 'analyze']]);
    const [resend] = resends;
    if (!resend) throw new Error('no re-send');
    expect(await new StageRecovery(db, table, now).recordResend(resend.checkpoint, 'sweep')).toBe(true);

    // Worker B takes the re-sent message over, finds the ceiling recorded and ends the chunk.
    const queueUrl = stack.resources.queueUrls.batch;
    const delivery = {
      messageId: 'm-2',
      receiptHandle: 'gone',
      body: message(jobId),
      receiveCount: 2,
      queueUrl,
    };
    expect(await processChunk(delivery, workerDeps('worker-b'))).toEqual({ action: 'ack', outcome: 'done' });

    const end = await books(jobId);
    expect(end).toMatchObject({ reservedByOthers: 0, allotment: 0, inFlight: 0, breaches: [] });
    expect(end.committed).toBeLessThanOrEqual(LIMIT);
    const stages = await claims.list(jobId);
    expect(stages.filter((c) => c.chunk === 0).map((c) => [c.stage, c.status, c.fence])).toEqual([
      ['analyze', 'done', 2],
      ['consolidate', 'done', 1],
    ]);
  });

  it('settles an allotment a holder left below zero, and ends the intents it left in flight', async () => {
    const jobId = 'j-overdrawn';
    await nearlySpentJob(jobId);
    const claimed = await claims.claim(jobId, 0, 'analyze', 'worker-a', LEASE_MS);
    if (!claimed.won) throw new Error('claim lost');
    const owner = leaseOwner(claimed.lease);
    const [first, second] = calls(jobId) as [CallRef, CallRef];
    await ledger.writeIntents([first, second].map((call) => ({ call, owner, reservation: 3_000 })));
    await ledger.settle(second, owner, {
      status: 'done',
      attempts: 1,
      inputTokens: 60,
      outputTokens: 5,
      cost: 90,
    });
    // However it came about, the holder's books left its allotment at -90, the 90 accounted.
    await db.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk: jobPk(jobId), sk: checkpointSk(0, 'analyze') },
        UpdateExpression: 'SET allotment = :a, allotmentOwner = :o, spentAccounted = :s',
        ExpressionAttributeValues: { ':a': -90, ':o': owner, ':s': 90 },
      }),
    );
    await db.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk: jobPk(jobId), sk: JOB_SK },
        UpdateExpression:
          'SET costReserved = costReserved - :n, costSpent = costSpent + :n, budgetExceededAt = :at',
        ExpressionAttributeValues: { ':n': 90, ':at': new Date(clock.t).toISOString() },
      }),
    );
    clock.t += LEASE_MS + 1;
    const queueUrl = stack.resources.queueUrls.batch;
    const delivery = {
      messageId: 'm-3',
      receiptHandle: 'gone',
      body: message(jobId),
      receiveCount: 2,
      queueUrl,
    };
    expect(await processChunk(delivery, workerDeps('worker-b'))).toEqual({ action: 'ack', outcome: 'done' });
    expect(await books(jobId)).toMatchObject({
      reservedByOthers: 0,
      allotment: 0,
      inFlight: 0,
      breaches: [],
    });
    // The intent A never settled is ended, its call to be made again by whoever runs it next,
    // and counted as an unanswered attempt: A may have been answered and billed for it.
    const entry = [...(await ledger.forChunk(jobId, 0)).values()].find(
      (e) => e.analystId === first.analystId,
    );
    expect(entry).toMatchObject({
      status: 'retryable',
      ownerFence: 'worker-b:2',
      retiredFrom: owner,
      unanswered: 1,
    });
  });
});

describe('a takeover of a chunk whose holder may still be answering', () => {
  /** Chunk 0 of a fresh job, claimed by A with 40,000 µ$ and two intents of 3,000 in flight. */
  async function heldByA(jobId: string): Promise<{ lease: Lease; owner: string; calls: CallRef[] }> {
    await nearlySpentJob(jobId);
    const claimed = await claims.claim(jobId, 0, 'analyze', 'worker-a', LEASE_MS);
    if (!claimed.won) throw new Error('claim lost');
    const owner = leaseOwner(claimed.lease);
    await allotments.move(claimed.lease, { spent: 0, release: 0, take: 2_000 }, { ceilingMicros: LIMIT });
    const refs = calls(jobId);
    await ledger.writeIntents(refs.map((call) => ({ call, owner, reservation: 900 })));
    return { lease: claimed.lease, owner, calls: refs };
  }

  async function claimB(jobId: string): Promise<Lease> {
    clock.t += LEASE_MS + 1;
    const b = await claims.claim(jobId, 0, 'analyze', 'worker-b', LEASE_MS);
    if (!b.won) throw new Error('claim lost');
    return b.lease;
  }

  it('counts an answer the gone holder recorded after the read at its cost, and no later answer at all', async () => {
    const jobId = 'j-late-answer';
    const a = await heldByA(jobId);
    const lease = await claimB(jobId);
    const read = await ledger.forChunk(jobId, 0);
    // A's first call is answered just after B read the ledger: A records it (its intent stands).
    const [first, second] = a.calls as [CallRef, CallRef];
    const answered = { status: 'done', attempts: 1, inputTokens: 50, outputTokens: 5, cost: 70 } as const;
    expect(await ledger.settle(first, a.owner, answered)).toBe(true);
    const cp = await claims.get(jobId, 0, 'analyze');
    if (!cp) throw new Error('no checkpoint');
    const { entries, counted } = await takeOver(ledger, allotments, lease, cp, read);
    // The recorded answer counts at its 70 µ$; the other intent, outcome unknown, at its 900.
    expect(counted).toEqual({ spent: 70 + 900, unknown: 900 });
    expect([...entries.values()].map((e) => [e.analystId, e.status])).toEqual([
      [first.analystId, 'done'],
      [second.analystId, 'retryable'],
    ]);
    // A's answer to the second call comes now: it can no longer be recorded.
    expect(await ledger.settle(second, a.owner, { ...answered, cost: 80 })).toBe(false);
    const job = await jobs.get(jobId);
    expect({ reserved: job.costReserved, spent: job.costSpent }).toEqual({ reserved: 7_500, spent: 970 });
    const after = await claims.get(jobId, 0, 'analyze');
    expect(after).toMatchObject({ allotment: 0, spentAccounted: 70, spentUnknown: 900 });
    expect(
      chunkBooks(after as NonNullable<typeof after>, (await ledger.forChunk(jobId, 0)).values()),
    ).toEqual([]);
  });

  it('leaves the intents it ended to the next takeover when it dies before settling the allotment', async () => {
    const jobId = 'j-takeover-dies';
    const a = await heldByA(jobId);
    const lease = await claimB(jobId);
    // B ends A's intents, then dies before its transaction settles A's allotment.
    await ledger.retire([...(await ledger.forChunk(jobId, 0)).values()], leaseOwner(lease), 'fenced off', {
      keepReservation: true,
    });
    clock.t += LEASE_MS + 1;
    const c = await claims.claim(jobId, 0, 'analyze', 'worker-c', LEASE_MS);
    if (!c.won) throw new Error('claim lost');
    const { counted } = await takeOver(
      ledger,
      allotments,
      c.lease,
      c.checkpoint,
      await ledger.forChunk(jobId, 0),
    );
    // A's two intents still count, at their reservations, against A's allotment.
    expect(counted).toEqual({ spent: 1_800, unknown: 1_800 });
    expect(a.owner).toBe('worker-a:1');
    const job = await jobs.get(jobId);
    expect({ reserved: job.costReserved, spent: job.costSpent }).toEqual({ reserved: 7_500, spent: 1_800 });
  });
});

describe('a move that would take an allotment below zero', () => {
  it('is refused by the checkpoint while the lease is held, as an overdraw, and changes nothing', async () => {
    const jobId = 'j-overdraw-refused';
    await nearlySpentJob(jobId);
    const claimed = await claims.claim(jobId, 0, 'analyze', 'worker-a', LEASE_MS);
    if (!claimed.won) throw new Error('claim lost');
    await allotments.move(claimed.lease, { spent: 0, release: 0, take: 300 }, { ceilingMicros: LIMIT });
    const error = await allotments
      .move(claimed.lease, { spent: 390, release: 0, take: 0 }, { ceilingMicros: LIMIT })
      .catch((e) => e);
    expect(isAllotmentOverdrawnError(error)).toBe(true);
    expect(error).toMatchObject({ held: 300, wanted: 390 });
    expect(await claims.get(jobId, 0, 'analyze')).toMatchObject({ allotment: 300 });
    expect((await jobs.get(jobId)).costReserved).toBe(7_800);
  });
});
