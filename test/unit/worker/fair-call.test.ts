/**
 * A call waits for its model's permit as its job's owner: while another owner's calls fill the
 * line, a call of a second owner's job is granted the next free permit. And an answered call
 * hands its permit on before its own bookkeeping, so a permit never waits on another call's
 * ledger write.
 */
import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
} from '@aws-sdk/client-bedrock-runtime';
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
import type { Clause } from '../../../lambdas/core/clause.js';
import { PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import type { Job } from '../../../lambdas/core/state/job.js';
import { makeCall } from '../../../lambdas/core/worker/call.js';
import { ChunkStop } from '../../../lambdas/core/worker/chunk-stop.js';
import { LimiterRegistry } from '../../../lambdas/core/worker/limiter-registry.js';
import { chunkCalls } from '../../../lambdas/core/worker/stages/chunk-calls.js';
import {
  analyzeDeps,
  clause,
  emptyAssessments,
  firstCall,
  firstLease,
  liability,
  oneCallJob,
} from '../../helpers/one-call-job.js';

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
  const limiters = new LimiterRegistry({ initial: limit, windowMs: 1e9 });
  const deps = analyzeDeps(db, job.jobId, { limiters });
  const planned = firstCall(job.jobId);
  const chunk = chunkCalls(job, firstLease(job.jobId), [planned], deps, new ChunkStop());
  return {
    chunk,
    limiter: limiters.for(PRIMARY_MODEL_ID),
    start: () =>
      makeCall({ call: planned.ref, index: 0, clause, analyst: liability, prior: undefined, chunk, deps }),
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

// An answered call hands its permit on before its own bookkeeping: the next call waiting for the
// permit sends its request before the answered one is checked and written to the ledger.
describe('makeCall hands its permit on', () => {
  it("sends the next call's request before the answered call is written", async () => {
    const job = oneCallJob({ clauseCount: 2, callsPlanned: 2 });
    const events: string[] = [];
    ddb.on(BatchWriteCommand).resolves({});
    ddb.on(TransactWriteCommand).resolves({});
    ddb.on(GetCommand).resolves({ Item: { status: 'running' } });
    ddb
      .on(UpdateCommand)
      .callsFake((input: { Key: { sk: string }; ExpressionAttributeValues: Record<string, unknown> }) => {
        if (input.ExpressionAttributeValues[':status'] === 'done')
          events.push(`written ${input.Key.sk.split('#')[2]}`);
        return {};
      });
    bedrock.on(ConverseCommand).callsFake(async (input: ConverseCommandInput) => {
      events.push(`sent ${/Clause id: (c\d+)/.exec(JSON.stringify(input.messages))?.[1]}`);
      // The model takes a moment, as it does.
      await new Promise((r) => setTimeout(r, 5));
      return emptyAssessments(input);
    });
    // One permit: the second call waits for the first call's answer.
    const limiters = new LimiterRegistry({ initial: 1, max: 1 });
    const deps = analyzeDeps(db, job.jobId, { limiters });
    const second: Clause = { ...clause, index: 1, id: 'c0002' };
    const planned = [firstCall(job.jobId), firstCall(job.jobId, second)];
    const chunk = chunkCalls(job, firstLease(job.jobId), planned, deps, new ChunkStop());
    const results = await Promise.all(
      planned.map((p, index) =>
        makeCall({ call: p.ref, index, clause: p.clause, analyst: liability, prior: undefined, chunk, deps }),
      ),
    );
    expect(results.map((r) => r.kind)).toEqual(['done', 'done']);
    expect(limiters.for(PRIMARY_MODEL_ID).stats().calls).toBe(2);
    expect(events).toEqual(['sent c0001', 'sent c0002', 'written c0001', 'written c0002']);
  });
});
