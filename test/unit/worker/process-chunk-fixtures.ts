/**
 * What the processChunk tests (process-chunk*.test.ts) share: a chunk message of one clause,
 * the worker's dependencies, and mocked DynamoDB, SQS and Bedrock clients arranged to a
 * scenario, with the writes and messages they were sent.
 */
import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ChangeMessageVisibilityCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
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
import { afterEach, beforeEach, vi } from 'vitest';
import type { Clause } from '../../../lambdas/core/clause.js';
import type { Checkpoint } from '../../../lambdas/core/state/claims.js';
import type { Job } from '../../../lambdas/core/state/job.js';
import type { Delivery, WorkerDeps } from '../../../lambdas/core/worker/process-chunk.js';
import { oneCallJob } from '../../helpers/one-call-job.js';
import { conditionFailed } from '../../helpers/refusals.js';

const TABLE = 'state-table';
export const FINALIZE_URL = 'http://sqs/finalize';
export const QUEUE_URL = 'http://sqs/chunks-realtime';
export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
export const LEASE_MS = 30_000;
export const SCHEDULE = [30, 120, 300];
export const FENCED = 'claimedBy = :me AND fence = :fence';
/** Fencing tokens the claims of the two stages return. */
export const FENCE = { analyze: 6, consolidate: 2 } as const;

const clients = {
  db: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
  sqs: new SQSClient({ region: 'us-east-1' }),
  bedrock: new BedrockRuntimeClient({ region: 'us-east-1' }),
};

const TEXT = 'The Supplier shall not be liable for any indirect or consequential damages.';
export const clause: Clause = { index: 0, id: 'c0001', start: 0, end: TEXT.length, text: TEXT };

const baseJob: Job = oneCallJob({ chunkCount: 4, clauseCount: 4, callsPlanned: 4 });

export function delivery(overrides: Partial<Delivery> = {}): Delivery {
  return {
    messageId: 'msg-1',
    receiptHandle: 'rh-1',
    body: JSON.stringify({ v: 1, jobId: 'job-1', chunk: 3, lane: 'realtime', clauses: [clause] }),
    receiveCount: 1,
    queueUrl: QUEUE_URL,
    ...overrides,
  };
}

export function deps(overrides: Partial<WorkerDeps> = {}): WorkerDeps {
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

export function validAnswer(): ConverseCommandOutput {
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

export interface Scenario {
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

/**
 * Mocked DynamoDB, SQS and Bedrock clients (reset before each test, real timers after it), the
 * scenario they answer, and the writes and messages they were sent. Call it once at a test
 * file's top level: unit files share their worker's modules (isolate: false), so each file
 * makes its own mocks, which test/helpers/unit-setup.ts takes off again after the file.
 */
export function mockedWorker() {
  const ddb = mockClient(DynamoDBDocumentClient);
  const sqs = mockClient(SQSClient);
  const bedrock = mockClient(BedrockRuntimeClient);

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
  const visibilityChanges = () =>
    sqs.commandCalls(ChangeMessageVisibilityCommand).map((c) => c.args[0].input);
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

  return {
    ddb,
    sqs,
    bedrock,
    arrange,
    claimsSent,
    heartbeatsSent,
    countsRecorded,
    stageCompletions,
    releases,
    finalizeClaims,
    visibilityChanges,
    finalizeMessages,
    chunkFinishes,
  };
}
