/**
 * analyzeStage, the first stage of a chunk: every analyst asked about every clause through the
 * call ledger. Here the idempotency key and the worst case, and the ledger (entries reused,
 * intents before calls, one settlement per answer). Retries, stopping and the model limiter have
 * files of their own (analyze-stage-*.test.ts).
 */
import { ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { buildConverseInput } from '../../../lambdas/core/analysts/index.js';
import {
  costOf,
  FALLBACK_MODEL_ID,
  MODEL_PRICES,
  PRIMARY_MODEL_ID,
} from '../../../lambdas/core/model-catalogue.js';
import { callSk } from '../../../lambdas/core/state/keys.js';
import { idempotencyKey } from '../../../lambdas/core/worker/call-key.js';
import { ChunkStop } from '../../../lambdas/core/worker/chunk-stop.js';
import { analyzeStage } from '../../../lambdas/core/worker/stages/analyze.js';
import { worstCaseCost, worstCaseInputTokens } from '../../../lambdas/core/worker/worst-case.js';
import {
  call,
  checkpoint,
  clause,
  job,
  lease,
  liability,
  mockedAnalyze,
  NOW,
  riskTransfer,
} from './analyze-stage-fixtures.js';

const { ddb, bedrock, events, arrange, deps, run, converseInputs, settlements } = mockedAnalyze();

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
