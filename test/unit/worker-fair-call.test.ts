/**
 * A call waits for its model's permit as its job's owner: while another owner's calls fill the
 * line, a call of a second owner's job is granted the next free permit.
 */
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { MODEL_PRICES, PRIMARY_MODEL_ID } from '../../lambdas/core/models.js';
import { Allotments } from '../../lambdas/core/state/allotments.js';
import { CallLedger } from '../../lambdas/core/state/call-ledger.js';
import type { Lease } from '../../lambdas/core/state/claims.js';
import type { Job } from '../../lambdas/core/state/job.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { DEFAULT_BACKOFF } from '../../lambdas/core/worker/backoff.js';
import { firstInput, idempotencyKey, makeCall } from '../../lambdas/core/worker/call.js';
import { ChunkStop } from '../../lambdas/core/worker/chunk-stop.js';
import { JobGate } from '../../lambdas/core/worker/job-gate.js';
import { LimiterRegistry } from '../../lambdas/core/worker/limiter-registry.js';
import { Semaphore } from '../../lambdas/core/worker/semaphore.js';
import { type AnalyzeDeps, chunkCalls } from '../../lambdas/core/worker/stages/analyze.js';
import { clause, emptyAssessments, liability, NOW, oneCallJob, TABLE } from '../helpers/one-call-job.js';

const ddb = mockClient(DynamoDBDocumentClient);
const bedrock = mockClient(BedrockRuntimeClient);
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));

const job: Job = oneCallJob({ jobId: 'job-b1', owner: 'arn:aws:iam::123456789012:user/bea' });

beforeEach(() => {
  ddb.reset();
  bedrock.reset();
});

/** One call of `job` through the chunk's real budget, gate, intents and a limiter of `limit` permits. */
function oneCall(limit: number) {
  ddb.on(BatchWriteCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
  ddb.on(GetCommand).resolves({ Item: { status: 'running' } });
  bedrock.on(ConverseCommand).callsFake(emptyAssessments);
  const clock = () => NOW;
  const jobs = new Jobs(db, TABLE, clock);
  const limiters = new LimiterRegistry({ initial: limit, windowMs: 1e9 });
  const deps: AnalyzeDeps = {
    bedrock: new BedrockRuntimeClient({ region: 'us-east-1' }),
    ledger: new CallLedger(db, TABLE, clock),
    jobs,
    allotments: new Allotments(db, TABLE, clock),
    gate: new JobGate(() => jobs.gate(job.jobId), clock),
    semaphore: new Semaphore(4),
    lane: 'realtime',
    limiters,
    backoff: DEFAULT_BACKOFF,
    prices: MODEL_PRICES,
    modelTimeoutMs: 60_000,
    random: () => 0.5,
    sleep: async () => {},
    now: clock,
  };
  const lease: Lease = {
    jobId: job.jobId,
    chunk: 0,
    stage: 'analyze',
    workerId: 'worker-a',
    fence: 1,
    attempts: 1,
    expiresAt: NOW + 60_000,
  };
  const ref = {
    jobId: job.jobId,
    chunk: 0,
    clauseId: clause.id,
    analystId: liability.id,
    idempotencyKey: idempotencyKey(liability, clause),
  };
  const planned = [
    { ref, clause, analyst: liability, input: firstInput(liability, clause), prior: undefined },
  ];
  const chunk = chunkCalls(job, lease, planned, deps, new ChunkStop());
  return {
    chunk,
    limiter: limiters.for(PRIMARY_MODEL_ID),
    start: () => makeCall({ call: ref, index: 0, clause, analyst: liability, prior: undefined, chunk, deps }),
  };
}

/** Lets pending callbacks run until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}

describe('makeCall asks for its permit as its job and owner', () => {
  it("names the job's owner and id", () => {
    expect(oneCall(1).chunk.tenant).toEqual({ owner: job.owner, job: job.jobId });
  });

  it("is granted the next free permit ahead of another owner's waiting calls", async () => {
    const { limiter, start } = oneCall(1);
    // Another owner holds the one permit and has three more calls waiting.
    const held = await limiter.acquire('realtime', { owner: 'other', job: 'job-a1' });
    for (let i = 0; i < 3; i++) void limiter.acquire('realtime', { owner: 'other', job: 'job-a1' });
    const call = start();
    await until(() => limiter.waiting === 4);
    held.release();
    await expect(call).resolves.toMatchObject({ kind: 'done' });
    // The permit freed went to the call, then back to the other owner once the call ended.
    expect(limiter.waiting).toBe(2);
  });

  it('counts the permits its owner already holds for another job', async () => {
    const { limiter, start } = oneCall(2);
    const ownJob = await limiter.acquire('realtime', { owner: job.owner, job: 'job-b2' });
    const otherHeld = await limiter.acquire('realtime', { owner: 'other', job: 'job-a1' });
    const otherNext = limiter.acquire('realtime', { owner: 'other', job: 'job-a1' });
    const call = start();
    await until(() => limiter.waiting === 2);
    // Its owner holds one permit and the other owner, once it releases, none: the other goes.
    otherHeld.release();
    const granted = await otherNext;
    expect(limiter.waiting).toBe(1);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    ownJob.release();
    await expect(call).resolves.toMatchObject({ kind: 'done' });
    granted.release();
  });
});
