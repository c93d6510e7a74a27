import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  Accounting,
  callFingerprint,
  canonicalJson,
  duplicateBilledCalls,
  repeatedAnswers,
} from '../../../localstack/bedrock/accounting.js';

const messages = [{ role: 'user', content: [{ text: 'Clause one.' }] }];
const toolConfig = {
  tools: [{ toolSpec: { name: 't', inputSchema: { json: { type: 'object', b: 1, a: 2 } } } }],
};

describe('fingerprints', () => {
  it('sorts keys at every level', () => {
    expect(canonicalJson({ b: [{ y: 1, x: null }], a: 'z', u: undefined })).toBe(
      '{"a":"z","b":[{"x":null,"y":1}]}',
    );
  });

  it('is the sha256 of the canonical JSON of modelId, messages, system and toolConfig', () => {
    const expected = createHash('sha256')
      .update(canonicalJson({ modelId: 'm', messages, system: null, toolConfig }))
      .digest('hex');
    expect(callFingerprint({ modelId: 'm', messages, toolConfig })).toBe(expected);
    const canonicalToolConfig = canonicalJson(toolConfig);
    expect(callFingerprint({ modelId: 'm', messages, toolConfig }, { canonicalToolConfig })).toBe(expected);
  });

  it('ignores key order but not content', () => {
    const reordered = {
      tools: [{ toolSpec: { inputSchema: { json: { a: 2, b: 1, type: 'object' } }, name: 't' } }],
    };
    const base = callFingerprint({ modelId: 'm', messages, toolConfig });
    expect(callFingerprint({ modelId: 'm', messages, toolConfig: reordered })).toBe(base);
    expect(callFingerprint({ modelId: 'other', messages, toolConfig })).not.toBe(base);
    expect(callFingerprint({ modelId: 'm', messages, system: [{ text: 's' }], toolConfig })).not.toBe(base);
  });
});

describe('accounting', () => {
  it('bills only successes, tallies outcomes per model and finds duplicate billed calls', () => {
    const books = new Accounting();
    books.record({ modelId: 'a', outcome: 'success', inputTokens: 10, outputTokens: 5, fingerprint: 'f1' });
    books.record({ modelId: 'a', outcome: 'success', inputTokens: 10, outputTokens: 5, fingerprint: 'f1' });
    books.record({
      modelId: 'a',
      outcome: 'success',
      inputTokens: 7,
      outputTokens: 3,
      fingerprint: 'f2',
      malformed: 'badQuote',
    });
    books.record({ modelId: 'b', outcome: 'ThrottlingException', inputTokens: 99, outputTokens: 99 });
    books.record({ modelId: 'b', outcome: 'hang' });
    const snapshot = books.snapshot();
    expect(snapshot.totals).toEqual({ calls: 5, inputTokens: 27, outputTokens: 13 });
    expect(snapshot.byModel).toEqual({
      a: { success: { calls: 3, inputTokens: 27, outputTokens: 13 } },
      b: {
        ThrottlingException: { calls: 1, inputTokens: 0, outputTokens: 0 },
        hang: { calls: 1, inputTokens: 0, outputTokens: 0 },
      },
    });
    expect(snapshot.malformed).toEqual({ a: { badQuote: 1 } });
    expect(snapshot.successes).toEqual({ f1: { modelId: 'a', count: 2 }, f2: { modelId: 'a', count: 1 } });
    expect(duplicateBilledCalls(snapshot)).toEqual(['f1']);
    expect(repeatedAnswers(snapshot)).toBe(1);
    expect(repeatedAnswers({ successes: { f1: { count: 3 }, f2: { count: 2 }, f3: { count: 1 } } })).toBe(3);
    books.reset();
    expect(books.snapshot().totals).toEqual({ calls: 0, inputTokens: 0, outputTokens: 0 });
  });

  it('hands out snapshots that later calls do not change', () => {
    const books = new Accounting();
    books.record({ modelId: 'a', outcome: 'success', inputTokens: 1, outputTokens: 1, fingerprint: 'f' });
    const before = books.snapshot();
    books.record({ modelId: 'a', outcome: 'success', inputTokens: 1, outputTokens: 1, fingerprint: 'f' });
    expect(before.byModel.a?.success?.calls).toBe(1);
    expect(before.successes.f?.count).toBe(1);
  });
});
