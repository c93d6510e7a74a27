import { spawn } from 'node:child_process';
/**
 * The Bedrock stand-in through the real SDK client (ConverseCommand) on loopback, with both the
 * SDK's default HTTP/2 handler and NodeHttpHandler (HTTP/1.1).
 */
import http from 'node:http';
import net from 'node:net';
import {
  AccessDeniedException,
  BedrockRuntimeClient,
  type BedrockRuntimeClientConfig,
  type BedrockRuntimeServiceException,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
  InternalServerException,
  ModelErrorException,
  ModelNotReadyException,
  ModelTimeoutException,
  ResourceNotFoundException,
  ServiceUnavailableException,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { NodeHttpHandler, type NodeHttpHandlerOptions } from '@smithy/node-http-handler';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { BEDROCK_CONNECTIONS, createClients } from '../../lambdas/shared/runtime.js';
import {
  type BedrockErrorName,
  type BedrockStandIn,
  callFingerprint,
  duplicateBilledCalls,
  type FaultPlanPatch,
  STAND_IN_LABEL,
  startBedrockStandIn,
} from '../../localstack/bedrock/index.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';

/** A model Bedrock serves on demand by its base id, and through a US profile (catalogue.ts). */
const ON_DEMAND = 'amazon.nova-lite-v1:0';
const PROFILE_ARN = 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-lite-v1:0';

const CLAUSES = [
  'The Supplier shall indemnify, defend and hold harmless the Customer from all losses; such liability shall be uncapped.',
  'Either party may terminate this Agreement for convenience upon thirty (30) days prior written notice.',
  'All inventions and work product shall be owned by the Company, and the Consultant hereby assigns all rights.',
  'Notices shall be sent to the addresses set out above.',
];
const clause = (i: number): string => CLAUSES[i % CLAUSES.length] as string;

const Finding = z.strictObject({ quote: z.string().min(1).max(300), rationale: z.string().max(500) });
const Category = z.strictObject({
  score: z.number().int().min(0).max(3).nullable(),
  findings: z.array(Finding).max(5),
});
const Answer = z.strictObject({
  assessments: z.strictObject({ liability: Category, termination: Category, 'ip-ownership': Category }),
  summary: z.string().max(400),
});

const category = (description: string) => ({
  type: 'object',
  description,
  properties: {
    score: { type: ['integer', 'null'], minimum: 0, maximum: 3 },
    findings: {
      type: 'array',
      maxItems: 5,
      items: {
        type: 'object',
        properties: {
          quote: { type: 'string', minLength: 1, maxLength: 300 },
          rationale: { type: 'string', maxLength: 500 },
        },
        required: ['quote', 'rationale'],
        additionalProperties: false,
      },
    },
  },
  required: ['score', 'findings'],
  additionalProperties: false,
});

/** A tool schema in the shape the analysts use: categories with nullable scores and findings, plus a summary. */
const TOOL_SCHEMA = {
  type: 'object',
  properties: {
    assessments: {
      type: 'object',
      properties: {
        liability: category(
          'Limitation of liability, caps, indemnify and hold harmless obligations, damages.',
        ),
        termination: category(
          'Termination for convenience or without cause, for breach, notice and cure periods.',
        ),
        'ip-ownership': category(
          'Ownership of intellectual property, inventions, work product; assignment of rights.',
        ),
      },
      required: ['liability', 'termination', 'ip-ownership'],
      additionalProperties: false,
    },
    summary: { type: 'string', maxLength: 400 },
  },
  required: ['assessments', 'summary'],
  additionalProperties: false,
};

const converseInput = (text: string, modelId = ON_DEMAND, maxTokens = 2048): ConverseCommandInput => ({
  modelId,
  system: [{ text: 'You are a contract risk analyst. Answer only through the record_assessment tool.' }],
  messages: [{ role: 'user', content: [{ text: `Assess this clause.\n<clause>${text}</clause>` }] }],
  inferenceConfig: { maxTokens, temperature: 0 },
  toolConfig: {
    tools: [{ toolSpec: { name: 'record_assessment', inputSchema: { json: TOOL_SCHEMA } } }],
    toolChoice: { tool: { name: 'record_assessment' } },
  },
});

const clientOptions = { region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };

let standIn: BedrockStandIn;
/** What `new BedrockRuntimeClient()` uses in Node: NodeHttp2Handler (h2c, one session per request). */
let h2: BedrockRuntimeClient;
/** HTTP/1.1 with keep-alive. */
let h1: BedrockRuntimeClient;
const extraClients: BedrockRuntimeClient[] = [];

function h1Client(options: NodeHttpHandlerOptions = {}, maxAttempts = 1): BedrockRuntimeClient {
  const client = new BedrockRuntimeClient({
    ...clientOptions,
    endpoint: standIn.url,
    maxAttempts,
    requestHandler: new NodeHttpHandler({
      httpAgent: new http.Agent({ keepAlive: true, maxSockets: 32 }),
      ...options,
    }),
  });
  extraClients.push(client);
  return client;
}

/** Runs a call and returns its error, failing the test if the call succeeds. */
async function failure(
  client: BedrockRuntimeClient,
  input: ConverseCommandInput,
): Promise<BedrockRuntimeServiceException> {
  const outcome = await client.send(new ConverseCommand(input)).then(
    () => undefined,
    (error: unknown) => error as BedrockRuntimeServiceException,
  );
  expect(outcome, 'expected the call to fail').toBeDefined();
  return outcome as BedrockRuntimeServiceException;
}

const toolInput = (output: ConverseCommandOutput): unknown =>
  output.output?.message?.content?.find((block) => block.toolUse)?.toolUse?.input;

/** Replaces the plan and starts from clean books, capacity and seed. */
const plan = (patch: FaultPlanPatch): void => {
  standIn.setPlan(patch, { replace: true });
  standIn.reset();
};

beforeAll(async () => {
  // The keyword heuristic: these cases pin its judgements and the faults around them.
  standIn = await startBedrockStandIn({ seed: 7, analyst: 'heuristic' });
  h2 = new BedrockRuntimeClient({ ...clientOptions, endpoint: standIn.url, maxAttempts: 1 });
  h1 = h1Client();
});

afterAll(async () => {
  for (const client of [h2, ...extraClients]) client.destroy();
  await standIn.close();
});

beforeEach(() => plan({}));

describe('Converse over the wire', () => {
  it.each([
    ['default handler (HTTP/2)', () => h2],
    ['NodeHttpHandler (HTTP/1.1)', () => h1],
  ])('answers with a tool call that fits the schema and quotes the clause, via the %s', async (_, client) => {
    const output = await client().send(new ConverseCommand(converseInput(clause(0))));
    expect(output.$metadata.httpStatusCode).toBe(200);
    expect(output.$metadata.requestId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(output.stopReason).toBe('tool_use');
    const content = output.output?.message?.content ?? [];
    // toolChoice forces the tool: Claude answers with the tool call alone, no text before it.
    expect(content).toHaveLength(1);
    expect(content[0]?.toolUse?.name).toBe('record_assessment');
    expect(content[0]?.toolUse?.toolUseId).toMatch(/^tooluse_[A-Za-z0-9_-]{22}$/);
    expect(JSON.stringify(content[0]?.toolUse?.input)).toContain(STAND_IN_LABEL);
    const answer = Answer.parse(toolInput(output));
    expect(answer.assessments.liability.score).toBe(3);
    expect(answer.assessments['ip-ownership']).toEqual({ score: null, findings: [] });
    const quotes = answer.assessments.liability.findings.map((f) => f.quote);
    expect(quotes.length).toBeGreaterThan(0);
    for (const quote of quotes) expect(clause(0)).toContain(quote);
    const usage = output.usage;
    expect(usage?.inputTokens).toBeGreaterThan(0);
    expect(usage?.outputTokens).toBeGreaterThan(0);
    expect(usage?.totalTokens).toBe((usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0));
    expect(output.metrics?.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('decodes model ids with ":" and ARNs with "/"', async () => {
    await h2.send(new ConverseCommand(converseInput(clause(1), ON_DEMAND)));
    await h1.send(new ConverseCommand(converseInput(clause(1), PROFILE_ARN)));
    const { byModel } = standIn.accounting();
    expect(Object.keys(byModel).sort()).toEqual([PROFILE_ARN, ON_DEMAND].sort());
    expect(byModel[ON_DEMAND]?.success?.calls).toBe(1);
    expect(byModel[PROFILE_ARN]?.success?.calls).toBe(1);
  });

  it('sends Bedrock headers and error bodies on the wire', async () => {
    const ok = await fetch(`${standIn.url}/model/${encodeURIComponent(ON_DEMAND)}/converse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(converseInput(clause(1))),
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/json');
    expect(ok.headers.get('x-amzn-requestid')).toMatch(/^[0-9a-f-]{36}$/);
    expect(ok.headers.get('x-clause-review-stand-in')).toBe('offline-heuristic');
    const broken = await fetch(`${standIn.url}/model/${encodeURIComponent(ON_DEMAND)}/converse`, {
      method: 'POST',
      body: '{"messages": [',
    });
    expect(broken.status).toBe(400);
    expect(broken.headers.get('x-amzn-errortype')).toBe(
      'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/',
    );
    expect(await broken.json()).toEqual({
      message: 'Malformed input request, please reformat your input and try again.',
    });
    const unknown = await fetch(`${standIn.url}/model/${ON_DEMAND}/invoke-with-response-stream`, {
      method: 'POST',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-amzn-errortype')).toMatch(/^UnknownOperationException:/);
  });

  it('rejects a request without messages as a ValidationException', async () => {
    const error = await failure(h2, { ...converseInput(clause(0)), messages: [] });
    expect(error).toBeInstanceOf(ValidationException);
    expect(error.message).toMatch(/must start with a user message/);
    expect(standIn.accounting().byModel[ON_DEMAND]?.ValidationException?.calls).toBe(1);
  });
});

describe('error catalogue', () => {
  /** What the SDK (client-bedrock-runtime 3.1162, @smithy/core 3.41) makes of each error, as observed. */
  const CATALOGUE: {
    name: BedrockErrorName;
    type: abstract new (...args: never[]) => Error;
    status: number;
    fault: 'client' | 'server';
    retryableTrait: boolean;
    throttling: boolean;
    transient: boolean;
  }[] = [
    {
      name: 'ThrottlingException',
      type: ThrottlingException,
      status: 429,
      fault: 'client',
      retryableTrait: false,
      throttling: true,
      transient: false,
    },
    {
      name: 'ModelNotReadyException',
      type: ModelNotReadyException,
      status: 429,
      fault: 'client',
      retryableTrait: true,
      throttling: true,
      transient: true,
    },
    {
      name: 'ServiceUnavailableException',
      type: ServiceUnavailableException,
      status: 503,
      fault: 'server',
      retryableTrait: false,
      throttling: false,
      transient: true,
    },
    {
      name: 'InternalServerException',
      type: InternalServerException,
      status: 500,
      fault: 'server',
      retryableTrait: false,
      throttling: false,
      transient: true,
    },
    {
      // Not retried by the SDK: a client fault with status 408 and no retryable trait.
      name: 'ModelTimeoutException',
      type: ModelTimeoutException,
      status: 408,
      fault: 'client',
      retryableTrait: false,
      throttling: false,
      transient: false,
    },
    {
      name: 'ModelErrorException',
      type: ModelErrorException,
      status: 424,
      fault: 'client',
      retryableTrait: false,
      throttling: false,
      transient: false,
    },
    {
      name: 'ValidationException',
      type: ValidationException,
      status: 400,
      fault: 'client',
      retryableTrait: false,
      throttling: false,
      transient: false,
    },
    {
      name: 'AccessDeniedException',
      type: AccessDeniedException,
      status: 403,
      fault: 'client',
      retryableTrait: false,
      throttling: false,
      transient: false,
    },
    {
      name: 'ResourceNotFoundException',
      type: ResourceNotFoundException,
      status: 404,
      fault: 'client',
      retryableTrait: false,
      throttling: false,
      transient: false,
    },
  ];

  it.each(CATALOGUE)('$name surfaces as its SDK exception, classified as the SDK does', async (entry) => {
    plan({ errorRates: { [entry.name]: 1 } });
    for (const client of [h2, h1]) {
      const error = await failure(client, converseInput(clause(0)));
      expect(error).toBeInstanceOf(entry.type);
      expect(error.name).toBe(entry.name);
      expect(error.$fault).toBe(entry.fault);
      expect(error.$metadata.httpStatusCode).toBe(entry.status);
      expect(error.$metadata.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(error.message.length).toBeGreaterThan(10);
      expect(error.$retryable !== undefined).toBe(entry.retryableTrait);
      const sdkError = error as unknown as Parameters<typeof isTransientError>[0];
      expect(isThrottlingError(sdkError)).toBe(entry.throttling);
      expect(isTransientError(sdkError)).toBe(entry.transient);
      // Every 5xx here is transient, so none counts as a plain (non-retried) server error.
      expect(isServerError(sdkError)).toBe(false);
    }
    expect(standIn.accounting().byModel[ON_DEMAND]?.[entry.name]).toEqual({
      calls: 2,
      inputTokens: 0,
      outputTokens: 0,
    });
  });

  it('the SDK retries ServiceUnavailableException but not ModelTimeoutException', async () => {
    const retrying = h1Client({}, 3);
    plan({ errorRates: { ServiceUnavailableException: 1 } });
    const unavailable = await failure(retrying, converseInput(clause(0)));
    expect(unavailable.$metadata.attempts).toBe(3);
    expect(standIn.accounting().totals.calls).toBe(3);
    plan({ errorRates: { ModelTimeoutException: 1 } });
    const timeout = await failure(retrying, converseInput(clause(0)));
    expect(timeout.$metadata.attempts).toBe(1);
    expect(standIn.accounting().totals.calls).toBe(1);
  });

  it('applies per-model overrides, e.g. one model always denied', async () => {
    plan({ modelOverrides: { [PROFILE_ARN]: { errorRates: { AccessDeniedException: 1 } } } });
    await expect(h1.send(new ConverseCommand(converseInput(clause(0), PROFILE_ARN)))).rejects.toBeInstanceOf(
      AccessDeniedException,
    );
    const ok = await h1.send(new ConverseCommand(converseInput(clause(0), ON_DEMAND)));
    expect(ok.stopReason).toBe('tool_use');
  });
});

describe('capacity', () => {
  const settle = (calls: Promise<unknown>[]) => Promise.allSettled(calls);
  const throttled = (results: PromiseSettledResult<unknown>[]) =>
    results.filter((r) => r.status === 'rejected' && r.reason instanceof ThrottlingException).length;

  it('maxInFlight: calls within the limit succeed, the excess is throttled', async () => {
    plan({ capacity: { maxInFlight: 4 }, latency: { kind: 'fixed', ms: 150 } });
    const four = await settle(CLAUSES.map((text) => h1.send(new ConverseCommand(converseInput(text)))));
    expect(four.every((r) => r.status === 'fulfilled')).toBe(true);
    const twelve = await settle(
      Array.from({ length: 12 }, (_, i) => h1.send(new ConverseCommand(converseInput(clause(i))))),
    );
    expect(throttled(twelve)).toBe(8);
    expect(twelve.filter((r) => r.status === 'fulfilled')).toHaveLength(4);
    const accounting = standIn.accounting().byModel[ON_DEMAND];
    expect(accounting?.ThrottlingException?.calls).toBe(8);
    expect(accounting?.success?.calls).toBe(8);
  });

  it('maxInFlight: sequential calls below capacity are never throttled', async () => {
    plan({ capacity: { maxInFlight: 1 }, latency: { kind: 'fixed', ms: 5 } });
    for (let i = 0; i < 10; i++) await h2.send(new ConverseCommand(converseInput(clause(i))));
    expect(standIn.accounting().byModel[ON_DEMAND]).toEqual({
      success: expect.objectContaining({ calls: 10 }),
    });
  });

  it('a client that gives up frees its slot and is not billed', async () => {
    plan({ capacity: { maxInFlight: 1 }, latency: { kind: 'fixed', ms: 400 } });
    const impatient = await failure(h1Client({ socketTimeout: 100 }), converseInput(clause(0)));
    expect(impatient.name).toBe('TimeoutError');
    await expect.poll(() => standIn.accounting().byModel[ON_DEMAND]?.clientClosed?.calls).toBe(1);
    standIn.setPlan({ latency: { kind: 'fixed', ms: 0 } });
    const next = await h1.send(new ConverseCommand(converseInput(clause(0))));
    expect(next.stopReason).toBe('tool_use');
    expect(standIn.accounting().byModel[ON_DEMAND]).toEqual({
      clientClosed: { calls: 1, inputTokens: 0, outputTokens: 0 },
      success: expect.objectContaining({ calls: 1 }),
    });
  });

  it.each([
    ['the SDK default handler (a session per call)', '{}'],
    ["the worker's pooled sessions", JSON.stringify({ requestHandler: BEDROCK_CONNECTIONS })],
  ])(
    'a client process killed over HTTP/2 (%s) is not billed for the calls it had open',
    async (_, options) => {
      plan({ latency: { kind: 'fixed', ms: 5000 } });
      // A separate process, so that its connection dies as a killed worker's does.
      const script = `
      import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
      const client = new BedrockRuntimeClient({ endpoint: process.argv[1], region: 'us-east-1',
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1, ...${options} });
      for (const text of ['a', 'b', 'c']) client.send(new ConverseCommand({ modelId: '${ON_DEMAND}',
        messages: [{ role: 'user', content: [{ text }] }] })).catch(() => {});`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script, standIn.url], {
        cwd: PROJECT_ROOT,
        stdio: 'ignore',
      });
      await expect.poll(() => standIn.accounting().totals.calls, { timeout: 200 }).toBe(0);
      await new Promise((r) => setTimeout(r, 1500));
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      await expect.poll(() => standIn.accounting().byModel[ON_DEMAND]?.clientClosed?.calls).toBe(3);
      expect(standIn.accounting().byModel[ON_DEMAND]?.success).toBeUndefined();
    },
  );

  it('tokensPerMinute: input plus maxTokens is reserved at admission, and what was billed stays', async () => {
    const first = await h1.send(new ConverseCommand(converseInput(clause(0))));
    const perCall = first.usage?.totalTokens ?? 0;
    const reserve = (first.usage?.inputTokens ?? 0) + 2048;
    expect(perCall).toBeGreaterThan(0);
    expect(reserve).toBeGreaterThan(perCall);

    // Three answered calls leave what they were billed; a fourth needs its whole reservation.
    plan({ capacity: { tokensPerMinute: 3 * perCall + reserve - 1 } });
    for (let i = 0; i < 3; i++) await h1.send(new ConverseCommand(converseInput(clause(0))));
    const error = await failure(h1, converseInput(clause(0)));
    expect(error).toBeInstanceOf(ThrottlingException);
    expect(error.message).toBe('Too many tokens, please wait before trying again.');

    // Calls in flight hold their reservations: two fit at once, the other three are refused. Each
    // takes a second, so all five arrive while the first two are in flight, however loaded the machine.
    plan({ capacity: { tokensPerMinute: 2 * reserve }, latency: { kind: 'fixed', ms: 1000 } });
    const five = await settle(
      Array.from({ length: 5 }, () => h2.send(new ConverseCommand(converseInput(clause(0))))),
    );
    expect(throttled(five)).toBe(3);

    plan({ capacity: { tokensPerMinute: perCall * 100 } });
    for (let i = 0; i < 10; i++) await h1.send(new ConverseCommand(converseInput(clause(0))));
    expect(standIn.accounting().byModel[ON_DEMAND]?.ThrottlingException).toBeUndefined();
  });

  it('tokensPerMinute: a Claude 4 model burns five quota tokens per output token', async () => {
    const haiku = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';
    const input = converseInput(clause(0), haiku, 1024);
    const first = await h1.send(new ConverseCommand(input));
    const quota = (first.usage?.inputTokens ?? 0) + 5 * (first.usage?.outputTokens ?? 0);
    const reserve = (first.usage?.inputTokens ?? 0) + 1024;
    for (const [limit, admitted] of [
      [quota + reserve, true],
      [quota + reserve - 1, false],
    ] as const) {
      plan({ capacity: { tokensPerMinute: limit } });
      await h1.send(new ConverseCommand(input));
      const second = await h1.send(new ConverseCommand(input)).then(
        () => true,
        (e: unknown) => (e instanceof ThrottlingException ? false : Promise.reject(e)),
      );
      expect(second).toBe(admitted);
    }
  });

  it('requestsPerMinute: the request past the rate is throttled with the requests message', async () => {
    plan({ capacity: { requestsPerMinute: 3, tokensPerMinute: 10_000_000 } });
    for (let i = 0; i < 3; i++) await h1.send(new ConverseCommand(converseInput(clause(i))));
    const error = await failure(h1, converseInput(clause(0)));
    expect(error).toBeInstanceOf(ThrottlingException);
    expect(error.$metadata.httpStatusCode).toBe(429);
    expect(error.message).toBe('Too many requests, please wait before trying again.');
    // Once the first three leave the window, three more go and a fourth is refused again.
    standIn.advanceClock(60_000);
    for (let i = 0; i < 3; i++) await h2.send(new ConverseCommand(converseInput(clause(i))));
    expect(throttled(await settle([h2.send(new ConverseCommand(converseInput(clause(0))))]))).toBe(1);
    expect(standIn.accounting().byModel[ON_DEMAND]?.ThrottlingException?.calls).toBe(2);
  });
});

describe('accounting', () => {
  it('matches what was sent and answered, per model and outcome', async () => {
    plan({ modelOverrides: { [PROFILE_ARN]: { errorRates: { ThrottlingException: 1 } } } });
    const outputs = [
      await h2.send(new ConverseCommand(converseInput(clause(0)))),
      await h1.send(new ConverseCommand(converseInput(clause(1)))),
      await h2.send(new ConverseCommand(converseInput(clause(2)))),
      await h1.send(new ConverseCommand(converseInput(clause(2)))), // the same question again
    ];
    await failure(h1, converseInput(clause(0), PROFILE_ARN));
    await failure(h2, converseInput(clause(1), PROFILE_ARN));

    const snapshot = standIn.accounting();
    const inputTokens = outputs.reduce((sum, o) => sum + (o.usage?.inputTokens ?? 0), 0);
    const outputTokens = outputs.reduce((sum, o) => sum + (o.usage?.outputTokens ?? 0), 0);
    expect(snapshot.totals).toEqual({ calls: 6, inputTokens, outputTokens });
    expect(snapshot.byModel).toEqual({
      [ON_DEMAND]: { success: { calls: 4, inputTokens, outputTokens } },
      [PROFILE_ARN]: { ThrottlingException: { calls: 2, inputTokens: 0, outputTokens: 0 } },
    });
    const repeated = converseInput(clause(2));
    const fingerprint = callFingerprint({
      modelId: ON_DEMAND,
      messages: repeated.messages,
      system: repeated.system,
      toolConfig: repeated.toolConfig,
    });
    expect(duplicateBilledCalls(snapshot)).toEqual([fingerprint]);
    expect(Object.keys(snapshot.successes)).toHaveLength(3);
  });

  it('is served over HTTP and cleared by POST /_stand-in/reset', async () => {
    await h1.send(new ConverseCommand(converseInput(clause(3))));
    const served = await (await fetch(`${standIn.url}/_stand-in/accounting`)).json();
    expect(served).toEqual(standIn.accounting());
    const reset = await fetch(`${standIn.url}/_stand-in/reset`, { method: 'POST' });
    expect(reset.status).toBe(200);
    expect(standIn.accounting().totals.calls).toBe(0);
  });
});

describe('control endpoint', () => {
  const put = (body: unknown, query = '') =>
    fetch(`${standIn.url}/_stand-in/plan${query}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('merges a partial plan with PUT and shows it with GET', async () => {
    expect((await put({ errorRates: { ThrottlingException: 0.25 } })).status).toBe(200);
    const merged = await put({
      latency: { kind: 'uniform', minMs: 1, maxMs: 2 },
      capacity: { maxInFlight: 9 },
    });
    expect(merged.status).toBe(200);
    const shown = await (await fetch(`${standIn.url}/_stand-in/plan`)).json();
    expect(shown).toEqual(await merged.json());
    expect(shown).toMatchObject({
      errorRates: { ThrottlingException: 0.25 },
      latency: { kind: 'uniform', minMs: 1, maxMs: 2 },
      capacity: { maxInFlight: 9 },
    });
    expect(standIn.getPlan()).toEqual(shown);
    const replaced = await (await put({ hang: { probability: 0.5 } }, '?replace=true')).json();
    expect(replaced).toMatchObject({ errorRates: {}, capacity: {}, hang: { probability: 0.5 } });
  });

  it('answers 400 with the reason for an invalid plan and keeps the old one', async () => {
    const before = standIn.getPlan();
    const bad = await put({ errorRates: { ThrottlingException: 1.5 } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/errorRates\.ThrottlingException/);
    const sum = await put({ errorRates: { ThrottlingException: 0.7, InternalServerException: 0.7 } });
    expect(sum.status).toBe(400);
    expect(((await sum.json()) as { message: string }).message).toMatch(/sum to at most 1/);
    const notJson = await fetch(`${standIn.url}/_stand-in/plan`, { method: 'PUT', body: '{' });
    expect(notJson.status).toBe(400);
    expect(standIn.getPlan()).toEqual(before);
  });
});

describe('hangs and timeouts', () => {
  let hanging: BedrockStandIn;
  const clients: BedrockRuntimeClient[] = [];
  const clientOf = (requestHandler: BedrockRuntimeClientConfig['requestHandler']) => {
    const client = new BedrockRuntimeClient({
      ...clientOptions,
      endpoint: hanging.url,
      maxAttempts: 1,
      requestHandler,
    });
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    hanging = await startBedrockStandIn({ seed: 1, plan: { hang: { probability: 1 } } });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await hanging.close();
  });

  it.each([
    [
      'NodeHttpHandler requestTimeout + throwOnRequestTimeout',
      new NodeHttpHandler({ requestTimeout: 200, throwOnRequestTimeout: true }),
    ],
    ['NodeHttpHandler socketTimeout', new NodeHttpHandler({ socketTimeout: 200 })],
    ['NodeHttp2Handler requestTimeout', { requestTimeout: 200, disableConcurrentStreams: true }],
  ])('a hung call surfaces as a TimeoutError with %s', async (_, handler) => {
    const started = performance.now();
    const error = await failure(clientOf(handler), converseInput(clause(0)));
    expect(error.name).toBe('TimeoutError');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(hanging.accounting().byModel[ON_DEMAND]).toEqual({
      hang: { calls: 1, inputTokens: 0, outputTokens: 0 },
    });
  });

  it('NodeHttpHandler requestTimeout alone only logs a warning and keeps waiting (SDK behaviour)', async () => {
    const warnings: unknown[] = [];
    const logger = { debug() {}, info() {}, warn: (message: unknown) => warnings.push(message), error() {} };
    const call = clientOf(new NodeHttpHandler({ requestTimeout: 100, logger }))
      .send(new ConverseCommand(converseInput(clause(0))))
      .then(
        () => 'answered',
        (error: Error) => `failed: ${error.name}`,
      );
    const early = await Promise.race([
      call,
      new Promise((resolve) => setTimeout(() => resolve('pending'), 600)),
    ]);
    expect(early).toBe('pending');
    expect(String(warnings[0])).toMatch(/exceeded the configured 100 ms requestTimeout/);
    await hanging.close(); // the stand-in cuts the connection
    expect(await call).toMatch(/^failed: /);
  });

  it('close() returns promptly with hung HTTP/1.1 and HTTP/2 calls open', async () => {
    const calls = [
      clientOf(new NodeHttpHandler()).send(new ConverseCommand(converseInput(clause(0)))),
      clientOf(undefined).send(new ConverseCommand(converseInput(clause(1)))),
    ].map((p) =>
      p.then(
        () => 'answered',
        () => 'failed',
      ),
    );
    await expect.poll(() => hanging.accounting().totals.calls).toBe(2);
    const started = performance.now();
    await hanging.close();
    expect(performance.now() - started).toBeLessThan(500);
    expect(await Promise.all(calls)).toEqual(['failed', 'failed']);
  });

  it('a hang with ms answers late', async () => {
    hanging.setPlan({ hang: { probability: 1, ms: 150 } });
    const started = performance.now();
    const output = await clientOf(undefined).send(new ConverseCommand(converseInput(clause(0))));
    expect(output.stopReason).toBe('tool_use');
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });
});

describe('malformed answers', () => {
  it('invalidJson: end_turn, broken JSON in the text, no tool call', async () => {
    plan({ malformed: { invalidJson: 1 } });
    const output = await h2.send(new ConverseCommand(converseInput(clause(0))));
    expect(output.stopReason).toBe('end_turn');
    const content = output.output?.message?.content ?? [];
    expect(content.some((block) => block.toolUse)).toBe(false);
    const text = content[0]?.text ?? '';
    expect(text.startsWith(STAND_IN_LABEL)).toBe(true);
    const json = text.slice(text.indexOf('{'));
    expect(json.length).toBeGreaterThan(10);
    expect(() => JSON.parse(json)).toThrow();
    const snapshot = standIn.accounting();
    expect(snapshot.malformed).toEqual({ [ON_DEMAND]: { invalidJson: 1 } });
    expect(snapshot.byModel[ON_DEMAND]?.success?.calls).toBe(1);
  });

  it('schemaViolation: a tool call whose input breaks the schema', async () => {
    plan({ malformed: { schemaViolation: 1 } });
    for (const text of CLAUSES) {
      const output = await h1.send(new ConverseCommand(converseInput(text)));
      expect(output.stopReason).toBe('tool_use');
      expect(Answer.safeParse(toolInput(output)).success).toBe(false);
    }
    expect(standIn.accounting().malformed[ON_DEMAND]?.schemaViolation).toBe(4);
  });

  it('badQuote: a valid answer whose quotes are not in the clause', async () => {
    plan({ malformed: { badQuote: 1 } });
    for (const text of CLAUSES) {
      const output = await h1.send(new ConverseCommand(converseInput(text)));
      const answer = Answer.parse(toolInput(output));
      const quotes = Object.values(answer.assessments).flatMap((c) => c.findings.map((f) => f.quote));
      expect(quotes.length).toBeGreaterThan(0);
      for (const quote of quotes) expect(text).not.toContain(quote);
    }
  });

  it('maxTokens: a too-small budget truncates the answer and drops the tool call', async () => {
    const output = await h1.send(new ConverseCommand(converseInput(clause(0), ON_DEMAND, 60)));
    expect(output.stopReason).toBe('max_tokens');
    expect(output.usage?.outputTokens).toBe(60);
    expect(output.output?.message?.content?.some((block) => block.toolUse)).toBe(false);
    expect(standIn.accounting().malformed[ON_DEMAND]?.maxTokens).toBe(1);
  });
});

describe('reproducibility', () => {
  const FAULTS: FaultPlanPatch = {
    errorRates: { ThrottlingException: 0.15, InternalServerException: 0.1, ModelErrorException: 0.05 },
    malformed: { invalidJson: 0.1, schemaViolation: 0.1, badQuote: 0.1 },
    latency: { kind: 'uniform', minMs: 0, maxMs: 3 },
  };

  async function sequence(target: BedrockStandIn, client: BedrockRuntimeClient): Promise<string[]> {
    const outcomes: string[] = [];
    for (let i = 0; i < 40; i++) {
      const outcome = await client.send(new ConverseCommand(converseInput(clause(i)))).then(
        (output) => `${output.stopReason}:${JSON.stringify(toolInput(output) ?? null).length}`,
        (error: Error) => error.name,
      );
      outcomes.push(outcome);
    }
    expect(target.accounting().totals.calls).toBe(40);
    return outcomes;
  }

  it('the same seed gives the same fault sequence', async () => {
    plan(FAULTS);
    const first = await sequence(standIn, h1);
    expect(new Set(first).size).toBeGreaterThan(3);
    standIn.reset(); // reseeds with the same seed
    expect(await sequence(standIn, h2)).toEqual(first);

    const twin = await startBedrockStandIn({ seed: 7, plan: FAULTS, analyst: 'heuristic' });
    const other = await startBedrockStandIn({ seed: 8, plan: FAULTS, analyst: 'heuristic' });
    const twinClient = new BedrockRuntimeClient({ ...clientOptions, endpoint: twin.url, maxAttempts: 1 });
    const otherClient = new BedrockRuntimeClient({ ...clientOptions, endpoint: other.url, maxAttempts: 1 });
    try {
      expect(await sequence(twin, twinClient)).toEqual(first);
      expect(await sequence(other, otherClient)).not.toEqual(first);
    } finally {
      twinClient.destroy();
      otherClient.destroy();
      await Promise.all([twin.close(), other.close()]);
    }
  });
});

describe("the worker's Bedrock client", () => {
  /** A TCP relay to the stand-in that counts the connections clients open through it. */
  async function countingRelay(): Promise<{ url: string; connections: () => number; close(): void }> {
    let connections = 0;
    const target = new URL(standIn.url);
    const relay = net.createServer((socket) => {
      connections++;
      const upstream = net.connect(Number(target.port), target.hostname);
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(relay.address() as net.AddressInfo).port}`,
      connections: () => connections,
      close: () => relay.close(),
    };
  }

  const calls = async (client: BedrockRuntimeClient) => {
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => client.send(new ConverseCommand(converseInput(clause(i))))),
    );
    for (let i = 0; i < 12; i++) await client.send(new ConverseCommand(converseInput(clause(i))));
  };

  it('sends every Converse call over one pooled HTTP/2 session, where the SDK default opens one per call', async () => {
    const relay = await countingRelay();
    try {
      const worker = createClients({
        bedrockEndpoint: relay.url,
        region: 'us-east-1',
        credentials: EMULATOR_CREDENTIALS,
      }).bedrock;
      await calls(worker);
      expect(relay.connections()).toBe(1);
      worker.destroy();

      const before = relay.connections();
      const sdkDefault = new BedrockRuntimeClient({ ...clientOptions, endpoint: relay.url, maxAttempts: 1 });
      await calls(sdkDefault);
      expect(relay.connections() - before).toBe(24);
      sdkDefault.destroy();
    } finally {
      relay.close();
    }
  });

  it('an aborted call on a shared session is not billed, and the calls beside it finish', async () => {
    plan({ latency: { kind: 'fixed', ms: 300 } });
    const worker = createClients({
      bedrockEndpoint: standIn.url,
      region: 'us-east-1',
      credentials: EMULATOR_CREDENTIALS,
    }).bedrock;
    try {
      const abort = new AbortController();
      const aborted = worker
        .send(new ConverseCommand(converseInput(clause(0))), { abortSignal: abort.signal as never })
        .then(
          () => 'answered',
          (error: Error) => error.name,
        );
      const beside = Array.from({ length: 3 }, (_, i) =>
        worker.send(new ConverseCommand(converseInput(clause(i + 1)))),
      );
      setTimeout(() => abort.abort(), 100);
      expect(await aborted).toBe('AbortError');
      expect((await Promise.all(beside)).map((o) => o.stopReason)).toEqual([
        'tool_use',
        'tool_use',
        'tool_use',
      ]);
      await expect.poll(() => standIn.accounting().byModel[ON_DEMAND]?.clientClosed?.calls).toBe(1);
      expect(standIn.accounting().byModel[ON_DEMAND]?.success?.calls).toBe(3);
    } finally {
      worker.destroy();
    }
  });
});
