/**
 * What a request can cost at most, from the request alone: every call reserves its worst case
 * before it is sent (the chunk's allotment, the per-minute token budget, the job's intents).
 */
import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { jsonBytes } from '../json-bytes.js';
import { costOf, type ModelPrice } from '../model-catalogue.js';

/** Upper bound of a call's input tokens: a token is at least one byte of what is sent. */
export function worstCaseInputTokens(input: ConverseCommandInput): number {
  return tokenBounds(input).total;
}

/**
 * Upper bound of the tokens before the request's `cachePoint`, which Bedrock may bill as a
 * cache write; 0 without one.
 */
export function worstCasePrefixTokens(input: ConverseCommandInput): number {
  return tokenBounds(input).prefix;
}

/**
 * Both bounds of a request, measured once per request object: a call's first request is priced
 * for its intent, for its reservation and for its per-minute budget, each a walk of about 10 kB.
 */
function tokenBounds(input: ConverseCommandInput): { total: number; prefix: number } {
  let bounds = TOKEN_BOUNDS.get(input);
  if (!bounds) {
    const content = input.messages?.[0]?.content ?? [];
    const at = content.findIndex((b) => 'cachePoint' in b && b.cachePoint !== undefined);
    bounds = {
      total: jsonBytes({ s: input.system, m: input.messages, t: input.toolConfig }) + 64,
      prefix: at < 0 ? 0 : jsonBytes({ s: input.system, m: content.slice(0, at), t: input.toolConfig }),
    };
    TOKEN_BOUNDS.set(input, bounds);
  }
  return bounds;
}

const TOKEN_BOUNDS = new WeakMap<ConverseCommandInput, { total: number; prefix: number }>();

/**
 * Worst-case cost of sending `input` to `modelId`: every input token at the input price, and
 * the cacheable prefix at the cache-write price where that is dearer (a first call, or one
 * after the cache entry expired, writes it). Throws for a model without a price.
 */
export function worstCaseCost(
  input: ConverseCommandInput,
  modelId: string,
  maxTokens: number,
  prices: Readonly<Record<string, ModelPrice>>,
): number {
  const total = worstCaseInputTokens(input);
  const prefix = worstCasePrefixTokens(input);
  const p = prices[modelId];
  const writeDearer = p !== undefined && p.cacheWritePer1k > p.inputPer1k;
  return costOf(
    modelId,
    writeDearer
      ? { inputTokens: total - prefix, cacheWriteInputTokens: prefix, outputTokens: maxTokens }
      : { inputTokens: total, outputTokens: maxTokens },
    prices,
  );
}
