/**
 * What the worker's one-call unit tests share: a running one-clause, one-analyst job, and a model
 * answer that records every asked category with no finding.
 */
import {
  BedrockRuntimeClient,
  type ConverseCommandInput,
  type ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type AnalystDefinition, analystById } from '../../lambdas/core/analysts/index.js';
import type { Clause } from '../../lambdas/core/clause.js';
import { MODEL_PRICES } from '../../lambdas/core/model-catalogue.js';
import { Allotments } from '../../lambdas/core/state/allotments.js';
import { CallLedger } from '../../lambdas/core/state/call-ledger.js';
import type { Lease } from '../../lambdas/core/state/claims.js';
import type { Job } from '../../lambdas/core/state/job.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { DEFAULT_BACKOFF } from '../../lambdas/core/worker/backoff.js';
import { firstInput, idempotencyKey } from '../../lambdas/core/worker/call-key.js';
import { JobGate } from '../../lambdas/core/worker/job-gate.js';
import { LimiterRegistry } from '../../lambdas/core/worker/limiter-registry.js';
import { Semaphore } from '../../lambdas/core/worker/semaphore.js';
import type { AnalyzeDeps, PlannedCall } from '../../lambdas/core/worker/stages/chunk-calls.js';

export const TABLE = 'state-table';
export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
export const liability = analystById('liability-counsel');
const text = '1. The Supplier shall not be liable for any indirect or consequential damages.';
export const clause: Clause = { index: 0, id: 'c0001', start: 0, end: text.length, text };

/** A running job of one clause and one call for the liability analyst, with `overrides`. */
export function oneCallJob(overrides: Partial<Job> = {}): Job {
  return {
    jobId: 'job-1',
    status: 'running',
    lane: 'realtime',
    bucket: 'intake',
    key: 'msa.txt',
    analysts: [liability.id],
    chunkCount: 1,
    clauseCount: 1,
    callsPlanned: 1,
    chunksTerminal: 0,
    chunksDone: 0,
    ceilingMicros: 5_000_000,
    costCommitted: 0,
    costReserved: 0,
    costSpent: 0,
    createdAt: new Date(NOW).toISOString(),
    updatedAt: new Date(NOW).toISOString(),
    deadline: NOW + 3_600_000,
    ...overrides,
  };
}

/** The model's answer to `input`: every category the request's tool asks for, scored null. */
export function emptyAssessments(input: ConverseCommandInput): ConverseCommandOutput {
  const schema = input.toolConfig?.tools?.[0]?.toolSpec?.inputSchema?.json as {
    properties: { assessments: { properties: Record<string, unknown> } };
  };
  const assessments = Object.fromEntries(
    Object.keys(schema.properties.assessments.properties).map((id) => [id, { score: null, findings: [] }]),
  );
  return {
    $metadata: { httpStatusCode: 200 },
    output: {
      message: {
        role: 'assistant',
        content: [
          { toolUse: { toolUseId: 't1', name: 'record_assessment', input: { assessments, summary: 'ok' } } },
        ],
      },
    },
    stopReason: 'tool_use',
    usage: { inputTokens: 900, outputTokens: 120, totalTokens: 1020 },
    metrics: { latencyMs: 5 },
  };
}

/**
 * The analyze stage's dependencies for calls of `jobId` over `db` (a mocked client in unit
 * tests): the real ledger, allotments and gate on the job's status, four calls at once, no wait
 * in backoff, the clock at {@link NOW}; `overrides` win.
 */
export function analyzeDeps(
  db: DynamoDBDocumentClient,
  jobId: string,
  overrides: Partial<AnalyzeDeps> = {},
): AnalyzeDeps {
  const now = overrides.now ?? (() => NOW);
  const jobs = new Jobs(db, TABLE, now);
  return {
    bedrock: new BedrockRuntimeClient({ region: 'us-east-1' }),
    ledger: new CallLedger(db, TABLE, now),
    jobs,
    allotments: new Allotments(db, TABLE, now),
    gate: new JobGate(() => jobs.gate(jobId), now),
    semaphore: new Semaphore(4),
    lane: 'realtime',
    limiters: new LimiterRegistry(),
    backoff: DEFAULT_BACKOFF,
    prices: MODEL_PRICES,
    modelTimeoutMs: 60_000,
    random: () => 0.5,
    sleep: async () => {},
    now,
    ...overrides,
  };
}

/** A first holder's lease of chunk 0 of `jobId`, running out at `expiresAt`. */
export function firstLease(jobId: string, expiresAt = NOW + 60_000): Lease {
  return { jobId, chunk: 0, stage: 'analyze', workerId: 'worker-a', fence: 1, attempts: 1, expiresAt };
}

/** The first call of `analyst` on a clause of chunk 0 of `jobId`, never made before. */
export function firstCall(
  jobId: string,
  of: Clause = clause,
  analyst: AnalystDefinition = liability,
): PlannedCall {
  return {
    ref: {
      jobId,
      chunk: 0,
      clauseId: of.id,
      analystId: analyst.id,
      idempotencyKey: idempotencyKey(analyst, of),
    },
    clause: of,
    analyst,
    input: firstInput(analyst, of),
    prior: undefined,
  };
}
