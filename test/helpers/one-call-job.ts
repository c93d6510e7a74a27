/**
 * What the worker's one-call unit tests share: a running one-clause, one-analyst job, and a model
 * answer that records every asked category with no finding.
 */
import type { ConverseCommandInput, ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import { analystById } from '../../lambdas/core/analysts/index.js';
import type { Clause } from '../../lambdas/core/model.js';
import type { Job } from '../../lambdas/core/state/job.js';

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
    costLimit: 5_000_000,
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
