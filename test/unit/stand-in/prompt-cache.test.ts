import { describe, expect, it } from 'vitest';
import type { PromptCachingSpec } from '../../../localstack/bedrock/catalogue.js';
import type { ConverseRequest } from '../../../localstack/bedrock/converse-request.js';
import { CACHE_TTL_MS, cacheCheckpoints, PromptCache } from '../../../localstack/bedrock/prompt-cache.js';

const SPEC: PromptCachingSpec = {
  minTokensPerCheckpoint: 100,
  maxCheckpoints: 4,
  fields: ['system', 'messages'],
};
const POINT = { cachePoint: { type: 'default' } };
const text = (tokens: number) => ({ text: 'x'.repeat(tokens * 4) });

const request = (
  system: Record<string, unknown>[],
  content: Record<string, unknown>[] = [text(1)],
): ConverseRequest => ({
  system,
  messages: [{ role: 'user', content }],
});

describe('cache checkpoints', () => {
  it('counts a checkpoint only when the tokens since the previous counted one reach the minimum', () => {
    const points = cacheCheckpoints(request([text(150), POINT, text(50), POINT, text(60), POINT]), 'm', SPEC);
    expect(points.map((p) => p.tokens)).toEqual([150, 260]);
  });

  it('ignores fields the model cannot cache and keys by model and content', () => {
    const withTools: ConverseRequest = {
      ...request([text(150), POINT]),
      toolConfig: { tools: [{ toolSpec: { name: 't', inputSchema: { json: {} } } }, POINT] },
    };
    expect(cacheCheckpoints(withTools, 'm', SPEC)).toHaveLength(1);
    const [a] = cacheCheckpoints(request([text(150), POINT]), 'm', SPEC);
    const [b] = cacheCheckpoints(request([text(150), POINT]), 'other', SPEC);
    const [c] = cacheCheckpoints(request([text(150), POINT], [text(2)]), 'm', SPEC);
    expect(a?.key).not.toBe(b?.key);
    expect(a?.key).toBe(c?.key); // content after the checkpoint is not part of the prefix
  });
});

describe('prompt cache', () => {
  it('writes, reads, refreshes on hit and expires after the TTL', () => {
    let now = 0;
    const cache = new PromptCache(() => now);
    const points = cacheCheckpoints(request([text(150), POINT, text(200), POINT]), 'm', SPEC);
    expect(cache.use(points)).toEqual({
      cacheReadInputTokens: 0,
      cacheWriteInputTokens: 350,
      writeTtl: '5m',
    });
    expect(cache.use(points)).toEqual({ cacheReadInputTokens: 350, cacheWriteInputTokens: 0 });
    const first = points.slice(0, 1);
    now += CACHE_TTL_MS - 1;
    expect(cache.use(first).cacheReadInputTokens).toBe(150);
    now += CACHE_TTL_MS - 1;
    // The longer entry expired (not hit since), the shorter one was refreshed.
    expect(cache.use(points)).toEqual({
      cacheReadInputTokens: 150,
      cacheWriteInputTokens: 200,
      writeTtl: '5m',
    });
    now += CACHE_TTL_MS;
    expect(cache.size()).toBe(0);
  });
});
