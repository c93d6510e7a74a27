/**
 * An answered call hands its permit on before anything else: the next call waiting for the
 * model's permit sends its request before the answered one is checked and written to the ledger,
 * so a permit never waits on another call's bookkeeping.
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
import { afterEach, expect, it } from 'vitest';
import type { Clause } from '../../lambdas/core/model.js';
import { MODEL_PRICES, PRIMARY_MODEL_ID } from '../../lambdas/core/models.js';
import { Allotments } from '../../lambdas/core/state/allotments.js';
import { CallLedger } from '../../lambdas/core/state/call-ledger.js';
import type { Lease } from '../../lambdas/core/state/claims.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { DEFAULT_BACKOFF } from '../../lambdas/core/worker/backoff.js';
import { firstInput, idempotencyKey, makeCall } from '../../lambdas/core/worker/call.js';
import { ChunkStop } from '../../lambdas/core/worker/chunk-stop.js';
import { JobGate } from '../../lambdas/core/worker/job-gate.js';
import { LimiterRegistry } from '../../lambdas/core/worker/limiter-registry.js';
import { Semaphore } from '../../lambdas/core/worker/semaphore.js';
import { type AnalyzeDeps, chunkCalls, type PlannedCall } from '../../lambdas/core/worker/stages/analyze.js';
import { clause, emptyAssessments, liability, NOW, oneCallJob, TABLE } from '../helpers/one-call-job.js';

const ddb = mockClient(DynamoDBDocumentClient);
const bedrock = mockClient(BedrockRuntimeClient);
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));

afterEach(() => {
  ddb.reset();
  bedrock.reset();
});

it("sends the next call's request before the answered call is written", async () => {
  const second: Clause = { ...clause, index: 1, id: 'c0002' };
  const job = oneCallJob({ clauseCount: 2, callsPlanned: 2 });
  const events: string[] = [];
  ddb.on(BatchWriteCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
  ddb.on(GetCommand).resolves({ Item: { status: 'running' } });
  ddb
    .on(UpdateCommand)
    .callsFake((input: { Key: { sk: string }; ExpressionAttributeValues: { ':status'?: string } }) => {
      const status = input.ExpressionAttributeValues[':status'];
      if (status === 'done') events.push(`written ${input.Key.sk.split('#')[2]}`);
      return {};
    });
  bedrock.on(ConverseCommand).callsFake(async (input: ConverseCommandInput) => {
    const id = /Clause id: (c\d+)/.exec(JSON.stringify(input.messages))?.[1];
    events.push(`sent ${id}`);
    // The model takes a moment, as it does.
    await new Promise((r) => setTimeout(r, 5));
    return emptyAssessments(input);
  });
  const jobs = new Jobs(db, TABLE, () => NOW);
  // One permit: the second call waits for the first call's answer.
  const limiters = new LimiterRegistry({ initial: 1, max: 1 });
  const deps: AnalyzeDeps = {
    bedrock: new BedrockRuntimeClient({ region: 'us-east-1' }),
    ledger: new CallLedger(db, TABLE, () => NOW),
    jobs,
    allotments: new Allotments(db, TABLE, () => NOW),
    gate: new JobGate(() => jobs.gate(job.jobId), Date.now),
    semaphore: new Semaphore(2),
    lane: 'realtime',
    limiters,
    backoff: DEFAULT_BACKOFF,
    prices: MODEL_PRICES,
    modelTimeoutMs: 60_000,
    random: () => 0.5,
    sleep: async () => {},
    now: () => NOW,
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
  const planned: PlannedCall[] = [clause, second].map((c) => ({
    ref: {
      jobId: job.jobId,
      chunk: 0,
      clauseId: c.id,
      analystId: liability.id,
      idempotencyKey: idempotencyKey(liability, c),
    },
    clause: c,
    analyst: liability,
    input: firstInput(liability, c),
    prior: undefined,
  }));
  const chunk = chunkCalls(job, lease, planned, deps, new ChunkStop());
  const results = await Promise.all(
    planned.map((p, index) =>
      makeCall({ call: p.ref, index, clause: p.clause, analyst: liability, prior: undefined, chunk, deps }),
    ),
  );
  expect(results.map((r) => r.kind)).toEqual(['done', 'done']);
  expect(limiters.for(PRIMARY_MODEL_ID).stats().calls).toBe(2);
  expect(events).toEqual(['sent c0001', 'sent c0002', 'written c0001', 'written c0002']);
});
