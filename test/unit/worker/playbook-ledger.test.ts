/**
 * A job's call ledger under a playbook: the analyze stage re-makes only the calls whose request
 * a playbook change touches. Handlers' clients are mocked (aws-sdk-client-mock); the requests,
 * the keys and the stage are the real ones.
 */
import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
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
import { ANALYSTS, type AnalystDefinition, withPositions } from '../../../lambdas/core/analysts/index.js';
import type { Clause } from '../../../lambdas/core/clause.js';
import { MODEL_PRICES } from '../../../lambdas/core/model-catalogue.js';
import { type Playbook, positionBriefs, shippedPlaybooks } from '../../../lambdas/core/playbooks/index.js';
import { Allotments } from '../../../lambdas/core/state/allotments.js';
import { CallLedger } from '../../../lambdas/core/state/call-ledger.js';
import type { Checkpoint, Lease } from '../../../lambdas/core/state/claims.js';
import { Jobs } from '../../../lambdas/core/state/jobs.js';
import { callSk } from '../../../lambdas/core/state/keys.js';
import { DEFAULT_BACKOFF } from '../../../lambdas/core/worker/backoff.js';
import { idempotencyKey } from '../../../lambdas/core/worker/call-key.js';
import { ChunkStop } from '../../../lambdas/core/worker/chunk-stop.js';
import { JobGate } from '../../../lambdas/core/worker/job-gate.js';
import { Semaphore } from '../../../lambdas/core/worker/semaphore.js';
import { analyzeStage } from '../../../lambdas/core/worker/stages/analyze.js';
import { oneCallJob } from '../../helpers/one-call-job.js';

const TABLE = 'state-table';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const ddb = mockClient(DynamoDBDocumentClient);
const bedrock = mockClient(BedrockRuntimeClient);
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));

const DEFAULT = shippedPlaybooks().find((p) => p.playbook.name === 'default')?.playbook as Playbook;

/** The default playbook with the liability cap's standard raised: one liability position changed. */
const RAISED: Playbook = {
  ...DEFAULT,
  positions: DEFAULT.positions.map((p) =>
    p.topic === 'limitation-of-liability' ? { ...p, standard: { ...p.standard, threshold: 3 } } : p,
  ),
};

const panelOf = (playbook: Playbook) =>
  withPositions(ANALYSTS, { party: playbook.party, positions: positionBriefs(playbook, undefined) });

const clauses: Clause[] = [1, 2, 3].map((n) => {
  const text = `${n}. The Supplier's liability shall not exceed the charges paid in the last six months.`;
  return { index: n - 1, id: `c000${n}`, start: n * 100, end: n * 100 + text.length, text };
});

const job = oneCallJob({ chunkCount: 1, clauseCount: 3, callsPlanned: 33 });
const lease: Lease = {
  jobId: job.jobId,
  chunk: 0,
  stage: 'analyze',
  workerId: 'worker-a',
  fence: 2,
  attempts: 2,
  expiresAt: NOW + 60_000,
};
const checkpoint = {
  jobId: job.jobId,
  chunk: 0,
  stage: 'analyze',
  status: 'running',
  fence: 2,
  attempts: 2,
} as Checkpoint;

/** A valid answer for the analyst a request is for: nothing addressed, no position dealt with. */
function validAnswer(input: ConverseCommandInput): ConverseCommandOutput {
  const schema = input.toolConfig?.tools?.[0]?.toolSpec?.inputSchema?.json as {
    properties: {
      assessments: { properties: Record<string, unknown> };
      positions?: { properties: Record<string, { required: string[] }> };
    };
  };
  const assessments = Object.fromEntries(
    Object.keys(schema.properties.assessments.properties).map((id) => [id, { score: null, findings: [] }]),
  );
  const positions = Object.fromEntries(
    Object.entries(schema.properties.positions?.properties ?? {}).map(([topic, p]) => [
      topic,
      {
        rung: 'not-addressed',
        quotes: [],
        reason: 'Not dealt with.',
        ...(p.required.includes('measured') ? { measured: null } : {}),
        redline: null,
      },
    ]),
  );
  const body = { assessments, summary: 'Nothing.', ...(schema.properties.positions ? { positions } : {}) };
  return {
    $metadata: {},
    output: {
      message: {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 't', name: 'record_assessment', input: body as never } }],
      },
    },
    stopReason: 'tool_use',
    usage: { inputTokens: 900, outputTokens: 120, totalTokens: 1020 },
    metrics: { latencyMs: 1 },
  };
}

/** The ledger entries a finished run under `panel` left: every call done, keyed on its request. */
function ledgerOf(panel: readonly AnalystDefinition[]) {
  return clauses.flatMap((c) =>
    panel.map((a) => ({
      pk: `JOB#${job.jobId}`,
      sk: callSk(0, c.id, a.id),
      status: 'done',
      idempotencyKey: idempotencyKey(a, c),
      result: '{}',
    })),
  );
}

function arrange(existing: Record<string, unknown>[]) {
  ddb.on(QueryCommand).resolves({ Items: existing });
  ddb.on(BatchWriteCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
  ddb
    .on(GetCommand)
    .callsFake((input) => ({ Item: input.ProjectionExpression ? { status: 'running' } : job }));
  bedrock.on(ConverseCommand).callsFake(validAnswer);
}

function run(panel: readonly AnalystDefinition[]) {
  const jobs = new Jobs(db, TABLE, () => NOW);
  return analyzeStage(
    job,
    lease,
    checkpoint,
    clauses,
    panel,
    {
      bedrock: new BedrockRuntimeClient({ region: 'us-east-1' }),
      ledger: new CallLedger(db, TABLE, () => NOW),
      jobs,
      allotments: new Allotments(db, TABLE, () => NOW),
      gate: new JobGate(
        () => jobs.gate(job.jobId),
        () => NOW,
      ),
      semaphore: new Semaphore(4),
      lane: 'realtime',
      backoff: DEFAULT_BACKOFF,
      prices: MODEL_PRICES,
      modelTimeoutMs: 60_000,
      random: () => 0.5,
      sleep: async () => {},
      now: () => NOW,
    },
    new ChunkStop(),
  );
}

beforeEach(() => {
  ddb.reset();
  bedrock.reset();
});

describe('a playbook change and the call ledger', () => {
  it('re-makes only the calls of the analysts whose positions changed, reusing every other entry', async () => {
    arrange(ledgerOf(panelOf(DEFAULT)));
    const outcome = await run(panelOf(RAISED));
    const asked = bedrock.commandCalls(ConverseCommand).map((c) => c.args[0].input);
    const liabilityAnalysts = ANALYSTS.filter((a) => a.categories.includes('liability')).length;
    expect(outcome).toMatchObject({
      kind: 'done',
      counts: {
        done: clauses.length * liabilityAnalysts,
        reused: clauses.length * (ANALYSTS.length - liabilityAnalysts),
      },
    });
    // The calls made are those of the analysts that score liability, each with the raised standard.
    for (const input of asked) expect(input.system?.[2]?.text).toContain('"threshold": 3');
    expect(asked).toHaveLength(clauses.length * liabilityAnalysts);
  });

  it('reuses every entry when the playbook is the same, and those of analysts without positions under another playbook', async () => {
    arrange(ledgerOf(panelOf(DEFAULT)));
    expect(await run(panelOf(DEFAULT))).toMatchObject({ kind: 'done', counts: { done: 0, reused: 33 } });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);

    ddb.reset();
    bedrock.reset();
    // Entries of the generic review: an analyst the NDA playbook gives no position asks the same request.
    arrange(ledgerOf(ANALYSTS));
    const nda = shippedPlaybooks().find((p) => p.playbook.name === 'nda')?.playbook as Playbook;
    const outcome = await run(panelOf(nda));
    const generic = panelOf(nda).filter((a) => !a.playbook).length;
    expect(generic).toBe(1);
    expect(outcome).toMatchObject({ kind: 'done', counts: { reused: clauses.length * generic } });
  });
});
