/**
 * The cost quote of a job, computed at intake before any money is spent: what the planned
 * calls are expected to cost, and what they cost at worst.
 *
 * Tokens are estimated at four characters each, as Bedrock's own count of English text comes
 * out and as the stand-in counts exactly. Output is calibrated on the stand-in: about 80 tokens
 * per call plus 50 per category the analyst scores (the README sample averages 179 per call).
 *
 * - expected: every call's cacheable prefix read from the prompt cache (one cache write per
 *   analyst and model), the rest of its input at the input price, and the calibrated output.
 * - worst case: no cache hit at all (every prefix written again), every answer as long as its
 *   `maxTokens`, on the primary model. Retries and the fallback model can cost more; the
 *   ceiling still holds them.
 */
import {
  type AnalystDefinition,
  buildConverseInput,
  estimatedTokens,
  inputChars,
} from '../analysts/index.js';
import type { DocumentContext } from '../documents/document-context.js';
import type { Clause } from '../model.js';
import { costOf } from '../models.js';

/** The quote, micro-dollars. */
export interface CostQuote {
  readonly expectedMicros: number;
  readonly worstCaseMicros: number;
}

/** Output tokens of an answer on the stand-in: a base plus a share per category scored. */
export const OUTPUT_TOKENS = { perCall: 80, perCategory: 50 } as const;

/** The quote of `clauses` × `analysts`, with the prompt each call will send. */
export function quoteJob(
  clauses: readonly Clause[],
  analysts: readonly AnalystDefinition[],
  context: DocumentContext | undefined,
): CostQuote {
  let expected = 0;
  let worst = 0;
  for (const analyst of analysts) {
    const modelId = analyst.modelId;
    const output = OUTPUT_TOKENS.perCall + OUTPUT_TOKENS.perCategory * analyst.categories.length;
    let prefixTokens: number | undefined;
    for (const clause of clauses) {
      const input = buildConverseInput(analyst, clause, { modelId, ...(context ? { context } : {}) });
      const all = estimatedTokens(inputChars(input, false));
      const cached = input.messages?.[0]?.content?.some((b) => b.cachePoint) ?? false;
      const prefix = cached ? estimatedTokens(inputChars(input, true)) : 0;
      prefixTokens ??= prefix;
      expected += costOf(modelId, {
        inputTokens: all - prefix,
        cacheReadInputTokens: prefix,
        outputTokens: output,
      });
      worst += costOf(modelId, {
        inputTokens: all - prefix,
        cacheWriteInputTokens: prefix,
        outputTokens: analyst.maxTokens,
      });
    }
    // The first call of each analyst writes the prefix instead of reading it.
    if (prefixTokens) {
      expected +=
        costOf(modelId, { inputTokens: 0, outputTokens: 0, cacheWriteInputTokens: prefixTokens }) -
        costOf(modelId, { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: prefixTokens });
    }
  }
  return { expectedMicros: expected, worstCaseMicros: worst };
}
