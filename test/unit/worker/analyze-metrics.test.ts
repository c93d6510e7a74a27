import { BedrockClient } from '@aws-sdk/client-bedrock';
import {
  AccessDeniedException,
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
  ThrottlingException,
} from '@aws-sdk/client-bedrock-runtime';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { analystById } from '../../../lambdas/core/analysts/index.js';
import type { Clause } from '../../../lambdas/core/clause.js';
import type {
  AttemptMetric,
  CallMetric,
  ChunkMetric,
  JobMetric,
  LimiterWindow,
  PipelineMetrics,
} from '../../../lambdas/core/metrics/index.js';
import {
  costOf,
  FALLBACK_MODEL_ID,
  MODEL_PRICES,
  PRIMARY_MODEL_ID,
} from '../../../lambdas/core/model-catalogue.js';
import { Allotments } from '../../../lambdas/core/state/allotments.js';
import { CallLedger } from '../../../lambdas/core/state/call-ledger.js';
import type { Checkpoint, Lease } from '../../../lambdas/core/state/claims.js';
import type { Job } from '../../../lambdas/core/state/job.js';
import { Jobs } from '../../../lambdas/core/state/jobs.js';
import { callSk } from '../../../lambdas/core/state/keys.js';
import { DEFAULT_BACKOFF } from '../../../lambdas/core/worker/backoff.js';
import { idempotencyKey } from '../../../lambdas/core/worker/call-key.js';
import { ChunkStop } from '../../../lambdas/core/worker/chunk-stop.js';
import { JobGate } from '../../../lambdas/core/worker/job-gate.js';
import { processChunk } from '../../../lambdas/core/worker/process-chunk.js';
import { Semaphore } from '../../../lambdas/core/worker/semaphore.js';
import { type AnalyzeResult, analyzeStage } from '../../../lambdas/core/worker/stages/analyze.js';
import type { AnalyzeDeps } from '../../../lambdas/core/worker/stages/chunk-calls.js';
import { loadConfig } from '../../../lambdas/shared/config.js';
import { type RuntimeClients, workerDeps } from '../../../lambdas/shared/runtime.js';
import { queueUrlsVariable } from '../../helpers/deployed-env.js';
/**
 * The analyze stage reports each Bedrock request and each call's outcome to the metrics port.
 */
import { oneCallJob } from '../../helpers/one-call-job.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const ddb = mockClient(DynamoDBDocumentClient);
const bedrock = mockClient(BedrockRuntimeClient);
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const liability = analystById('liability-counsel');

/** Records every event, in order. */
class RecordingMetrics implements PipelineMetrics {
  readonly calls: CallMetric[] = [];
  readonly attempts: AttemptMetric[] = [];
  readonly chunks: ChunkMetric[] = [];
  readonly jobs: JobMetric[] = [];
  readonly windows: LimiterWindow[] = [];
  call(e: CallMetric) {
    this.calls.push(e);
  }
  attempt(e: AttemptMetric) {
    this.attempts.push(e);
  }
  chunk(e: ChunkMetric) {
    this.chunks.push(e);
  }
  job(e: JobMetric) {
    this.jobs.push(e);
  }
  holds() {}
  readonly breaches: string[] = [];
  books(e: { kind: string }) {
    this.breaches.push(e.kind);
  }
  limiter(w: LimiterWindow) {
    this.windows.push(w);
  }
  async flush() {}
}

function clause(n: number): Clause {
  const text = `${n}. The Supplier (schedule Q${n}X) shall not be liable for any indirect or consequential damages.`;
  return { index: n - 1, id: `c${String(n).padStart(4, '0')}`, start: 0, end: text.length, text };
}

const job: Job = oneCallJob({ clauseCount: 3, callsPlanned: 3 });
const lease: Lease = {
  jobId: 'job-1',
  chunk: 3,
  stage: 'analyze',
  workerId: 'w',
  fence: 1,
  // A redelivered chunk: the ledger may hold entries of an earlier holder.
  attempts: 2,
  expiresAt: NOW + 60_000,
};
const USAGE = { inputTokens: 900, outputTokens: 120 };

function validAnswer(input: ConverseCommandInput): ConverseCommandOutput {
  const schema = input.toolConfig?.tools?.[0]?.toolSpec?.inputSchema?.json as {
    properties: { assessments: { properties: Record<string, unknown> } };
  };
  const assessments = Object.fromEntries(
    Object.keys(schema.properties.assessments.properties).map((id) => [id, { score: null, findings: [] }]),
  );
  return {
    $metadata: {},
    output: {
      message: {
        role: 'assistant',
        content: [
          {
            toolUse: {
              toolUseId: 't',
              name: 'record_assessment',
              input: { assessments, summary: 'ok' } as never,
            },
          },
        ],
      },
    },
    stopReason: 'tool_use',
    usage: { ...USAGE, totalTokens: 1020 },
    metrics: { latencyMs: 5 },
  };
}

let clock = NOW;

function arrange(
  existing: Record<string, unknown>[],
  answer: (input: ConverseCommandInput) => ConverseCommandOutput,
) {
  ddb.on(QueryCommand).resolves({ Items: existing });
  ddb.on(GetCommand).resolves({ Item: job });
  ddb.on(BatchWriteCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
  bedrock.on(ConverseCommand).callsFake((input: ConverseCommandInput) => {
    clock += 250; // each request takes 250 ms on the test clock
    return answer(input);
  });
}

function deps(metrics?: PipelineMetrics): AnalyzeDeps {
  const jobs = new Jobs(db, 'state', () => clock);
  return {
    bedrock: new BedrockRuntimeClient({ region: 'us-east-1' }),
    ledger: new CallLedger(db, 'state', () => clock),
    jobs,
    allotments: new Allotments(db, 'state', () => clock),
    gate: new JobGate(
      () => jobs.gate(job.jobId),
      () => clock,
    ),
    lane: 'realtime',
    semaphore: new Semaphore(1),
    backoff: DEFAULT_BACKOFF,
    prices: MODEL_PRICES,
    modelTimeoutMs: 600_000,
    random: () => 0.5,
    sleep: async () => {},
    now: () => clock,
    ...(metrics ? { metrics } : {}),
  };
}

const checkpoint = {
  jobId: 'job-1',
  chunk: 3,
  stage: 'analyze',
  status: 'running',
  fence: 1,
  attempts: 1,
} as Checkpoint;

function countsOf(outcome: AnalyzeResult) {
  return outcome.kind === 'done' || outcome.kind === 'cancelled' ? outcome.counts : undefined;
}

beforeEach(() => {
  ddb.reset();
  bedrock.reset();
  clock = NOW;
});

describe('analyze stage metrics', () => {
  it('reports a reused, a succeeded-after-fallback and a permanently failed call, with each request', async () => {
    const [reused, throttled, denied] = [clause(1), clause(2), clause(3)];
    let deniedSeen = false;
    arrange(
      [
        {
          sk: callSk(3, reused.id, liability.id),
          status: 'done',
          idempotencyKey: idempotencyKey(liability, reused),
        },
      ],
      (input) => {
        const text = JSON.stringify(input.messages);
        if (text.includes('Q2X') && input.modelId === PRIMARY_MODEL_ID) {
          throw new ThrottlingException({ message: 'slow down', $metadata: {} });
        }
        if (text.includes('Q3X')) {
          deniedSeen = true;
          throw new AccessDeniedException({ message: 'no access', $metadata: {} });
        }
        return validAnswer(input);
      },
    );
    const metrics = new RecordingMetrics();
    const outcome = await analyzeStage(
      job,
      lease,
      checkpoint,
      [reused, throttled, denied],
      [liability],
      deps(metrics),
      new ChunkStop(),
    );

    expect(deniedSeen).toBe(true);
    expect(countsOf(outcome)).toMatchObject({ done: 1, reused: 1, failed: 1 });
    // Two throttles on the primary model move the call to the fallback, where it succeeds.
    expect(metrics.calls).toEqual([
      { model: PRIMARY_MODEL_ID, outcome: 'reused' },
      { model: FALLBACK_MODEL_ID, outcome: 'succeeded', retries: 2 },
      { model: PRIMARY_MODEL_ID, outcome: 'failed', retries: 0 },
    ]);
    const answeredCost = costOf(FALLBACK_MODEL_ID, USAGE, MODEL_PRICES);
    expect(metrics.attempts).toEqual([
      { model: PRIMARY_MODEL_ID, latencyMs: 250, throttled: true },
      { model: PRIMARY_MODEL_ID, latencyMs: 250, throttled: true },
      { model: FALLBACK_MODEL_ID, latencyMs: 250, throttled: false, costMicros: answeredCost },
      { model: PRIMARY_MODEL_ID, latencyMs: 250, throttled: false },
    ]);
  });

  it('reports nothing, and works as before, without a metrics port', async () => {
    arrange([], validAnswer);
    const outcome = await analyzeStage(
      job,
      lease,
      checkpoint,
      [clause(1)],
      [liability],
      deps(),
      new ChunkStop(),
    );
    expect(countsOf(outcome)).toMatchObject({ done: 1, failed: 0 });
  });
});

describe('worker wiring of metrics', () => {
  const config = loadConfig({
    TABLE_NAME: 'state',
    INTAKE_BUCKET: 'in',
    RESULTS_BUCKET: 'out',
    QUEUE_URLS: queueUrlsVariable(),
    LIMITER_WINDOW_MS: '100',
  });
  const clients: RuntimeClients = {
    db,
    sqs: new SQSClient({ region: 'us-east-1' }),
    s3: new S3Client({ region: 'us-east-1' }),
    bedrock: new BedrockRuntimeClient({ region: 'us-east-1' }),
    bedrockControl: new BedrockClient({ region: 'us-east-1' }),
  };

  it('reports each delivery of a chunk, redelivered or not, even one that cannot be read', async () => {
    const metrics = new RecordingMetrics();
    const deps = workerDeps(config, clients, { metrics });
    const delivery = { messageId: 'm', receiptHandle: 'r', queueUrl: config.QUEUE_URLS.batch };
    const first = await processChunk({ ...delivery, body: 'not json', receiveCount: 1 }, deps);
    const again = await processChunk({ ...delivery, body: '{}', receiveCount: 3 }, deps);
    expect([first.action, again.action]).toEqual(['retry', 'retry']);
    expect(metrics.chunks).toEqual([{ redelivered: false }, { redelivered: true }]);
  });

  it("reports the process's limiter windows, per model", async () => {
    const metrics = new RecordingMetrics();
    const limiters = workerDeps(config, clients, { metrics }).limiters;
    const limiter = limiters?.for(PRIMARY_MODEL_ID);
    (await limiter?.acquire('batch'))?.release({ latencyMs: 40 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    limiter?.tick();
    expect(metrics.windows).toEqual([
      expect.objectContaining({ name: PRIMARY_MODEL_ID, limitAfter: 10, peakActive: 1, p99Ms: 40 }),
    ]);
    expect(workerDeps(config, clients).metrics).toBeUndefined();
  });
});
