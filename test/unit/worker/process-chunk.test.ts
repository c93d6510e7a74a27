import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
  ServiceUnavailableException,
} from '@aws-sdk/client-bedrock-runtime';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Clause } from '../../../lambdas/core/model.js';
import { PRIMARY_MODEL_ID } from '../../../lambdas/core/models.js';
import type { Checkpoint } from '../../../lambdas/core/state/claims.js';
import type { Job } from '../../../lambdas/core/state/job.js';
import { DEFAULT_BACKOFF } from '../../../lambdas/core/worker/backoff.js';
import { LimiterRegistry } from '../../../lambdas/core/worker/limiter-registry.js';
import {
  type Delivery,
  processChunk,
  redeliveryDelay,
  type WorkerDeps,
} from '../../../lambdas/core/worker/process-chunk.js';
import { oneCallJob } from '../../helpers/one-call-job.js';
import { conditionFailed } from '../../helpers/refusals.js';

const TABLE = 'state-table';
const FINALIZE_URL = 'http://sqs/finalize';
const QUEUE_URL = 'http://sqs/chunks-realtime';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const LEASE_MS = 30_000;
const SCHEDULE = [30, 120, 300];
const FENCED = 'claimedBy = :me AND fence = :fence';
/** Fencing tokens the claims of the two stages return. */
const FENCE = { analyze: 6, consolidate: 2 } as const;

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const bedrock = mockClient(BedrockRuntimeClient);
const clients = {
  db: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
  sqs: new SQSClient({ region: 'us-east-1' }),
  bedrock: new BedrockRuntimeClient({ region: 'us-east-1' }),
};

const TEXT = 'The Supplier shall not be liable for any indirect or consequential damages.';
const clause: Clause = { index: 0, id: 'c0001', start: 0, end: TEXT.length, text: TEXT };

const baseJob: Job = oneCallJob({ chunkCount: 4, clauseCount: 4, callsPlanned: 4 });

function delivery(overrides: Partial<Delivery> = {}): Delivery {
  return {
    messageId: 'msg-1',
    receiptHandle: 'rh-1',
    body: JSON.stringify({ v: 1, jobId: 'job-1', chunk: 3, lane: 'realtime', clauses: [clause] }),
    receiveCount: 1,
    queueUrl: QUEUE_URL,
    ...overrides,
  };
}

function deps(overrides: Partial<WorkerDeps> = {}): WorkerDeps {
  return {
    ...clients,
    tableName: TABLE,
    finalizeQueueUrl: FINALIZE_URL,
    workerId: 'worker-a',
    leaseMs: LEASE_MS,
    callConcurrency: 4,
    modelTimeoutMs: 600_000,
    redeliveryBackoffSeconds: SCHEDULE,
    random: () => 0.5,
    sleep: async () => {},
    now: () => NOW,
    ...overrides,
  };
}

function validAnswer(): ConverseCommandOutput {
  return {
    $metadata: { httpStatusCode: 200 },
    output: {
      message: {
        role: 'assistant',
        content: [
          {
            toolUse: {
              toolUseId: 'tooluse_1',
              name: 'record_assessment',
              input: {
                assessments: {
                  liability: {
                    score: 1,
                    findings: [{ quote: 'shall not be liable', rationale: 'Excludes indirect damages.' }],
                  },
                },
                summary: 'Indirect damages are excluded.',
              },
            },
          },
        ],
      },
    },
    stopReason: 'tool_use',
    usage: { inputTokens: 900, outputTokens: 120, totalTokens: 1020 },
    metrics: { latencyMs: 5 },
  };
}

interface Scenario {
  /** The job item; `null`: no such job. */
  readonly job?: Partial<Job> | null;
  /** Claim outcome per stage: win (default), or lose to the given checkpoint. */
  readonly lose?: Partial<Record<'analyze' | 'consolidate', Partial<Checkpoint>>>;
  /** Every checkpoint of the job, for the terminal check of a lost claim. */
  readonly checkpoints?: Partial<Checkpoint>[];
  /** Ledger entries of the chunk. */
  readonly ledger?: Record<string, unknown>[];
  /** This chunk's completion makes the job's count whole. */
  readonly lastChunk?: boolean;
  readonly heartbeat?: () => Error | undefined;
  /** Outcome of recording the call counts between heartbeats (`Claims.recordCounts`). */
  readonly recordCounts?: () => Error | undefined;
  readonly completeStage?: () => Error | undefined;
  /** Outcome of releasing a stage back to SQS (`Claims.release`). */
  readonly release?: () => Error | undefined;
  readonly bedrock?: (
    input: ConverseCommandInput,
  ) => ConverseCommandOutput | Error | Promise<ConverseCommandOutput>;
}

function arrange(scenario: Scenario = {}) {
  let chunkFinished = false;
  const job = () =>
    scenario.job === null
      ? undefined
      : {
          ...baseJob,
          ...scenario.job,
          ...(scenario.lastChunk && chunkFinished ? { chunksTerminal: baseJob.chunkCount } : {}),
        };
  ddb.on(GetCommand).callsFake((input) => {
    if (input.Key.sk === 'JOB') return { Item: job() };
    const stage = String(input.Key.sk).endsWith('analyze') ? 'analyze' : 'consolidate';
    return { Item: { jobId: 'job-1', chunk: 3, stage, fence: 1, attempts: 1, ...scenario.lose?.[stage] } };
  });
  ddb.on(QueryCommand).callsFake((input) => {
    const values = input.ExpressionAttributeValues ?? {};
    if (values[':sk'] === 'JOB') return { Items: [job()] };
    if (values[':prefix'] === 'CHUNK#') return { Items: scenario.checkpoints ?? [] };
    return { Items: scenario.ledger ?? [] };
  });
  ddb.on(UpdateCommand).callsFake((input: UpdateCommandInput) => {
    const expression = input.UpdateExpression ?? '';
    if (expression.startsWith('SET claimedBy = :me')) {
      const stage = String(input.Key?.sk).endsWith('analyze') ? 'analyze' : 'consolidate';
      const lost = scenario.lose?.[stage];
      if (lost) throw conditionFailed({ jobId: 'job-1', chunk: 3, stage, fence: 1, attempts: 1, ...lost });
      return { Attributes: { status: 'running', fence: FENCE[stage], attempts: 1 } };
    }
    const failure = expression.startsWith('SET claimExpiresAt = :exp')
      ? scenario.heartbeat?.()
      : expression === 'SET calls = :calls'
        ? scenario.recordCounts?.()
        : expression.includes('calls = :calls')
          ? scenario.completeStage?.()
          : expression.includes('#status = :retrying')
            ? scenario.release?.()
            : undefined;
    if (failure) throw failure;
    return {};
  });
  ddb.on(TransactWriteCommand).callsFake((input: TransactWriteCommandInput) => {
    if (input.TransactItems?.some((item) => item.Update?.UpdateExpression?.includes('chunksTerminal'))) {
      chunkFinished = true;
    }
    return {};
  });
  ddb.on(BatchWriteCommand).resolves({});
  sqs.on(ChangeMessageVisibilityCommand).resolves({});
  sqs.on(SendMessageCommand).resolves({});
  bedrock.on(ConverseCommand).callsFake(async (input: ConverseCommandInput) => {
    const result = scenario.bedrock ? await scenario.bedrock(input) : validAnswer();
    if (result instanceof Error) throw result;
    return result;
  });
}

function updates(match: (expression: string) => boolean) {
  return ddb
    .commandCalls(UpdateCommand)
    .map((c) => c.args[0].input)
    .filter((input) => match(input.UpdateExpression ?? ''));
}

const claimsSent = () => updates((e) => e.startsWith('SET claimedBy = :me'));
const heartbeatsSent = () => updates((e) => e.startsWith('SET claimExpiresAt = :exp'));
const countsRecorded = () => updates((e) => e === 'SET calls = :calls');
const stageCompletions = () => updates((e) => e.includes('#status = :done'));
const releases = () => updates((e) => e.includes('#status = :retrying'));
const finalizeClaims = () => updates((e) => e === 'SET finalizeEnqueuedAt = :at');
const visibilityChanges = () => sqs.commandCalls(ChangeMessageVisibilityCommand).map((c) => c.args[0].input);
const finalizeMessages = () => sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);

/** The checkpoint writes of the chunk-finishing transactions. */
function chunkFinishes() {
  return ddb
    .commandCalls(TransactWriteCommand)
    .map((c) => c.args[0].input)
    .filter((tx) =>
      tx.TransactItems?.some((item) => item.Update?.UpdateExpression?.includes('chunksTerminal')),
    )
    .map((tx) => tx.TransactItems?.[0]?.Update);
}

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  bedrock.reset();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('redeliveryDelay', () => {
  it('backs off by receive count: 30 s after the first, 2 min after the second, 5 min after that', () => {
    expect([1, 2, 3, 4, 10].map((n) => redeliveryDelay(n, SCHEDULE))).toEqual([30, 120, 300, 300, 300]);
  });

  it('treats a missing or zero receive count as the first', () => {
    expect(redeliveryDelay(0, SCHEDULE)).toBe(30);
  });

  it('gives no delay with an empty schedule', () => {
    expect(redeliveryDelay(2, [])).toBe(0);
  });
});

describe('processChunk: before claiming', () => {
  it('leaves a malformed message for the DLQ, touching nothing', async () => {
    arrange();
    const body = JSON.stringify({ v: 2, jobId: 'job-1', chunk: 3, lane: 'realtime', clauses: [clause] });
    const disposition = await processChunk(delivery({ body }), deps());
    expect(disposition.action).toBe('retry');
    expect(disposition).not.toHaveProperty('visibilitySeconds');
    expect(disposition.action === 'retry' && disposition.reason).toMatch(/^malformed chunk message: /);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('leaves a body that is not JSON for the DLQ too, rather than throwing', async () => {
    arrange();
    const disposition = await processChunk(delivery({ body: '{"v":1,"jobId":' }), deps());
    expect(disposition).toEqual({
      action: 'retry',
      reason: expect.stringMatching(/^malformed chunk message: not JSON \(.+\)$/),
    });
    expect(disposition.action === 'retry' && disposition.reason).toContain('JSON');
    expect(ddb.calls()).toHaveLength(0);
    expect(sqs.calls()).toHaveLength(0);
  });

  it('explains a JSON body that is not a chunk message by its first schema issue', async () => {
    arrange();
    const disposition = await processChunk(delivery({ body: '[]' }), deps());
    expect(disposition.action === 'retry' && disposition.reason).toMatch(/^malformed chunk message: /);
    expect(disposition.action === 'retry' && disposition.reason).not.toContain('not JSON');
  });

  it('retries a chunk whose job it cannot find', async () => {
    arrange({ job: null });
    expect(await processChunk(delivery(), deps())).toEqual({
      action: 'retry',
      reason: 'job job-1 not found',
    });
    expect(claimsSent()).toHaveLength(0);
  });

  it('acknowledges without claiming when the job has already ended', async () => {
    arrange({ job: { status: 'completed' } });
    expect(await processChunk(delivery(), deps())).toEqual({
      action: 'ack',
      outcome: 'job already completed',
    });
    expect(claimsSent()).toHaveLength(0);
  });
});

describe('processChunk: a lost claim', () => {
  it('leaves a chunk another worker holds alone, coming back when that lease would run out', async () => {
    arrange({
      lose: { analyze: { status: 'running', claimedBy: 'worker-b', claimExpiresAt: NOW + 42_300 } },
      checkpoints: [{ chunk: 3, stage: 'analyze', status: 'running' }],
    });
    expect(await processChunk(delivery(), deps())).toEqual({
      action: 'retry',
      reason: 'claimed by another worker',
      visibilitySeconds: 43 + 5,
    });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(sqs.commandCalls(DeleteMessageCommand)).toHaveLength(0);
  });

  it('acknowledges a duplicate of a chunk that is already terminal', async () => {
    arrange({
      lose: { analyze: { status: 'cancelled' } },
      checkpoints: [
        { chunk: 3, stage: 'analyze', status: 'cancelled' },
        { chunk: 4, stage: 'analyze', status: 'running' },
      ],
    });
    expect(await processChunk(delivery(), deps())).toEqual({
      action: 'ack',
      outcome: 'chunk already terminal',
    });
  });

  it('does not count another chunk being terminal', async () => {
    arrange({
      lose: { analyze: { status: 'running', claimedBy: 'worker-b', claimExpiresAt: NOW + 1000 } },
      checkpoints: [
        { chunk: 2, stage: 'analyze', status: 'dead' },
        { chunk: 3, stage: 'analyze', status: 'running' },
      ],
    });
    const disposition = await processChunk(delivery(), deps());
    expect(disposition).toMatchObject({ action: 'retry', visibilitySeconds: 6 });
  });

  it('goes on to consolidate without calling Bedrock when analyze is already done', async () => {
    arrange({
      lose: { analyze: { status: 'done' } },
      ledger: [
        {
          sk: 'CALL#0003#c0001#liability-counsel',
          status: 'done',
          result: JSON.stringify({
            analystId: 'liability-counsel',
            clauseId: 'c0001',
            assessments: { liability: { score: 2, findings: [] } },
            summary: 'x',
          }),
        },
      ],
    });
    expect(await processChunk(delivery(), deps())).toEqual({ action: 'ack', outcome: 'done' });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    const [finish] = chunkFinishes();
    expect(finish?.Key).toEqual({ pk: 'JOB#job-1', sk: 'CHUNK#0003#consolidate' });
    expect(finish?.ExpressionAttributeValues).toMatchObject({
      ':fence': FENCE.consolidate,
      ':status': 'done',
    });
    const assessments = JSON.parse(String(finish?.ExpressionAttributeValues?.[':result']));
    expect(assessments).toHaveLength(1);
    expect(assessments[0]).toMatchObject({ clauseId: 'c0001' });
  });
});

describe('processChunk: a cancelled job', () => {
  it('records where the chunk stopped, enqueues finalize when it was the last, and acknowledges', async () => {
    arrange({ job: { status: 'cancelled' }, lastChunk: true });
    expect(await processChunk(delivery(), deps())).toEqual({
      action: 'ack',
      outcome: 'cancelled-at-stage-1',
    });
    const [finish] = chunkFinishes();
    expect(finish?.Key).toEqual({ pk: 'JOB#job-1', sk: 'CHUNK#0003#analyze' });
    expect(finish?.ConditionExpression).toBe(FENCED);
    expect(finish?.ExpressionAttributeValues).toMatchObject({
      ':status': 'cancelled',
      ':stopped': 'cancelled-at-stage-1',
      ':fence': FENCE.analyze,
    });
    expect(finalizeClaims()).toHaveLength(1);
    expect(finalizeMessages()).toEqual([{ QueueUrl: FINALIZE_URL, MessageBody: '{"v":1,"jobId":"job-1"}' }]);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
  });

  it('names the second stage when analyze had finished before the cancel', async () => {
    arrange({ job: { status: 'cancelled' }, lose: { analyze: { status: 'done' } } });
    expect(await processChunk(delivery(), deps())).toEqual({
      action: 'ack',
      outcome: 'cancelled-at-stage-2',
    });
    expect(finalizeMessages()).toHaveLength(0);
  });
});

describe('processChunk: a full run', () => {
  it('analyzes, consolidates and counts the chunk, each write fenced by its own lease', async () => {
    arrange();
    expect(await processChunk(delivery(), deps())).toEqual({ action: 'ack', outcome: 'done' });
    const [complete] = stageCompletions();
    expect(complete?.Key).toEqual({ pk: 'JOB#job-1', sk: 'CHUNK#0003#analyze' });
    expect(complete?.ConditionExpression).toBe(FENCED);
    expect(complete?.ExpressionAttributeValues).toMatchObject({
      ':me': 'worker-a',
      ':fence': FENCE.analyze,
      ':calls': { done: 1, reused: 0, failed: 0, skipped: 0, cancelled: 0, retries: 0 },
    });
    const [finish] = chunkFinishes();
    expect(finish?.Key).toEqual({ pk: 'JOB#job-1', sk: 'CHUNK#0003#consolidate' });
    expect(finish?.ExpressionAttributeValues).toMatchObject({ ':fence': FENCE.consolidate });
    // Not the last chunk: finalize is someone else's job.
    expect(finalizeClaims()).toHaveLength(0);
    expect(finalizeMessages()).toHaveLength(0);
  });

  it('enqueues finalize once when this completion makes the count whole', async () => {
    arrange({ lastChunk: true });
    expect(await processChunk(delivery(), deps())).toEqual({ action: 'ack', outcome: 'done' });
    expect(finalizeClaims()[0]?.ConditionExpression).toBe(
      'attribute_not_exists(finalizeEnqueuedAt) AND chunksTerminal >= chunkCount AND #status IN (:running, :cancelled)',
    );
    expect(finalizeMessages()).toEqual([{ QueueUrl: FINALIZE_URL, MessageBody: '{"v":1,"jobId":"job-1"}' }]);
  });

  it('returns a stage to SQS, without a lease-lost claim, when its completion is refused', async () => {
    arrange({ completeStage: () => conditionFailed() });
    const disposition = await processChunk(delivery(), deps());
    expect(disposition).toEqual({
      action: 'retry',
      reason: 'lost the lease on job job-1 chunk 3 stage analyze',
    });
    expect(chunkFinishes()).toHaveLength(0);
  });
});

describe('processChunk: tier-2 retries', () => {
  it.each([
    [1, 30],
    [2, 120],
    [3, 300],
  ])(
    'after tier-1 retries run out on receive %i, releases the stage and backs off %i s',
    async (receiveCount, seconds) => {
      arrange({ bedrock: () => new ServiceUnavailableException({ message: 'Unavailable', $metadata: {} }) });
      const disposition = await processChunk(
        delivery({ receiveCount }),
        deps({ backoff: { ...DEFAULT_BACKOFF, maxRetries: 0 } }),
      );
      expect(disposition).toEqual({
        action: 'retry',
        reason: 'tier-1 retries exhausted',
        visibilitySeconds: seconds,
      });
      const [release] = releases();
      expect(release?.ConditionExpression).toBe(FENCED);
      expect(release?.ExpressionAttributeValues).toMatchObject({
        ':class': 'transient',
        ':fence': FENCE.analyze,
      });
      expect(release?.ExpressionAttributeValues?.[':err']).toBe(
        '1 call(s) out of tier-1 retries; first: c0001/liability-counsel: ServiceUnavailableException: Unavailable',
      );
      expect(stageCompletions()).toHaveLength(0);
    },
  );
});

describe('processChunk: heartbeat', () => {
  /** Bedrock answers after 25 s: long enough for two heartbeats at a third of the 30 s lease. */
  const slowAnswer = () =>
    new Promise<ConverseCommandOutput>((resolve) => setTimeout(() => resolve(validAnswer()), 25_000));

  it('extends both the lease and the message visibility every third of the lease', async () => {
    vi.useFakeTimers({ now: NOW });
    arrange({ bedrock: slowAnswer });
    const result = processChunk(delivery(), deps({ now: () => Date.now() }));
    await vi.advanceTimersByTimeAsync(25_000);
    expect(await result).toEqual({ action: 'ack', outcome: 'done' });

    const beats = heartbeatsSent();
    expect(beats.map((b) => b.ExpressionAttributeValues?.[':exp'])).toEqual([
      NOW + 10_000 + LEASE_MS,
      NOW + 20_000 + LEASE_MS,
    ]);
    for (const beat of beats) {
      expect(beat.Key).toEqual({ pk: 'JOB#job-1', sk: 'CHUNK#0003#analyze' });
      expect(beat.ConditionExpression).toBe(FENCED);
      expect(beat.ExpressionAttributeValues).toMatchObject({ ':me': 'worker-a', ':fence': FENCE.analyze });
    }
    // Once at each claim (analyze, then consolidate), and with each of the two heartbeats.
    expect(visibilityChanges()).toEqual(
      Array(4).fill({ QueueUrl: QUEUE_URL, ReceiptHandle: 'rh-1', VisibilityTimeout: 60 }),
    );
    // Each heartbeat carries the stage's call counts so far.
    expect(beats[0]?.ExpressionAttributeValues?.[':calls']).toMatchObject({ done: 0 });
  });

  it('records the call counts between heartbeats when they moved, at most once a second', async () => {
    vi.useFakeTimers({ now: NOW });
    // Three calls, answered 1.5 s, 3.5 s and 25 s after they start.
    const delays = [1_500, 3_500, 25_000];
    let started = 0;
    arrange({
      bedrock: () => {
        const ms = delays[started++] ?? 0;
        return new Promise((resolve) => setTimeout(() => resolve(validAnswer()), ms));
      },
    });
    const clauses = [0, 1, 2].map((index) => ({ ...clause, index, id: `c000${index + 1}` }));
    const body = JSON.stringify({ v: 1, jobId: 'job-1', chunk: 3, lane: 'realtime', clauses });
    const result = processChunk(delivery({ body }), deps({ now: () => Date.now() }));
    await vi.advanceTimersByTimeAsync(25_000);
    expect(await result).toEqual({ action: 'ack', outcome: 'done' });

    // After the first answer and after the second; nothing while the counts stood still.
    const recorded = countsRecorded();
    expect(recorded.map((r) => r.ExpressionAttributeValues?.[':calls'].done)).toEqual([1, 2]);
    for (const r of recorded) {
      expect(r.Key).toEqual({ pk: 'JOB#job-1', sk: 'CHUNK#0003#analyze' });
      expect(r.ConditionExpression).toBe(FENCED);
      expect(r.ExpressionAttributeValues).toMatchObject({ ':me': 'worker-a', ':fence': FENCE.analyze });
    }
    // The heartbeats still renew at a third of the lease, with the counts as they stand.
    expect(heartbeatsSent().map((b) => b.ExpressionAttributeValues?.[':calls'].done)).toEqual([2, 2]);
  });

  it('aborts the stage when recording the counts finds the lease taken over', async () => {
    vi.useFakeTimers({ now: NOW });
    const delays = [1_500, 25_000];
    let started = 0;
    arrange({
      bedrock: () => {
        const ms = delays[started++] ?? 0;
        return new Promise((resolve) => setTimeout(() => resolve(validAnswer()), ms));
      },
      recordCounts: () => conditionFailed(),
      release: () => conditionFailed(),
    });
    const clauses = [0, 1].map((index) => ({ ...clause, index, id: `c000${index + 1}` }));
    const body = JSON.stringify({ v: 1, jobId: 'job-1', chunk: 3, lane: 'realtime', clauses });
    const result = processChunk(delivery({ body }), deps({ now: () => Date.now() }));
    await vi.advanceTimersByTimeAsync(25_000);
    expect(await result).toMatchObject({ action: 'retry', reason: 'lease lost during analyze' });
    expect(countsRecorded()).toHaveLength(1);
    expect(heartbeatsSent()).toHaveLength(0);
    expect(stageCompletions()).toHaveLength(0);
  });

  it('stops once the stage is over', async () => {
    vi.useFakeTimers({ now: NOW });
    arrange();
    expect(await processChunk(delivery(), deps({ now: () => Date.now() }))).toEqual({
      action: 'ack',
      outcome: 'done',
    });
    const atEnd = visibilityChanges().length;
    await vi.advanceTimersByTimeAsync(5 * LEASE_MS);
    expect(heartbeatsSent()).toHaveLength(0);
    // Only the two set at the claims, none after.
    expect(atEnd).toBe(2);
    expect(visibilityChanges()).toHaveLength(2);
  });

  it('aborts the stage when the lease is lost, committing nothing more under it', async () => {
    vi.useFakeTimers({ now: NOW });
    // The claim is gone, so the fenced release that follows is refused too.
    arrange({ bedrock: slowAnswer, heartbeat: () => conditionFailed(), release: () => conditionFailed() });
    const log = vi.fn();
    const result = processChunk(delivery({ receiveCount: 2 }), deps({ now: () => Date.now(), log }));
    await vi.advanceTimersByTimeAsync(25_000);
    expect(await result).toEqual({
      action: 'retry',
      reason: 'lease lost during analyze',
      visibilitySeconds: 120,
    });
    expect(stageCompletions()).toHaveLength(0);
    // Only attempted, fenced by the lost lease: the refusal is ignored.
    expect(releases()).toHaveLength(1);
    expect(releases()[0]?.ConditionExpression).toBe(FENCED);
    expect(chunkFinishes()).toHaveLength(0);
    // The message's visibility is set once at the claim, and not extended for a lease this
    // worker no longer holds.
    expect(visibilityChanges()).toHaveLength(1);
    expect(log).toHaveBeenCalledWith(
      'heartbeat-failed',
      expect.objectContaining({ jobId: 'job-1', chunk: 3 }),
    );
  });

  it('keeps working through a heartbeat that fails for another reason', async () => {
    vi.useFakeTimers({ now: NOW });
    let beats = 0;
    arrange({
      bedrock: slowAnswer,
      heartbeat: () => (++beats === 1 ? new Error('socket hang up') : undefined),
    });
    const result = processChunk(delivery(), deps({ now: () => Date.now() }));
    await vi.advanceTimersByTimeAsync(25_000);
    expect(await result).toEqual({ action: 'ack', outcome: 'done' });
    // The failed one is tried again a second later, and the next comes a third of the lease
    // after that: at 10 s, 11 s and 21 s.
    expect(heartbeatsSent().map((b) => b.ExpressionAttributeValues?.[':exp'])).toEqual([
      NOW + 10_000 + LEASE_MS,
      NOW + 11_000 + LEASE_MS,
      NOW + 21_000 + LEASE_MS,
    ]);
    // At the two claims, and after the two heartbeats that succeeded.
    expect(visibilityChanges()).toHaveLength(4);
    expect(stageCompletions()).toHaveLength(1);
  });
});

describe('processChunk: a stage stopped as lease-lost', () => {
  /** Bedrock's answer to a call aborted by the process shutting down. */
  function shutdownDuringCall(shutdown: AbortController) {
    return () => {
      shutdown.abort();
      return new DOMException('This operation was aborted', 'AbortError');
    };
  }

  it('frees a claim that is still its own, so the next delivery need not wait it out', async () => {
    const shutdown = new AbortController();
    arrange({ bedrock: shutdownDuringCall(shutdown) });
    expect(await processChunk(delivery(), deps({ signal: shutdown.signal }))).toEqual({
      action: 'retry',
      reason: 'lease lost during analyze',
      visibilitySeconds: 30,
    });
    const [release] = releases();
    expect(releases()).toHaveLength(1);
    expect(release?.Key).toEqual({ pk: 'JOB#job-1', sk: 'CHUNK#0003#analyze' });
    expect(release?.ConditionExpression).toBe(FENCED);
    expect(release?.ExpressionAttributeValues).toMatchObject({
      ':me': 'worker-a',
      ':fence': FENCE.analyze,
      ':err': 'lease lost during analyze',
      ':class': 'infrastructure',
    });
    expect(stageCompletions()).toHaveLength(0);
    expect(chunkFinishes()).toHaveLength(0);
  });

  it('returns the message all the same when that release fails', async () => {
    const shutdown = new AbortController();
    arrange({ bedrock: shutdownDuringCall(shutdown), release: () => new Error('socket hang up') });
    expect(await processChunk(delivery({ receiveCount: 3 }), deps({ signal: shutdown.signal }))).toEqual({
      action: 'retry',
      reason: 'lease lost during analyze',
      visibilitySeconds: 300,
    });
    expect(releases()).toHaveLength(1);
  });
});

describe('processChunk: the model limiters', () => {
  it("takes each call's permit from the process's limiters, in the message's lane", async () => {
    arrange();
    const limiters = new LimiterRegistry();
    const body = JSON.stringify({ v: 1, jobId: 'job-1', chunk: 3, lane: 'batch', clauses: [clause] });
    expect(await processChunk(delivery({ body }), deps({ limiters }))).toEqual({
      action: 'ack',
      outcome: 'done',
    });
    expect(limiters.stats()[PRIMARY_MODEL_ID]).toMatchObject({
      granted: { realtime: 0, batch: 1 },
      calls: 1,
      active: 0,
    });
  });
});
