/**
 * A call's resources come back on every exit: whichever way one call ends, the chunk's
 * reservations and the model's permits in use are what they were before it started.
 */
import {
  AccessDeniedException,
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
  ThrottlingException,
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
import { PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import type { Job } from '../../../lambdas/core/state/job.js';
import { DEFAULT_BACKOFF } from '../../../lambdas/core/worker/backoff.js';
import { makeCall } from '../../../lambdas/core/worker/call.js';
import type { CallResult } from '../../../lambdas/core/worker/call-types.js';
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
  NOW,
  oneCallJob,
} from '../../helpers/one-call-job.js';

const ddb = mockClient(DynamoDBDocumentClient);
const bedrock = mockClient(BedrockRuntimeClient);
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const meta = { $metadata: {} };

const job: Job = oneCallJob();

let clock = NOW;

/** The job as the gate reads it, and the model's answer to each request. */
interface Scenario {
  readonly gate?: Partial<Job>;
  readonly bedrock?: (n: number) => ConverseCommandOutput | Error;
  /** A lease that runs out before the call's permit comes. */
  readonly leaseEndsSoon?: boolean;
  /** Aborts the chunk's signal while the request is in flight (the lease was lost). */
  readonly loseLeaseInFlight?: boolean;
  /** The gate read fails (a network error): the call throws from half-way. */
  readonly gateFails?: boolean;
}

/** One call of a one-call chunk, through the chunk's real budget, gate, intents and limiter. */
async function oneCall(scenario: Scenario) {
  const stop = new ChunkStop();
  ddb.on(BatchWriteCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
  ddb.on(GetCommand).callsFake(() => {
    if (scenario.gateFails) throw new Error('socket hang up');
    return { Item: { status: 'running', ...scenario.gate } };
  });
  let requests = 0;
  bedrock.on(ConverseCommand).callsFake((input: ConverseCommandInput) => {
    requests++;
    if (scenario.loseLeaseInFlight) {
      stop.stop('lease-lost');
      throw Object.assign(new Error('Request aborted'), { name: 'AbortError' });
    }
    const r = scenario.bedrock ? scenario.bedrock(requests) : emptyAssessments(input);
    if (r instanceof Error) throw r;
    return r;
  });
  const limiters = new LimiterRegistry();
  const deps = analyzeDeps(db, job.jobId, {
    limiters,
    // Each backoff wait moves the clock on.
    sleep: async (ms) => {
      clock += ms;
    },
    now: () => clock,
  });
  const lease = firstLease(job.jobId, clock + (scenario.leaseEndsSoon ? 500 : 60_000));
  const planned = firstCall(job.jobId);
  const ref = planned.ref;
  const chunk = chunkCalls(job, lease, [planned], deps, stop);
  const limiter = limiters.for(PRIMARY_MODEL_ID);
  const before = { reserved: chunk.budget.reserved, permits: limiter.active };
  const run = makeCall({ call: ref, index: 0, clause, analyst: liability, prior: undefined, chunk, deps });
  const result: CallResult | Error = await run.catch((error: Error) => error);
  return {
    result,
    before,
    after: { reserved: chunk.budget.reserved, permits: limiter.active },
    stopped: stop.reason,
    requests,
  };
}

beforeEach(() => {
  ddb.reset();
  bedrock.reset();
  clock = NOW;
});

describe('makeCall gives back what a call holds on every exit', () => {
  it('at the ceiling, read when its permit came', async () => {
    const r = await oneCall({ gate: { budgetExceededAt: new Date(NOW).toISOString() } });
    expect(r.result).toMatchObject({ kind: 'unstarted', reason: 'budget' });
    expect(r.stopped).toBe('ceiling');
    expect(r.requests).toBe(0);
    expect(r.after).toEqual(r.before);
  });

  it('on a cancel, read when its permit came', async () => {
    const r = await oneCall({ gate: { status: 'cancelled' } });
    expect(r.result).toMatchObject({ kind: 'unstarted', reason: 'cancelled' });
    expect(r.stopped).toBe('cancelled');
    expect(r.after).toEqual(r.before);
  });

  it('on a pause, read when its permit came', async () => {
    const r = await oneCall({ gate: { status: 'paused' } });
    expect(r.result).toMatchObject({ kind: 'unstarted', reason: 'paused' });
    expect(r.stopped).toBe('paused');
    expect(r.after).toEqual(r.before);
  });

  it('when the lease is too near its end to start the request', async () => {
    const r = await oneCall({ leaseEndsSoon: true });
    expect(r.result).toMatchObject({ kind: 'lease-lost' });
    expect(r.stopped).toBe('lease-lost');
    expect(r.requests).toBe(0);
    expect(r.after).toEqual(r.before);
  });

  it('when the lease is lost with the request in flight', async () => {
    const r = await oneCall({ loseLeaseInFlight: true });
    expect(r.result).toMatchObject({ kind: 'lease-lost' });
    expect(r.requests).toBe(1);
    expect(r.after).toEqual(r.before);
  });

  it('after every attempt throttled, retries run out', async () => {
    const r = await oneCall({ bedrock: () => new ThrottlingException({ message: 'slow down', ...meta }) });
    expect(r.result).toMatchObject({ kind: 'exhausted' });
    expect(r.requests).toBe(DEFAULT_BACKOFF.maxRetries + 1);
    expect(r.after).toEqual(r.before);
  });

  it('on a model error', async () => {
    const r = await oneCall({ bedrock: () => new AccessDeniedException({ message: 'no access', ...meta }) });
    expect(r.result).toMatchObject({ kind: 'failed', failureKind: 'permanent' });
    expect(r.after).toEqual(r.before);
  });

  it('when a read fails half-way and the call throws', async () => {
    const r = await oneCall({ gateFails: true });
    expect(r.result).toBeInstanceOf(Error);
    expect(r.requests).toBe(0);
    expect(r.after).toEqual(r.before);
  });

  it('on an answer, whose reservation becomes its cost', async () => {
    const r = await oneCall({});
    expect(r.result).toMatchObject({ kind: 'done' });
    expect(r.after).toEqual(r.before);
  });
});
