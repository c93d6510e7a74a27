import {
  AccessDeniedException,
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
  ServiceUnavailableException,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
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
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { analystById, buildConverseInput } from '../../../lambdas/core/analysts/index.js';
import type { Clause } from '../../../lambdas/core/model.js';
import { costOf, FALLBACK_MODEL_ID, MODEL_PRICES, PRIMARY_MODEL_ID } from '../../../lambdas/core/models.js';
import { Allotments } from '../../../lambdas/core/state/allotments.js';
import { CallLedger } from '../../../lambdas/core/state/call-ledger.js';
import type { Checkpoint, Lease } from '../../../lambdas/core/state/claims.js';
import type { Job } from '../../../lambdas/core/state/job.js';
import { Jobs } from '../../../lambdas/core/state/jobs.js';
import { callSk } from '../../../lambdas/core/state/keys.js';
import { DEFAULT_BACKOFF } from '../../../lambdas/core/worker/backoff.js';
import { GATE_LOOKAHEAD_MS, idempotencyKey } from '../../../lambdas/core/worker/call.js';
import { ChunkStop } from '../../../lambdas/core/worker/chunk-stop.js';
import { JobGate } from '../../../lambdas/core/worker/job-gate.js';
import { LimiterRegistry } from '../../../lambdas/core/worker/limiter-registry.js';
import { Semaphore } from '../../../lambdas/core/worker/semaphore.js';
import { analyzeStage } from '../../../lambdas/core/worker/stages/analyze.js';
import type { AnalyzeDeps } from '../../../lambdas/core/worker/stages/chunk-calls.js';
import { worstCaseCost, worstCaseInputTokens } from '../../../lambdas/core/worker/worst-case.js';
import { inFlightPeak } from '../../helpers/in-flight.js';
import { oneCallJob } from '../../helpers/one-call-job.js';

const TABLE = 'state-table';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

const ddb = mockClient(DynamoDBDocumentClient);
const bedrock = mockClient(BedrockRuntimeClient);
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const bedrockClient = new BedrockRuntimeClient({ region: 'us-east-1' });

const liability = analystById('liability-counsel');
const riskTransfer = analystById('risk-transfer');

function clause(n: number): Clause {
  const text = `${n}. The Supplier shall not be liable for any indirect or consequential damages.`;
  return { index: n - 1, id: `c${String(n).padStart(4, '0')}`, start: 0, end: text.length, text };
}

const job: Job = oneCallJob({ chunkCount: 4, clauseCount: 12, callsPlanned: 12 });

const lease: Lease = {
  jobId: 'job-1',
  chunk: 3,
  stage: 'analyze',
  workerId: 'worker-a',
  fence: 4,
  // A redelivered chunk: the ledger may hold entries of an earlier holder.
  attempts: 2,
  expiresAt: NOW + 60_000,
};

const USAGE = { inputTokens: 900, outputTokens: 120 };

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
function validAnswer(input: ConverseCommandInput): ConverseCommandOutput {
  const schema = input.toolConfig?.tools?.[0]?.toolSpec?.inputSchema?.json as {
    properties: { assessments: { properties: Record<string, unknown> } };
  };
  const assessments = Object.fromEntries(
    Object.keys(schema.properties.assessments.properties).map((id) => [id, { score: null, findings: [] }]),
  );
  return toolOutput({ assessments, summary: 'Nothing in my categories.' });
}

/** An answer that fails validation: prose instead of the tool call. */
const PROSE_ANSWER: ConverseCommandOutput = {
  $metadata: { httpStatusCode: 200 },
  output: { message: { role: 'assistant', content: [{ text: 'This clause looks fine to me.' }] } },
  stopReason: 'end_turn',
  usage: { ...USAGE, totalTokens: 1020 },
  metrics: { latencyMs: 5 },
};

const meta = { $metadata: {} };
const throttle = () => new ThrottlingException({ message: 'Too many requests', ...meta });
const unavailable = () => new ServiceUnavailableException({ message: 'Service unavailable', ...meta });

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

/** Every ledger write, gate read and model call, in order, as short labels. */
let events: string[] = [];
let clock = NOW;

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
  const jobs = new Jobs(db, TABLE, () => clock);
  return {
    bedrock: bedrockClient,
    ledger: new CallLedger(db, TABLE, () => clock),
    jobs,
    allotments: new Allotments(db, TABLE, () => clock),
    gate: new JobGate(
      () => jobs.gate(job.jobId),
      () => clock,
    ),
    semaphore: new Semaphore(4),
    lane: 'realtime',
    backoff: DEFAULT_BACKOFF,
    prices: MODEL_PRICES,
    modelTimeoutMs: 600_000,
    random: () => 0.5,
    sleep,
    now: () => clock,
    ...overrides,
  };
}

const checkpoint = {
  jobId: 'job-1',
  chunk: 3,
  stage: 'analyze',
  status: 'running',
  fence: 4,
  attempts: 1,
} as Checkpoint;

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

const call = (model = PRIMARY_MODEL_ID) => `converse:${model}`;

beforeEach(() => {
  ddb.reset();
  bedrock.reset();
  sleep.mockClear();
  events = [];
  clock = NOW;
});

describe('idempotencyKey and the worst case', () => {
  it('gives the same request the same key, and a changed prompt, model, clause or analyst another', () => {
    const c = clause(1);
    const key = idempotencyKey(liability, c);
    expect(idempotencyKey(liability, { ...c })).toBe(key);
    expect(idempotencyKey({ ...liability, systemPrompt: `${liability.systemPrompt} ` }, c)).not.toBe(key);
    expect(idempotencyKey({ ...liability, modelId: FALLBACK_MODEL_ID }, c)).not.toBe(key);
    expect(idempotencyKey(liability, { ...c, text: `${c.text} ` })).not.toBe(key);
    expect(idempotencyKey(riskTransfer, c)).not.toBe(key);
  });

  it('bounds the input tokens by the UTF-8 size of everything sent, and prices the worst case', () => {
    const input = buildConverseInput(liability, clause(1), { modelId: PRIMARY_MODEL_ID });
    const bytes = Buffer.byteLength(
      JSON.stringify({ s: input.system, m: input.messages, t: input.toolConfig }),
      'utf8',
    );
    expect(worstCaseInputTokens(input)).toBeGreaterThan(bytes);
    const accented = buildConverseInput(
      liability,
      { ...clause(1), text: 'é'.repeat(100) },
      { modelId: PRIMARY_MODEL_ID },
    );
    const plain = buildConverseInput(
      liability,
      { ...clause(1), text: 'e'.repeat(100) },
      { modelId: PRIMARY_MODEL_ID },
    );
    expect(worstCaseInputTokens(accented) - worstCaseInputTokens(plain)).toBe(100);
    expect(worstCaseCost(input, PRIMARY_MODEL_ID, 512, MODEL_PRICES)).toBe(
      costOf(PRIMARY_MODEL_ID, { inputTokens: worstCaseInputTokens(input), outputTokens: 512 }),
    );
  });
});

describe('analyzeStage: the call ledger', () => {
  it('reuses done and failed entries of the same request, calling only the rest', async () => {
    const [a, b, c] = [clause(1), clause(2), clause(3)];
    arrange({
      existing: [
        { sk: callSk(3, a.id, liability.id), status: 'done', idempotencyKey: idempotencyKey(liability, a) },
        { sk: callSk(3, b.id, liability.id), status: 'failed', idempotencyKey: idempotencyKey(liability, b) },
        { sk: callSk(3, c.id, liability.id), status: 'done', idempotencyKey: 'an-older-prompt' },
      ],
    });
    const outcome = await run([a, b, c]);
    expect(outcome).toMatchObject({ kind: 'done', counts: { done: 1, reused: 2, failed: 0, retries: 0 } });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(1);
    expect(events).toEqual(['take', 'intents:1', 'gate', call(), 'settle:done', 'return']);
  });

  it('asks no analyst the relevance screen left out of a clause, and counts it as no call at all', async () => {
    const [a, b] = [clause(1), clause(2)];
    arrange();
    const outcome = await run([a, b], {
      analysts: [liability, riskTransfer],
      deps: { screened: { [a.id]: [riskTransfer.id], [b.id]: [liability.id, riskTransfer.id] } },
    });
    expect(outcome).toMatchObject({ kind: 'done', counts: { done: 1, reused: 0, failed: 0, skipped: 0 } });
    const inputs = converseInputs();
    expect(inputs).toHaveLength(1);
    const [only] = inputs;
    expect(JSON.stringify(only?.messages)).toContain(JSON.stringify(a.text).slice(1, -1));
    expect(JSON.stringify(only?.messages)).not.toContain(JSON.stringify(b.text).slice(1, -1));
    expect(JSON.stringify(only?.system)).toContain(
      JSON.stringify(liability.systemPrompt.slice(0, 80)).slice(1, -1),
    );
    expect(events.filter((e) => e.startsWith('intents:'))).toEqual(['intents:1']);
  });

  it("reads no ledger on a chunk's first claim, when no earlier holder can have written to it", async () => {
    arrange();
    const outcome = await analyzeStage(
      job,
      { ...lease, attempts: 1 },
      checkpoint,
      [clause(1)],
      [liability],
      deps(),
      new ChunkStop(),
    );
    expect(outcome.kind).toBe('done');
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
    await run([clause(1)]);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(1);
  });

  it('writes the intents before any call, then settles each answered call once with its answer', async () => {
    arrange();
    const outcome = await run([clause(1), clause(2)], { analysts: [liability, riskTransfer] });
    expect(outcome.kind).toBe('done');
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(4);
    expect(events.indexOf('intents:4')).toBeLessThan(events.indexOf(call()));
    expect(events.filter((e) => e === 'settle:done')).toHaveLength(4);
    expect(events.filter((e) => e.startsWith('intents'))).toEqual(['intents:4']);
    const keys = settlements().map((s) => s.Key?.sk);
    expect(new Set(keys)).toEqual(
      new Set([
        callSk(3, 'c0001', liability.id),
        callSk(3, 'c0001', riskTransfer.id),
        callSk(3, 'c0002', liability.id),
        callSk(3, 'c0002', riskTransfer.id),
      ]),
    );
    const first = settlements()[0];
    expect(first?.ConditionExpression).toBe('ownerFence = :owner');
    expect(first?.ExpressionAttributeValues).toMatchObject({
      ':owner': 'worker-a:4',
      ':attempts': 1,
      ':checkedAt': NOW,
    });
    expect(JSON.parse(String(first?.ExpressionAttributeValues?.[':result']))).toHaveProperty('assessments');
    expect(outcome.kind).toBe('done');
  });

  it('fails a call on an unpriced model at once, after its intent, without calling Bedrock', async () => {
    arrange();
    const outcome = await run([clause(1)], {
      analysts: [{ ...liability, modelId: 'no.such-model', fallbackModelId: 'no.such-model' }],
    });
    expect(outcome).toMatchObject({ kind: 'done', counts: { failed: 1 } });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    expect(events).toEqual(['intents:1', 'settle:failed']);
    expect(settlements()[0]?.ExpressionAttributeValues).toMatchObject({
      ':failureKind': 'permanent',
      ':errorClass': 'logic',
    });
  });
});

describe('analyzeStage: tier-1 retries', () => {
  it('retries a transient error after a full-jitter wait, writing only once it is answered', async () => {
    arrange({ bedrock: (input, n) => (n <= 2 ? unavailable() : validAnswer(input)) });
    const outcome = await run([clause(1)]);
    expect(outcome).toMatchObject({ kind: 'done', counts: { done: 1, retries: 2 } });
    expect(events).toEqual([
      'take',
      'intents:1',
      'gate',
      call(),
      'gate',
      call(),
      'gate',
      call(),
      'settle:done',
      'return',
    ]);
    // random() = 0.5: half of the 1 s and 2 s ceilings, waiting on the stage's halt signal.
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([500, 1000]);
    expect(settlements()[0]?.ExpressionAttributeValues?.[':attempts']).toBe(3);
  });

  it('gives up after three retries, leaving the call retryable for tier 2', async () => {
    arrange({ bedrock: () => unavailable() });
    const outcome = await run([clause(1)]);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(4);
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([500, 1000, 2000]);
    expect(outcome).toEqual({
      kind: 'retry',
      reason: expect.stringContaining('1 call(s) out of tier-1 retries; first: c0001/liability-counsel'),
    });
    expect(events.filter((e) => e.startsWith('settle'))).toEqual(['settle:retryable']);
    expect(settlements()[0]?.ExpressionAttributeValues).toMatchObject({
      ':attempts': 4,
      ':errorClass': 'transient',
    });
  });

  it('starts no retry that would begin past the total cap', async () => {
    arrange({
      bedrock: () => {
        clock += 29_800;
        return unavailable();
      },
    });
    const outcome = await run([clause(1)]);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(1);
    expect(sleep).not.toHaveBeenCalled();
    expect(outcome.kind).toBe('retry');
  });

  it.each([
    ['ValidationException', () => new ValidationException({ message: 'Malformed input request', ...meta })],
    ['AccessDeniedException', () => new AccessDeniedException({ message: 'not authorized', ...meta })],
  ])('fails the call at once on %s', async (name, error) => {
    arrange({ bedrock: () => error() });
    const outcome = await run([clause(1)]);
    expect(outcome).toMatchObject({ kind: 'done', counts: { done: 0, failed: 1, retries: 0 } });
    expect(sleep).not.toHaveBeenCalled();
    const values = settlements()[0]?.ExpressionAttributeValues;
    expect(values).toMatchObject({
      ':status': 'failed',
      ':failureKind': 'permanent',
      ':errorClass': 'logic',
    });
    expect(String(values?.[':lastError'])).toContain(name);
  });

  it('switches to the fallback model after two consecutive throttles, and records it', async () => {
    arrange({ bedrock: (input, n) => (n <= 2 ? throttle() : validAnswer(input)) });
    const outcome = await run([clause(1)]);
    expect(converseInputs().map((i) => i.modelId)).toEqual([
      PRIMARY_MODEL_ID,
      PRIMARY_MODEL_ID,
      FALLBACK_MODEL_ID,
    ]);
    expect(outcome).toMatchObject({ counts: { done: 1, retries: 2 } });
    expect(settlements().at(-1)?.ExpressionAttributeValues?.[':modelId']).toBe(FALLBACK_MODEL_ID);
  });

  it('counts only consecutive throttles toward the fallback', async () => {
    arrange({ bedrock: (input, n) => [throttle(), unavailable(), throttle()][n - 1] ?? validAnswer(input) });
    const outcome = await run([clause(1)]);
    expect(converseInputs().map((i) => i.modelId)).toEqual(Array(4).fill(PRIMARY_MODEL_ID));
    expect(outcome).toMatchObject({ counts: { done: 1, retries: 3 } });
  });
});

describe('analyzeStage: invalid answers', () => {
  it.each(['refusal', 'content_filtered', 'guardrail_intervened'])(
    'fails a call the model declined (%s) once, billed, with no repair retry',
    async (stopReason) => {
      arrange({ bedrock: () => ({ ...PROSE_ANSWER, stopReason }) as never });
      const outcome = await run([clause(1)]);
      expect(outcome).toMatchObject({ kind: 'done', counts: { done: 0, failed: 1 } });
      expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(1);
      const [only] = settlements();
      expect(only?.ExpressionAttributeValues).toMatchObject({
        ':status': 'failed',
        ':failureKind': 'refused',
        ':stopReason': stopReason,
        ':cost': costOf(PRIMARY_MODEL_ID, USAGE),
      });
    },
  );

  it('records cached input tokens and bills them at the cache prices', async () => {
    const cached = {
      inputTokens: 300,
      outputTokens: 120,
      cacheReadInputTokens: 4200,
      cacheWriteInputTokens: 0,
    };
    arrange({
      bedrock: (input) => ({ ...validAnswer(input), usage: { ...cached, totalTokens: 4620 } }) as never,
    });
    await run([clause(1)]);
    expect(settlements()[0]?.ExpressionAttributeValues).toMatchObject({
      ':cacheReadInputTokens': 4200,
      ':cost': costOf(PRIMARY_MODEL_ID, cached),
    });
  });

  it('makes one repair retry with the validation error appended, billing both attempts', async () => {
    arrange({ bedrock: (input, n) => (n === 1 ? PROSE_ANSWER : validAnswer(input)) });
    const outcome = await run([clause(1)]);
    expect(outcome).toMatchObject({ kind: 'done', counts: { done: 1, retries: 0 } });
    // The repair attempt's larger worst case needs more of the allotment than the first left.
    expect(events).toEqual([
      'take',
      'intents:1',
      'gate',
      call(),
      'settle:in-flight',
      'take',
      'gate',
      call(),
      'settle:done',
      'return',
    ]);
    const repair = converseInputs()[1];
    expect(repair?.messages).toHaveLength(3);
    expect(repair?.messages?.[1]).toEqual({
      role: 'assistant',
      content: [{ text: 'This clause looks fine to me.' }],
    });
    expect(repair?.messages?.[2]?.content?.[0]?.text ?? '').toContain('Your previous answer was rejected');
    const [first, second] = settlements();
    const one = costOf(PRIMARY_MODEL_ID, USAGE);
    // The first write keeps the entry an intent, for the repair attempt's (larger) worst case.
    expect(first?.ExpressionAttributeValues).toMatchObject({ ':cost': one, ':attempts': 1 });
    expect(Number(first?.ExpressionAttributeValues?.[':reservation'])).toBeGreaterThan(0);
    expect(second?.ExpressionAttributeValues).toMatchObject({
      ':cost': 2 * one,
      ':attempts': 2,
      ':inputTokens': 1800,
    });
  });

  it('records the call failed (validation) when the repaired answer is invalid too, with no third call', async () => {
    arrange({ bedrock: () => PROSE_ANSWER });
    const outcome = await run([clause(1)]);
    expect(outcome).toMatchObject({ counts: { done: 0, failed: 1 } });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(2);
    expect(settlements().at(-1)?.ExpressionAttributeValues).toMatchObject({
      ':status': 'failed',
      ':failureKind': 'validation',
      ':errorClass': 'validation',
    });
  });
});

describe('analyzeStage: stopping', () => {
  it('starts no call once the gate reads the job cancelled, and lists the calls not started', async () => {
    arrange({ gate: (n) => (n >= 2 ? { status: 'cancelled' } : {}) });
    const outcome = await run([clause(1), clause(2), clause(3)], { deps: { semaphore: new Semaphore(1) } });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(1);
    expect(outcome).toEqual({
      kind: 'cancelled',
      counts: expect.objectContaining({ done: 1, cancelled: 2 }),
      unstarted: {
        reason: 'cancelled',
        calls: [
          { clauseId: 'c0002', analystId: liability.id },
          { clauseId: 'c0003', analystId: liability.id },
        ],
      },
    });
    // The money goes back, then the intents written ahead for the two calls never started end.
    expect(events.slice(-3)).toEqual(['return', 'retire:c0002', 'retire:c0003']);
  });

  it('skips every call once the ceiling is reached, listing them for one write', async () => {
    arrange({ refuseAllotments: { budgetExceededAt: new Date(NOW).toISOString() } });
    const outcome = await run([clause(1), clause(2)]);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    expect(outcome).toMatchObject({
      kind: 'done',
      counts: { skipped: 2, done: 0 },
      unstarted: { reason: 'budget', calls: [{ clauseId: 'c0001' }, { clauseId: 'c0002' }] },
    });
    expect(events.filter((e) => e.startsWith('intents') || e.startsWith('settle'))).toEqual([]);
  });

  it('stops as lease-lost, starting nothing more, when the stage is stopped as lease-lost mid-call', async () => {
    const stop = new ChunkStop();
    arrange({
      bedrock: (input, n) => {
        if (n === 1) stop.stop('lease-lost');
        return validAnswer(input);
      },
    });
    const outcome = await run([clause(1), clause(2), clause(3)], {
      stop,
      deps: { semaphore: new Semaphore(1) },
    });
    expect(outcome).toEqual({ kind: 'lease-lost' });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(1);
  });

  it('stops as lease-lost when a settlement finds the entry taken over', async () => {
    arrange();
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'no', ...meta }));
    expect(await run([clause(1)])).toEqual({ kind: 'lease-lost' });
  });

  it('starts no call when the lease is about to run out', async () => {
    arrange();
    const outcome = await run([clause(1)], { deps: { leaseMarginMs: 120_000 } });
    expect(outcome).toEqual({ kind: 'lease-lost' });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    // Nor does it write the call's intent: a successor may hold the chunk's entries by now.
    expect(events.filter((e) => e.startsWith('intents'))).toEqual([]);
  });

  it('does not hide a failing ledger write', async () => {
    arrange();
    ddb
      .on(UpdateCommand)
      .rejects(Object.assign(new Error('table gone'), { name: 'ResourceNotFoundException' }));
    await expect(run([clause(1)])).rejects.toThrow('table gone');
  });

  it('keeps at most `semaphore` model calls in flight', async () => {
    arrange();
    const converse = inFlightPeak(
      (input: ConverseCommandInput) => validAnswer(input),
      () => new Promise((r) => setTimeout(r, 2)),
    );
    bedrock.on(ConverseCommand).callsFake(converse.fake);
    await run(
      Array.from({ length: 10 }, (_, i) => clause(i + 1)),
      { deps: { semaphore: new Semaphore(3) } },
    );
    expect(converse.peak()).toBe(3);
  });
});

describe('analyzeStage: the model limiter', () => {
  it("takes a permit in the job's lane per call, gives it back, and reports throttles to the model's limiter", async () => {
    const limiters = new LimiterRegistry({ initial: 10, windowMs: 1e9, now: () => clock });
    arrange({ bedrock: (input, n) => (n === 1 ? throttle() : validAnswer(input)) });
    const outcome = await run([clause(1)], { deps: { limiters, lane: 'batch' } });
    expect(outcome).toMatchObject({ counts: { done: 1, retries: 1 } });
    const stats = limiters.for(PRIMARY_MODEL_ID).stats();
    expect(stats.active).toBe(0);
    expect(stats.throttles).toBe(1);
    expect(stats.calls).toBe(2);
    expect(stats.granted).toMatchObject({ batch: 2, realtime: 0 });
  });

  /**
   * Two calls through one permit. The first call's answer comes once its job has been read
   * again while it was out (the second call, next in line, keeps the reading fresh), and takes
   * `latencyMs` on the clock. Returns the events from the first request on.
   */
  async function twoCallsThroughOnePermit(latencyMs: number) {
    const limiters = new LimiterRegistry({ initial: 1, windowMs: 1e9, now: () => clock });
    arrange();
    let readDuringCall: (() => void) | undefined;
    ddb.on(GetCommand).callsFake(() => {
      events.push('gate');
      readDuringCall?.();
      return { Item: { status: 'running' } };
    });
    bedrock.on(ConverseCommand).callsFake(async (input: ConverseCommandInput) => {
      events.push('converse');
      if (events.filter((e) => e === 'converse').length === 1) {
        clock += 1;
        await new Promise<void>((resolve) => {
          readDuringCall = resolve;
        });
        readDuringCall = undefined;
        clock += latencyMs;
      }
      events.push('answered');
      return validAnswer(input);
    });
    const gate = new JobGate(
      () => new Jobs(db, TABLE, () => clock).gate(job.jobId),
      () => clock,
      1,
    );
    const outcome = await run([clause(1), clause(2)], { deps: { limiters, gate } });
    expect(outcome).toMatchObject({ counts: { done: 2 } });
    const trail = events.filter((e) => ['gate', 'converse', 'answered'].includes(e));
    return trail.slice(trail.indexOf('converse'));
  }

  it('reads the job for the call next in line while the permit is still in use, and starts it on that reading', async () => {
    const trail = await twoCallsThroughOnePermit(50);
    const second = trail.lastIndexOf('converse');
    expect(trail.slice(0, 2)).toEqual(['converse', 'gate']);
    // No read between the permit and the request.
    expect(trail.slice(second - 1)).toEqual(['answered', 'converse', 'answered']);
  });

  it(`reads again when the permit comes more than ${GATE_LOOKAHEAD_MS} ms after the newest reading began`, async () => {
    const trail = await twoCallsThroughOnePermit(GATE_LOOKAHEAD_MS + 1);
    const second = trail.lastIndexOf('converse');
    expect(trail.slice(second - 2)).toEqual(['answered', 'gate', 'converse', 'answered']);
  });
});
