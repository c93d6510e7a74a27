/**
 * What the analyzeStage tests (analyze-stage*.test.ts) share: a redelivered chunk's lease and
 * checkpoint, clauses, answers, and mocked DynamoDB and Bedrock clients arranged to a scenario,
 * with every ledger write, gate read and model call recorded in order.
 */
import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
  ServiceUnavailableException,
  ThrottlingException,
} from '@aws-sdk/client-bedrock-runtime';
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, vi } from 'vitest';
import { analystById } from '../../../lambdas/core/analysts/index.js';
import type { Clause } from '../../../lambdas/core/clause.js';
import { MODEL_PRICES, PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import { Allotments } from '../../../lambdas/core/state/allotments.js';
import { CallLedger } from '../../../lambdas/core/state/call-ledger.js';
import type { Checkpoint, Lease } from '../../../lambdas/core/state/claims.js';
import type { Job } from '../../../lambdas/core/state/job.js';
import { Jobs } from '../../../lambdas/core/state/jobs.js';
import { DEFAULT_BACKOFF } from '../../../lambdas/core/worker/backoff.js';
import { ChunkStop } from '../../../lambdas/core/worker/chunk-stop.js';
import { JobGate } from '../../../lambdas/core/worker/job-gate.js';
import { Semaphore } from '../../../lambdas/core/worker/semaphore.js';
import { analyzeStage } from '../../../lambdas/core/worker/stages/analyze.js';
import type { AnalyzeDeps } from '../../../lambdas/core/worker/stages/chunk-calls.js';
import { oneCallJob } from '../../helpers/one-call-job.js';

export const TABLE = 'state-table';
export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

export const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const bedrockClient = new BedrockRuntimeClient({ region: 'us-east-1' });

export const liability = analystById('liability-counsel');
export const riskTransfer = analystById('risk-transfer');

export function clause(n: number): Clause {
  const text = `${n}. The Supplier shall not be liable for any indirect or consequential damages.`;
  return { index: n - 1, id: `c${String(n).padStart(4, '0')}`, start: 0, end: text.length, text };
}

export const job: Job = oneCallJob({ chunkCount: 4, clauseCount: 12, callsPlanned: 12 });

export const lease: Lease = {
  jobId: 'job-1',
  chunk: 3,
  stage: 'analyze',
  workerId: 'worker-a',
  fence: 4,
  // A redelivered chunk: the ledger may hold entries of an earlier holder.
  attempts: 2,
  expiresAt: NOW + 60_000,
};

export const USAGE = { inputTokens: 900, outputTokens: 120 };

function toolOutput(input: unknown): ConverseCommandOutput {
  return {
    $metadata: { httpStatusCode: 200 },
    output: {
      message: {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'record_assessment', input: input as never } }],
      },
    },
    stopReason: 'tool_use',
    usage: { ...USAGE, totalTokens: 1020 },
    metrics: { latencyMs: 5 },
  };
}

/** A valid answer for whichever analyst the request is for: every category, not addressed. */
export function validAnswer(input: ConverseCommandInput): ConverseCommandOutput {
  const schema = input.toolConfig?.tools?.[0]?.toolSpec?.inputSchema?.json as {
    properties: { assessments: { properties: Record<string, unknown> } };
  };
  const assessments = Object.fromEntries(
    Object.keys(schema.properties.assessments.properties).map((id) => [id, { score: null, findings: [] }]),
  );
  return toolOutput({ assessments, summary: 'Nothing in my categories.' });
}

/** An answer that fails validation: prose instead of the tool call. */
export const PROSE_ANSWER: ConverseCommandOutput = {
  $metadata: { httpStatusCode: 200 },
  output: { message: { role: 'assistant', content: [{ text: 'This clause looks fine to me.' }] } },
  stopReason: 'end_turn',
  usage: { ...USAGE, totalTokens: 1020 },
  metrics: { latencyMs: 5 },
};

export const meta = { $metadata: {} };
export const throttle = () => new ThrottlingException({ message: 'Too many requests', ...meta });
export const unavailable = () => new ServiceUnavailableException({ message: 'Service unavailable', ...meta });

interface Scenario {
  /** Ledger entries already in the table. */
  readonly existing?: Record<string, unknown>[];
  /** The job the status gate reads, per read (1-based). @default running */
  readonly gate?: (n: number) => Partial<Job>;
  /** Bedrock's behaviour for the n-th call (1-based): an answer or an error. */
  readonly bedrock?: (input: ConverseCommandInput, n: number) => ConverseCommandOutput | Error;
  /** The job refuses every allotment: it reads like this afterwards. */
  readonly refuseAllotments?: Partial<Job>;
}

export const checkpoint = {
  jobId: 'job-1',
  chunk: 3,
  stage: 'analyze',
  status: 'running',
  fence: 4,
  attempts: 1,
} as Checkpoint;

export const call = (model = PRIMARY_MODEL_ID) => `converse:${model}`;

/**
 * Mocked DynamoDB and Bedrock clients (reset before each test) arranged to a scenario, the
 * stage's dependencies on them reading the time from `now`, and what was sent. Call it once at
 * a test file's top level: unit files share their worker's modules (isolate: false), so each
 * file makes its own mocks, which test/helpers/unit-setup.ts takes off again after the file.
 */
export function mockedAnalyze(now: () => number = () => NOW) {
  const ddb = mockClient(DynamoDBDocumentClient);
  const bedrock = mockClient(BedrockRuntimeClient);

  /** Every ledger write, gate read and model call, in order, as short labels. */
  const events: string[] = [];

  function arrange(scenario: Scenario = {}) {
    let calls = 0;
    let reads = 0;
    ddb.on(QueryCommand).resolves({ Items: scenario.existing ?? [] });
    ddb.on(BatchWriteCommand).callsFake((input: BatchWriteCommandInput) => {
      events.push(`intents:${input.RequestItems?.[TABLE]?.length}`);
      return {};
    });
    ddb.on(UpdateCommand).callsFake((input: UpdateCommandInput) => {
      const values = input.ExpressionAttributeValues;
      // An intent ended without its call (CallLedger.retire) names the call it ends.
      if (values?.[':retryable']) events.push(`retire:${String(input.Key?.sk).split('#').at(-2)}`);
      else events.push(`settle:${values?.[':status']}`);
      return {};
    });
    ddb.on(TransactWriteCommand).callsFake((input: TransactWriteCommandInput) => {
      const jobWrite = input.TransactItems?.find((i) => i.Update?.Key?.sk === 'JOB')?.Update;
      const takes = Boolean(jobWrite?.ConditionExpression);
      events.push(takes ? 'take' : 'return');
      if (takes && scenario.refuseAllotments) {
        throw new TransactionCanceledException({
          message: 'cancelled',
          ...meta,
          // The job as it stood, sent with the refusal (ReturnValuesOnConditionCheckFailure).
          CancellationReasons: [
            { Code: 'None' },
            { Code: 'ConditionalCheckFailed', Item: marshall({ ...job, ...scenario.refuseAllotments }) },
          ],
        });
      }
      return {};
    });
    ddb.on(GetCommand).callsFake((input) => {
      if (input.ProjectionExpression) {
        reads++;
        events.push('gate');
        return { Item: { status: 'running', ...scenario.gate?.(reads) } };
      }
      return { Item: { ...job, ...scenario.refuseAllotments } };
    });
    bedrock.on(ConverseCommand).callsFake((input: ConverseCommandInput) => {
      calls++;
      events.push(`converse:${input.modelId}`);
      const result = scenario.bedrock ? scenario.bedrock(input, calls) : validAnswer(input);
      if (result instanceof Error) throw result;
      return result;
    });
  }

  const sleep = vi.fn(async (_ms: number, _signal?: AbortSignal) => {});

  function deps(overrides: Partial<AnalyzeDeps> = {}): AnalyzeDeps {
    const jobs = new Jobs(db, TABLE, now);
    return {
      bedrock: bedrockClient,
      ledger: new CallLedger(db, TABLE, now),
      jobs,
      allotments: new Allotments(db, TABLE, now),
      gate: new JobGate(() => jobs.gate(job.jobId), now),
      semaphore: new Semaphore(4),
      lane: 'realtime',
      backoff: DEFAULT_BACKOFF,
      prices: MODEL_PRICES,
      modelTimeoutMs: 600_000,
      random: () => 0.5,
      sleep,
      now,
      ...overrides,
    };
  }

  function run(
    clauses: readonly Clause[],
    options: { analysts?: (typeof liability)[]; deps?: Partial<AnalyzeDeps>; stop?: ChunkStop } = {},
  ) {
    return analyzeStage(
      job,
      lease,
      checkpoint,
      clauses,
      options.analysts ?? [liability],
      deps(options.deps),
      options.stop ?? new ChunkStop(),
    );
  }

  function converseInputs(): ConverseCommandInput[] {
    return bedrock.commandCalls(ConverseCommand).map((c) => c.args[0].input);
  }

  function settlements(): UpdateCommandInput[] {
    return ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input);
  }

  beforeEach(() => {
    ddb.reset();
    bedrock.reset();
    sleep.mockClear();
    events.length = 0;
  });

  return { ddb, bedrock, events, sleep, arrange, deps, run, converseInputs, settlements };
}
