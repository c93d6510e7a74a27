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
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { analystById, buildConverseInput } from '../../lambdas/core/analysts/index.js';
import type { Clause } from '../../lambdas/core/model.js';
import { costOf, FALLBACK_MODEL_ID, MODEL_PRICES, PRIMARY_MODEL_ID } from '../../lambdas/core/models.js';
import { CallLedger } from '../../lambdas/core/state/call-ledger.js';
import type { Lease } from '../../lambdas/core/state/claims.js';
import type { Job } from '../../lambdas/core/state/jobs.js';
import { callSk } from '../../lambdas/core/state/keys.js';
import {
  type AnalyzeDeps,
  analyzeChunk,
  idempotencyKey,
  worstCaseInputTokens,
} from '../../lambdas/core/worker/analyze-stage.js';
import { DEFAULT_BACKOFF } from '../../lambdas/core/worker/backoff.js';
import { LimiterRegistry } from '../../lambdas/core/worker/limiter.js';
import { Semaphore } from '../../lambdas/core/worker/semaphore.js';

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

const job: Job = {
  jobId: 'job-1',
  status: 'running',
  lane: 'realtime',
  bucket: 'intake',
  key: 'msa.txt',
  analysts: ['liability-counsel'],
  chunkCount: 4,
  clauseCount: 12,
  callsPlanned: 12,
  chunksTerminal: 0,
  chunksDone: 0,
  costLimit: 5_000_000,
  costCommitted: 0,
  costReserved: 0,
  costSpent: 0,
  createdAt: new Date(NOW).toISOString(),
  updatedAt: new Date(NOW).toISOString(),
  deadline: NOW + 3_600_000,
};

const lease: Lease = {
  jobId: 'job-1',
  chunk: 3,
  stage: 'analyze',
  workerId: 'worker-a',
  fence: 4,
  attempts: 1,
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
    properties: { assessments: { required: string[] } };
  };
  const assessments = Object.fromEntries(
    schema.properties.assessments.required.map((id) => [id, { score: null, findings: [] }]),
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

function transactionCancelled(codes: string[]): TransactionCanceledException {
  return new TransactionCanceledException({
    message: `Transaction cancelled [${codes.join(', ')}]`,
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
}

/** What the table says when a reservation is refused. */
interface Refusal {
  /** The cancellation reasons of the refused transaction. */
  readonly codes: string[];
  /** The job item the ledger reads to explain the refusal. */
  readonly job?: Partial<Job>;
  /** Refuse from this reservation on (1-based). @default 1 */
  readonly from?: number;
  /** Refuse up to this reservation (1-based), accepting the later ones. @default every one */
  readonly until?: number;
  /** Refuse only while this holds (e.g. once a cancel has been recorded). @default always */
  readonly when?: () => boolean;
}

interface Scenario {
  /** Ledger entries already in the table. */
  readonly existing?: Record<string, unknown>[];
  /** Bedrock's behaviour for the n-th call (1-based): an answer or an error. */
  readonly bedrock?: (input: ConverseCommandInput, n: number) => ConverseCommandOutput | Error;
  readonly refusal?: Refusal;
}

/** Every ledger write and model call, in order, as short labels. */
let events: string[] = [];
let clock = NOW;

function labelOf(input: TransactWriteCommandInput): string {
  const items = input.TransactItems ?? [];
  if (items.some((item) => item.ConditionCheck)) return 'reserve';
  const entry = items.find((item) => String(item.Update?.Key?.sk).startsWith('CALL#'))?.Update;
  const status = entry?.ExpressionAttributeValues?.[':status'] ?? 'open';
  if (entry?.UpdateExpression?.includes('inputTokens')) return `answered:${status}`;
  const released = items.some((item) => item.Update?.Key?.sk === 'JOB');
  return `unanswered:${status}${released ? '' : ' (nothing reserved)'}`;
}

function arrange(scenario: Scenario = {}) {
  let reservations = 0;
  let calls = 0;
  ddb
    .on(QueryCommand)
    .callsFake((input) =>
      input.ExpressionAttributeValues?.[':sk'] === 'JOB'
        ? { Items: [{ ...job, ...scenario.refusal?.job }] }
        : { Items: scenario.existing ?? [] },
    );
  ddb.on(UpdateCommand).resolves({});
  ddb.on(TransactWriteCommand).callsFake((input: TransactWriteCommandInput) => {
    const label = labelOf(input);
    events.push(label);
    if (label === 'reserve') {
      reservations++;
      const refusal = scenario.refusal;
      if (
        refusal &&
        reservations >= (refusal.from ?? 1) &&
        reservations <= (refusal.until ?? Number.POSITIVE_INFINITY) &&
        (refusal.when?.() ?? true)
      ) {
        throw transactionCancelled(refusal.codes);
      }
    }
    return {};
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
  return {
    bedrock: bedrockClient,
    ledger: new CallLedger(db, TABLE, () => clock),
    semaphore: new Semaphore(4),
    backoff: DEFAULT_BACKOFF,
    prices: MODEL_PRICES,
    modelTimeoutMs: 600_000,
    random: () => 0.5,
    sleep,
    now: () => clock,
    ...overrides,
  };
}

function run(
  clauses: readonly Clause[],
  options: { analysts?: (typeof liability)[]; deps?: Partial<AnalyzeDeps>; signal?: AbortSignal } = {},
) {
  return analyzeChunk(
    job,
    lease,
    clauses,
    options.analysts ?? [liability],
    deps(options.deps),
    options.signal ?? new AbortController().signal,
  );
}

function transactions(): TransactWriteCommandInput[] {
  return ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input);
}

function converseInputs(): ConverseCommandInput[] {
  return bedrock.commandCalls(ConverseCommand).map((c) => c.args[0].input);
}

/** The job item's update inside a ledger transaction. */
function jobUpdate(tx: TransactWriteCommandInput | undefined) {
  return tx?.TransactItems?.find((item) => item.Update?.Key?.sk === 'JOB')?.Update;
}

function entryUpdate(tx: TransactWriteCommandInput | undefined) {
  return tx?.TransactItems?.find((item) => String(item.Update?.Key?.sk).startsWith('CALL#'))?.Update;
}

/** Lets pending promise callbacks (and mocked SDK sends) run. */
const flush = async (rounds = 5): Promise<void> => {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** Limiters on the test clock, with windows too long to move the limit unless a throttle does. */
function limiters(initial = 10): LimiterRegistry {
  return new LimiterRegistry({ initial, windowMs: 1e9, now: () => clock });
}

/** A refusal by the job item of a running job whose settled spend leaves room: calls in flight hold it. */
const CONTENDED = ['None', 'ConditionalCheckFailed', 'None'];
const contendedJob: Partial<Job> = {
  costCommitted: job.costLimit,
  costReserved: job.costLimit,
  costSpent: 0,
};

beforeEach(() => {
  ddb.reset();
  bedrock.reset();
  sleep.mockClear();
  events = [];
  clock = NOW;
});

describe('idempotencyKey and worstCaseInputTokens', () => {
  it('gives the same call the same key, and a changed prompt version, model or clause another', () => {
    const c = clause(1);
    const key = idempotencyKey(liability, c);
    expect(idempotencyKey(liability, { ...c, id: 'c0099', index: 98 })).toBe(key);
    expect(idempotencyKey({ ...liability, promptVersion: 'v2' }, c)).not.toBe(key);
    expect(idempotencyKey({ ...liability, modelId: 'other' }, c)).not.toBe(key);
    expect(idempotencyKey(liability, { ...c, text: `${c.text} ` })).not.toBe(key);
    expect(idempotencyKey(riskTransfer, c)).not.toBe(key);
  });

  it('bounds the input tokens by the UTF-8 size of everything sent', () => {
    const input = buildConverseInput(liability, clause(1), { modelId: PRIMARY_MODEL_ID });
    const bytes = Buffer.byteLength(
      JSON.stringify({ s: input.system, m: input.messages, t: input.toolConfig }),
      'utf8',
    );
    expect(worstCaseInputTokens(input)).toBeGreaterThan(bytes);
    const accented = buildConverseInput(
      liability,
      { ...clause(1), text: 'é'.repeat(100) },
      {
        modelId: PRIMARY_MODEL_ID,
      },
    );
    const plain = buildConverseInput(
      liability,
      { ...clause(1), text: 'e'.repeat(100) },
      {
        modelId: PRIMARY_MODEL_ID,
      },
    );
    expect(worstCaseInputTokens(accented) - worstCaseInputTokens(plain)).toBe(100);
  });
});

describe('analyzeChunk: the call ledger', () => {
  it('reuses done and failed entries of the same call without reserving or calling Bedrock', async () => {
    const [a, b] = [clause(1), clause(2)];
    arrange({
      existing: [
        { sk: callSk(3, a.id, liability.id), status: 'done', idempotencyKey: idempotencyKey(liability, a) },
        { sk: callSk(3, b.id, liability.id), status: 'failed', idempotencyKey: idempotencyKey(liability, b) },
      ],
    });
    const outcome = await run([a, b]);
    expect(outcome).toEqual({
      exhausted: [],
      counts: { done: 0, reused: 2, failed: 0, skipped: 0, retries: 0 },
    });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    expect(transactions()).toHaveLength(0);
    const read = ddb.commandCalls(QueryCommand)[0]?.args[0].input;
    expect(read?.ExpressionAttributeValues).toEqual({ ':pk': 'JOB#job-1', ':prefix': 'CALL#0003#' });
  });

  it('calls again entries that are unfinished or belong to another prompt version', async () => {
    const [a, b, c] = [clause(1), clause(2), clause(3)];
    arrange({
      existing: [
        {
          sk: callSk(3, a.id, liability.id),
          status: 'in-flight',
          idempotencyKey: idempotencyKey(liability, a),
        },
        {
          sk: callSk(3, b.id, liability.id),
          status: 'retryable',
          idempotencyKey: idempotencyKey(liability, b),
        },
        { sk: callSk(3, c.id, liability.id), status: 'done', idempotencyKey: 'answer-to-an-older-prompt' },
      ],
    });
    const outcome = await run([a, b, c]);
    expect(outcome.counts).toMatchObject({ done: 3, reused: 0 });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(3);
  });

  it('makes one call per clause and analyst, keyed by chunk, clause and analyst', async () => {
    arrange();
    const outcome = await run([clause(1), clause(2)], { analysts: [liability, riskTransfer] });
    expect(outcome.counts).toEqual({ done: 4, reused: 0, failed: 0, skipped: 0, retries: 0 });
    const keys = transactions()
      .filter((tx) => labelOf(tx) === 'reserve')
      .map((tx) => entryUpdate(tx)?.Key?.sk)
      .sort();
    expect(keys).toEqual([
      'CALL#0003#c0001#liability-counsel',
      'CALL#0003#c0001#risk-transfer',
      'CALL#0003#c0002#liability-counsel',
      'CALL#0003#c0002#risk-transfer',
    ]);
  });
});

describe('analyzeChunk: budget reservations', () => {
  it("reserves the call's worst-case cost before calling, and settles the actual cost after", async () => {
    const c = clause(1);
    const onCallStart = vi.fn((_call: unknown, _model: string) => events.push('start'));
    arrange();
    await run([c], { deps: { onCallStart } });
    expect(events).toEqual(['reserve', 'start', `converse:${PRIMARY_MODEL_ID}`, 'answered:done']);

    const input = buildConverseInput(liability, c, { modelId: PRIMARY_MODEL_ID });
    const estimate = costOf(PRIMARY_MODEL_ID, {
      inputTokens: worstCaseInputTokens(input),
      outputTokens: liability.maxTokens,
    });
    const cost = costOf(PRIMARY_MODEL_ID, USAGE);
    const [reserve, settle] = transactions();
    expect(jobUpdate(reserve)?.ExpressionAttributeValues).toMatchObject({
      ':est': estimate,
      ':room': job.costLimit - estimate,
    });
    expect(reserve?.TransactItems?.[0]?.ConditionCheck?.ExpressionAttributeValues).toEqual({
      ':me': 'worker-a',
      ':fence': 4,
    });
    expect(jobUpdate(settle)?.ExpressionAttributeValues).toEqual({
      ':delta': cost - estimate,
      ':est': estimate,
      ':cost': cost,
    });
    expect(cost).toBeLessThan(estimate);
    expect(onCallStart).toHaveBeenCalledWith(
      expect.objectContaining({ jobId: 'job-1', chunk: 3, clauseId: c.id, analystId: liability.id }),
      PRIMARY_MODEL_ID,
    );
    expect(converseInputs()[0]).toEqual(input);
  });

  it('skips a call refused for budget, recording it failed without calling Bedrock, and goes on', async () => {
    arrange({
      refusal: {
        codes: ['None', 'ConditionalCheckFailed', 'None'],
        job: { costCommitted: job.costLimit, costSpent: job.costLimit },
      },
    });
    const outcome = await run([clause(1), clause(2)], { deps: { semaphore: new Semaphore(1) } });
    expect(outcome.stopped).toBeUndefined();
    expect(outcome.counts).toEqual({ done: 0, reused: 0, failed: 0, skipped: 2, retries: 0 });
    expect(events).toEqual([
      'reserve',
      'unanswered:failed (nothing reserved)',
      'reserve',
      'unanswered:failed (nothing reserved)',
    ]);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    const entry = entryUpdate(transactions()[1]);
    expect(entry?.ExpressionAttributeValues).toMatchObject({ ':kind': 'budget', ':class': 'logic' });
    expect(entry?.ExpressionAttributeValues?.[':err']).toContain('cost ceiling of 5000000 micro-USD');
  });

  it('starts no new call once a reservation finds the job cancelled', async () => {
    arrange({ refusal: { codes: ['None', 'ConditionalCheckFailed', 'None'], job: { status: 'cancelled' } } });
    const outcome = await run([clause(1), clause(2), clause(3)], { deps: { semaphore: new Semaphore(1) } });
    expect(outcome.stopped).toBe('cancelled');
    expect(events).toEqual(['reserve']);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
  });

  it('stops after the calls already made when the cancel arrives mid-chunk', async () => {
    arrange({
      refusal: { codes: ['None', 'ConditionalCheckFailed', 'None'], job: { status: 'cancelled' }, from: 2 },
    });
    const outcome = await run([clause(1), clause(2), clause(3)], { deps: { semaphore: new Semaphore(1) } });
    expect(outcome.stopped).toBe('cancelled');
    expect(outcome.counts.done).toBe(1);
    expect(events).toEqual(['reserve', `converse:${PRIMARY_MODEL_ID}`, 'answered:done', 'reserve']);
  });

  it('stops as cancelled when the job is no longer running for another reason', async () => {
    arrange({
      refusal: { codes: ['None', 'ConditionalCheckFailed', 'None'], job: { status: 'incomplete' } },
    });
    const outcome = await run([clause(1)]);
    expect(outcome.stopped).toBe('cancelled');
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
  });

  it('stops as lease-lost when the fence check of the reservation fails', async () => {
    arrange({ refusal: { codes: ['ConditionalCheckFailed', 'None', 'None'] } });
    const outcome = await run([clause(1), clause(2)], { deps: { semaphore: new Semaphore(1) } });
    expect(outcome.stopped).toBe('lease-lost');
    expect(events).toEqual(['reserve']);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
  });

  it('fails a call on an unpriced model without reserving or calling it', async () => {
    arrange();
    const outcome = await run([clause(1)], { deps: { prices: {} } });
    expect(outcome.counts).toMatchObject({ failed: 1, done: 0 });
    expect(events).toEqual(['unanswered:failed (nothing reserved)']);
    const entry = entryUpdate(transactions()[0]);
    expect(entry?.ExpressionAttributeValues).toMatchObject({ ':kind': 'permanent', ':class': 'logic' });
    expect(entry?.ExpressionAttributeValues?.[':err']).toContain('UnpricedModelError');
  });
});

describe('analyzeChunk: tier-1 retries', () => {
  it('retries a transient error after a full-jitter wait, reserving and settling every attempt', async () => {
    arrange({ bedrock: (input, n) => (n <= 2 ? unavailable() : validAnswer(input)) });
    const outcome = await run([clause(1)]);
    expect(outcome.counts).toEqual({ done: 1, reused: 0, failed: 0, skipped: 0, retries: 2 });
    const call = `converse:${PRIMARY_MODEL_ID}`;
    expect(events).toEqual([
      'reserve',
      call,
      'unanswered:retryable',
      'reserve',
      call,
      'unanswered:retryable',
      'reserve',
      call,
      'answered:done',
    ]);
    // random() = 0.5: half of the 1 s and 2 s ceilings, waiting on the stage's halt signal.
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([500, 1000]);
    expect(sleep.mock.calls[0]?.[1]).toBeInstanceOf(AbortSignal);
    const released = jobUpdate(transactions()[1]);
    expect(released?.UpdateExpression).toBe(
      'SET costCommitted = costCommitted - :est, costReserved = costReserved - :est',
    );
  });

  it('gives up after three retries, leaving the call retryable for tier 2', async () => {
    arrange({ bedrock: () => unavailable() });
    const c = clause(1);
    const outcome = await run([c]);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(4);
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([500, 1000, 2000]);
    expect(outcome.exhausted).toEqual([
      {
        call: expect.objectContaining({ clauseId: c.id, analystId: liability.id }),
        error: 'ServiceUnavailableException: Service unavailable',
      },
    ]);
    expect(outcome.counts).toEqual({ done: 0, reused: 0, failed: 0, skipped: 0, retries: 3 });
    expect(events.filter((e) => e.startsWith('unanswered'))).toEqual(Array(4).fill('unanswered:retryable'));
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
    expect(outcome.exhausted).toHaveLength(1);
  });

  it.each([
    ['ValidationException', () => new ValidationException({ message: 'Malformed input request', ...meta })],
    ['AccessDeniedException', () => new AccessDeniedException({ message: 'not authorized', ...meta })],
  ])('fails the call at once on %s, releasing its reservation', async (name, error) => {
    arrange({ bedrock: () => error() });
    const outcome = await run([clause(1)]);
    expect(outcome.counts).toEqual({ done: 0, reused: 0, failed: 1, skipped: 0, retries: 0 });
    expect(outcome.exhausted).toEqual([]);
    expect(events).toEqual(['reserve', `converse:${PRIMARY_MODEL_ID}`, 'unanswered:failed']);
    expect(sleep).not.toHaveBeenCalled();
    const entry = entryUpdate(transactions()[1]);
    expect(entry?.ExpressionAttributeValues).toMatchObject({ ':kind': 'permanent', ':class': 'logic' });
    expect(entry?.ExpressionAttributeValues?.[':err']).toContain(name);
    expect(jobUpdate(transactions()[1])).toBeDefined();
  });

  it('switches to the fallback model after two consecutive throttles, and prices it as such', async () => {
    arrange({ bedrock: (input, n) => (n <= 2 ? throttle() : validAnswer(input)) });
    const outcome = await run([clause(1)]);
    expect(converseInputs().map((i) => i.modelId)).toEqual([
      PRIMARY_MODEL_ID,
      PRIMARY_MODEL_ID,
      FALLBACK_MODEL_ID,
    ]);
    expect(outcome.counts).toMatchObject({ done: 1, retries: 2 });
    const reservations = transactions().filter((tx) => labelOf(tx) === 'reserve');
    const fallbackInput = converseInputs()[2] as ConverseCommandInput;
    expect(jobUpdate(reservations[2])?.ExpressionAttributeValues?.[':est']).toBe(
      costOf(FALLBACK_MODEL_ID, {
        inputTokens: worstCaseInputTokens(fallbackInput),
        outputTokens: liability.maxTokens,
      }),
    );
    const settled = transactions().at(-1);
    expect(entryUpdate(settled)?.ExpressionAttributeValues?.[':model']).toBe(FALLBACK_MODEL_ID);
  });

  it('counts only consecutive throttles toward the fallback', async () => {
    arrange({
      bedrock: (input, n) => [throttle(), unavailable(), throttle()][n - 1] ?? validAnswer(input),
    });
    const outcome = await run([clause(1)]);
    expect(converseInputs().map((i) => i.modelId)).toEqual(Array(4).fill(PRIMARY_MODEL_ID));
    expect(outcome.counts).toMatchObject({ done: 1, retries: 3 });
  });
});

describe('analyzeChunk: invalid answers', () => {
  it('makes one repair retry with the validation error appended, billing both attempts', async () => {
    arrange({ bedrock: (input, n) => (n === 1 ? PROSE_ANSWER : validAnswer(input)) });
    const outcome = await run([clause(1)]);
    expect(outcome.counts).toEqual({ done: 1, reused: 0, failed: 0, skipped: 0, retries: 0 });
    const call = `converse:${PRIMARY_MODEL_ID}`;
    expect(events).toEqual(['reserve', call, 'answered:open', 'reserve', call, 'answered:done']);
    const repair = converseInputs()[1];
    expect(repair?.messages).toHaveLength(3);
    expect(repair?.messages?.[1]).toEqual({
      role: 'assistant',
      content: [{ text: 'This clause looks fine to me.' }],
    });
    const hint = repair?.messages?.[2]?.content?.[0]?.text ?? '';
    expect(hint).toContain('Your previous answer was rejected');
    expect(hint).toContain('no tool call');
    expect(sleep).not.toHaveBeenCalled();
  });

  it('records the call failed (validation) when the repaired answer is invalid too, with no third call', async () => {
    arrange({ bedrock: () => PROSE_ANSWER });
    const outcome = await run([clause(1)]);
    expect(outcome.counts).toEqual({ done: 0, reused: 0, failed: 1, skipped: 0, retries: 0 });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(2);
    expect(events.at(-1)).toBe('answered:failed');
    expect(entryUpdate(transactions().at(-1))?.ExpressionAttributeValues).toMatchObject({
      ':kind': 'validation',
      ':class': 'validation',
    });
  });
});

describe('analyzeChunk: concurrency and stopping', () => {
  it('keeps at most `semaphore` model calls in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    arrange();
    bedrock.on(ConverseCommand).callsFake(async (input: ConverseCommandInput) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return validAnswer(input);
    });
    const outcome = await run([1, 2, 3, 4, 5, 6].map(clause), { deps: { semaphore: new Semaphore(2) } });
    expect(outcome.counts.done).toBe(6);
    expect(peak).toBe(2);
  });

  it('stops as lease-lost, starting nothing more, when the stage signal aborts mid-call', async () => {
    const controller = new AbortController();
    arrange({
      bedrock: () => {
        controller.abort();
        return new DOMException('This operation was aborted', 'AbortError');
      },
    });
    const outcome = await run([clause(1), clause(2)], {
      deps: { semaphore: new Semaphore(1) },
      signal: controller.signal,
    });
    expect(outcome.stopped).toBe('lease-lost');
    expect(events).toEqual(['reserve', `converse:${PRIMARY_MODEL_ID}`, 'unanswered:retryable']);
    expect(sleep).not.toHaveBeenCalled();
  });

  it('does not hide a failing ledger write', async () => {
    arrange();
    ddb.on(TransactWriteCommand).rejects(new Error('table is gone'));
    await expect(run([clause(1)])).rejects.toThrow('table is gone');
  });
});

describe('analyzeChunk: contended reservations', () => {
  it('asks again after a short wait while only reservations of calls in flight hold the room', async () => {
    arrange({ refusal: { codes: CONTENDED, job: contendedJob, until: 2 } });
    const registry = limiters();
    const outcome = await run([clause(1)], { deps: { limiters: registry } });
    expect(outcome).toEqual({
      exhausted: [],
      counts: { done: 1, reused: 0, failed: 0, skipped: 0, retries: 0 },
    });
    expect(events).toEqual([
      'reserve',
      'reserve',
      'reserve',
      `converse:${PRIMARY_MODEL_ID}`,
      'answered:done',
    ]);
    // 100 ms plus up to 400 ms of jitter (random() = 0.5), on the stage's halt signal.
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([300, 300]);
    expect(sleep.mock.calls[0]?.[1]).toBeInstanceOf(AbortSignal);
    // Contention is not the ceiling: the job is not marked over budget.
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    // No permit is held while it waits for room: one per attempt, the refused ones unused.
    expect(registry.stats()[PRIMARY_MODEL_ID]).toMatchObject({
      granted: { realtime: 3, batch: 0 },
      calls: 1,
      active: 0,
    });
  });

  it('treats the ceiling as reached once contention outlasts the tier-1 time cap', async () => {
    arrange({ refusal: { codes: CONTENDED, job: contendedJob } });
    const waits = vi.fn(async (ms: number, _signal?: AbortSignal) => {
      clock += ms;
    });
    const registry = limiters();
    const outcome = await run([clause(1)], {
      deps: { sleep: waits, backoff: { ...DEFAULT_BACKOFF, totalCapMs: 1_000 }, limiters: registry },
    });
    expect(outcome.stopped).toBeUndefined();
    expect(outcome.counts).toEqual({ done: 0, reused: 0, failed: 0, skipped: 1, retries: 0 });
    // Asked at 0, 300, 600, 900 and 1,200 ms: the last is past the 1 s cap.
    expect(waits).toHaveBeenCalledTimes(4);
    expect(events).toEqual([...Array(5).fill('reserve'), 'unanswered:failed (nothing reserved)']);
    expect(ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: TABLE,
        Key: { pk: 'JOB#job-1', sk: 'JOB' },
        UpdateExpression: 'SET budgetExceededAt = :at',
        ConditionExpression: 'attribute_not_exists(budgetExceededAt)',
        ExpressionAttributeValues: { ':at': new Date(NOW + 1_200).toISOString() },
      },
    ]);
    const entry = entryUpdate(transactions().at(-1));
    expect(entry?.ExpressionAttributeValues).toMatchObject({ ':status': 'failed', ':kind': 'budget' });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    expect(registry.stats()[PRIMARY_MODEL_ID]).toMatchObject({ calls: 0, active: 0 });
  });

  it('stops as lease-lost, giving its permit back unused, when the stage is halted while it waits for room', async () => {
    arrange({ refusal: { codes: CONTENDED, job: contendedJob } });
    const controller = new AbortController();
    const registry = limiters();
    const outcome = await run([clause(1)], {
      signal: controller.signal,
      deps: {
        limiters: registry,
        sleep: async (ms) => {
          clock += ms;
          controller.abort();
        },
      },
    });
    expect(outcome.stopped).toBe('lease-lost');
    expect(events).toEqual(['reserve']);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    expect(registry.stats()[PRIMARY_MODEL_ID]).toMatchObject({ calls: 0, active: 0 });
  });
});

describe('analyzeChunk: an entry finished by another holder', () => {
  it('counts it reused, without calling or settling, when the reservation finds it final', async () => {
    arrange({ refusal: { codes: ['None', 'None', 'ConditionalCheckFailed'] } });
    const registry = limiters();
    const outcome = await run([clause(1)], { deps: { limiters: registry } });
    expect(outcome).toEqual({
      exhausted: [],
      counts: { done: 0, reused: 1, failed: 0, skipped: 0, retries: 0 },
    });
    expect(events).toEqual(['reserve']);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    expect(registry.stats()[PRIMARY_MODEL_ID]).toMatchObject({ calls: 0, active: 0 });
  });
});

describe('analyzeChunk: the model limiter', () => {
  it("takes a permit in the job's lane for each call, and gives it back once the call is answered", async () => {
    arrange();
    const registry = limiters();
    const outcome = await run([clause(1), clause(2)], { deps: { limiters: registry, lane: 'batch' } });
    expect(outcome.counts.done).toBe(2);
    expect(registry.stats()[PRIMARY_MODEL_ID]).toMatchObject({
      granted: { realtime: 0, batch: 2 },
      calls: 2,
      throttles: 0,
      active: 0,
    });
  });

  it('uses the realtime lane when none is given', async () => {
    arrange();
    const registry = limiters();
    await run([clause(1)], { deps: { limiters: registry } });
    expect(registry.stats()[PRIMARY_MODEL_ID]?.granted).toEqual({ realtime: 1, batch: 0 });
  });

  it('waits for a permit before it reserves anything', async () => {
    arrange();
    const registry = limiters(1);
    const held = await registry.for(PRIMARY_MODEL_ID).acquire('realtime');
    const outcome = run([clause(1)], { deps: { limiters: registry } });
    await flush();
    expect(registry.for(PRIMARY_MODEL_ID).waiting).toBe(1);
    expect(events).toEqual([]);
    held.release();
    expect((await outcome).counts.done).toBe(1);
    expect(events).toEqual(['reserve', `converse:${PRIMARY_MODEL_ID}`, 'answered:done']);
  });

  it('makes no call when the job is cancelled while the call waits for a permit', async () => {
    let cancelRecorded = false;
    arrange({
      refusal: {
        codes: ['None', 'ConditionalCheckFailed', 'None'],
        job: { status: 'cancelled' },
        when: () => cancelRecorded,
      },
    });
    const registry = limiters(1);
    const limiter = registry.for(PRIMARY_MODEL_ID);
    // Another chunk's call holds the model's only permit.
    const held = await limiter.acquire('realtime');
    const outcome = run([clause(1)], { deps: { limiters: registry } });
    await flush();
    expect(limiter.waiting).toBe(1);
    cancelRecorded = true;
    held.release();
    expect((await outcome).stopped).toBe('cancelled');
    // Granted, then refused at the reservation, then given back without counting as a call.
    expect(events).toEqual(['reserve']);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    expect(limiter.stats()).toMatchObject({ granted: { realtime: 2, batch: 0 }, calls: 1, active: 0 });
  });

  it('gives the permit back unused when the reservation is refused for budget', async () => {
    arrange({
      refusal: {
        codes: ['None', 'ConditionalCheckFailed', 'None'],
        job: { costCommitted: job.costLimit, costSpent: job.costLimit },
      },
    });
    const registry = limiters();
    const outcome = await run([clause(1)], { deps: { limiters: registry } });
    expect(outcome.counts.skipped).toBe(1);
    expect(registry.stats()[PRIMARY_MODEL_ID]).toMatchObject({
      granted: { realtime: 1, batch: 0 },
      calls: 0,
      active: 0,
    });
  });

  it('gives the permit back unused when the reservation fails', async () => {
    arrange();
    ddb.on(TransactWriteCommand).rejects(new Error('table is gone'));
    const registry = limiters();
    await expect(run([clause(1)], { deps: { limiters: registry } })).rejects.toThrow('table is gone');
    expect(registry.stats()[PRIMARY_MODEL_ID]).toMatchObject({
      granted: { realtime: 1, batch: 0 },
      calls: 0,
      active: 0,
    });
  });

  it('reports throttles to the limiter of the model that throttled', async () => {
    arrange({ bedrock: (input, n) => (n <= 2 ? throttle() : validAnswer(input)) });
    const registry = limiters();
    const outcome = await run([clause(1)], { deps: { limiters: registry } });
    expect(outcome.counts).toMatchObject({ done: 1, retries: 2 });
    expect(registry.stats()[PRIMARY_MODEL_ID]).toMatchObject({ calls: 2, throttles: 2, active: 0 });
    expect(registry.for(PRIMARY_MODEL_ID).limit).toBeLessThan(10);
    // After two throttles the call moves to the fallback model, which has its own limiter.
    expect(registry.stats()[FALLBACK_MODEL_ID]).toMatchObject({ calls: 1, throttles: 0, active: 0 });
  });

  it('does not report other errors as throttles', async () => {
    arrange({ bedrock: (input, n) => (n === 1 ? unavailable() : validAnswer(input)) });
    const registry = limiters();
    await run([clause(1)], { deps: { limiters: registry } });
    expect(registry.stats()[PRIMARY_MODEL_ID]).toMatchObject({ calls: 2, throttles: 0, active: 0 });
  });

  it('stops waiting for a permit, reserving nothing, when the stage is halted', async () => {
    arrange();
    const registry = limiters(1);
    const limiter = registry.for(PRIMARY_MODEL_ID);
    await limiter.acquire('realtime');
    const controller = new AbortController();
    const outcome = run([clause(1)], { deps: { limiters: registry }, signal: controller.signal });
    await flush();
    expect(limiter.waiting).toBe(1);
    controller.abort();
    expect((await outcome).stopped).toBe('lease-lost');
    expect(limiter.waiting).toBe(0);
    expect(events).toEqual([]);
  });
});
