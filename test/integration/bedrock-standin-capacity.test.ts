/**
 * The Bedrock stand-in's capacity and books through the real SDK client: calls past maxInFlight,
 * tokensPerMinute (reserved at admission, five quota tokens per Claude 4 output token) and
 * requestsPerMinute throttled as Bedrock throttles them, a client that gives up or is killed not
 * billed; the accounting per model and outcome, served over HTTP; and the plan's control endpoint.
 */
import { spawn } from 'node:child_process';
import { ConverseCommand, ThrottlingException } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import { BEDROCK_CONNECTIONS } from '../../lambdas/shared/runtime.js';
import { callFingerprint, duplicateBilledCalls } from '../../localstack/bedrock/index.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';
import {
  CLAUSES,
  clause,
  converseInput,
  failure,
  h1,
  h1Client,
  h2,
  ON_DEMAND,
  PROFILE_ARN,
  plan,
  standIn,
  useStandIn,
} from './bedrock-standin-setup.js';

useStandIn();

describe('capacity', () => {
  const settle = (calls: Promise<unknown>[]) => Promise.allSettled(calls);
  const throttled = (results: PromiseSettledResult<unknown>[]) =>
    results.filter((r) => r.status === 'rejected' && r.reason instanceof ThrottlingException).length;

  it('maxInFlight: calls within the limit succeed, the excess is throttled', async () => {
    // Calls take 2 s: all twelve are in flight at once even when a busy machine spreads their
    // sending over a second or more (at 150 ms, the first four had ended before the last arrived).
    plan({ capacity: { maxInFlight: 4 }, latency: { kind: 'fixed', ms: 2000 } });
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
        messages: [{ role: 'user', content: [{ text }] }] })).catch(() => {});
      process.stdout.write('sent\\n');`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script, standIn.url], {
        cwd: PROJECT_ROOT,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      // The 1.5 s for the calls to reach the stand-in count from when the child has sent them, not
      // from its start: loading the SDK in a fresh process takes seconds on a busy machine.
      await new Promise((r) => child.stdout?.once('data', r));
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
