/**
 * analyzeStage when a model call fails: tier-1 retries of transient errors and throttles (with
 * the fallback model), permanent errors failed at once, and invalid answers (declined, repaired
 * once, failed as validation), each attempt billed.
 */
import { AccessDeniedException, ConverseCommand, ValidationException } from '@aws-sdk/client-bedrock-runtime';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { costOf, FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import {
  call,
  clause,
  meta,
  mockedAnalyze,
  NOW,
  PROSE_ANSWER,
  throttle,
  USAGE,
  unavailable,
  validAnswer,
} from './analyze-stage-fixtures.js';

let clock = NOW;
const { ddb, bedrock, events, sleep, arrange, run, converseInputs, settlements } = mockedAnalyze(() => clock);

beforeEach(() => {
  clock = NOW;
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

  it('counts a request that came back unanswered (its timeout) at its worst case, recorded at once, and asks again', async () => {
    const timedOut = () =>
      Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
    arrange({ bedrock: (input, n) => (n === 1 ? timedOut() : validAnswer(input)) });
    const outcome = await run([clause(1)]);
    expect(outcome).toMatchObject({ kind: 'done', counts: { done: 1, retries: 1 } });
    expect(events).toEqual([
      'take',
      'intents:1',
      'gate',
      call(),
      'settle:in-flight',
      // Its worst case is spent, so the next attempt takes more of the job's room.
      'take',
      'gate',
      call(),
      'settle:done',
      'return',
    ]);
    // Bedrock may have answered and billed it: the worst case is on the entry before the next attempt.
    const [unanswered, done] = settlements().map((u) => u.ExpressionAttributeValues ?? {});
    const worstCase = Number(unanswered?.[':cost']);
    expect(worstCase).toBeGreaterThan(costOf(PRIMARY_MODEL_ID, USAGE));
    expect(unanswered).toMatchObject({ ':unanswered': 1, ':reservation': worstCase, ':attempts': 1 });
    expect(String(unanswered?.[':lastError'])).toContain('TimeoutError');
    expect(done).toMatchObject({
      ':status': 'done',
      ':attempts': 2,
      ':unanswered': 1,
      ':cost': worstCase + costOf(PRIMARY_MODEL_ID, USAGE),
    });
    // The job is told the same spend the ledger holds (over every move), so the chunk's books balance.
    const told = ddb
      .commandCalls(TransactWriteCommand)
      .map((c) => c.args[0].input.TransactItems?.find((i) => i.Update?.Key?.sk !== 'JOB')?.Update)
      .reduce((sum, u) => sum + Number(u?.ExpressionAttributeValues?.[':spent'] ?? 0), 0);
    expect(told).toBe(worstCase + costOf(PRIMARY_MODEL_ID, USAGE));
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
