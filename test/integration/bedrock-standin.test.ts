/**
 * The Bedrock stand-in through the real SDK client (ConverseCommand) on loopback, with both the
 * SDK's default HTTP/2 handler and NodeHttpHandler (HTTP/1.1): the answer on the wire, each error
 * of the catalogue as the SDK surfaces and classifies it, the malformed answers the plan asks
 * for, and the same fault sequence from the same seed. Capacity, accounting and the control
 * endpoint: bedrock-standin-capacity.test.ts; hangs, timeouts and the worker's pooled client:
 * bedrock-standin-connections.test.ts.
 */
import {
  AccessDeniedException,
  BedrockRuntimeClient,
  ConverseCommand,
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
import { describe, expect, it } from 'vitest';
import {
  type BedrockErrorName,
  type BedrockStandIn,
  type FaultPlanPatch,
  STAND_IN_LABEL,
  startBedrockStandIn,
} from '../../localstack/bedrock/index.js';
import {
  Answer,
  CLAUSES,
  clause,
  clientOptions,
  converseInput,
  failure,
  h1,
  h1Client,
  h2,
  ON_DEMAND,
  PROFILE_ARN,
  plan,
  standIn,
  toolInput,
  useStandIn,
} from './bedrock-standin-setup.js';

useStandIn();

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
