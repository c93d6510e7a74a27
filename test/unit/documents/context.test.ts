import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContentBlock } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import { ANALYSTS, analystById, buildConverseInput } from '../../../lambdas/core/analysts/index.js';
import { findDocumentContext, isDefinitionClause } from '../../../lambdas/core/documents/document-context.js';
import { parseDocument } from '../../../lambdas/core/documents/index.js';
import { quoteJob } from '../../../lambdas/core/intake/quote.js';
import { costOf, FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import {
  worstCaseCost,
  worstCaseInputTokens,
  worstCasePrefixTokens,
} from '../../../lambdas/core/worker/worst-case.js';

const SAMPLE = 'BELLICUMPHARMACEUTICALS_INC_05_07_2019-EX-10_1-Supply_Agreement.txt';
const SMALL = 'GALACTICOMMTECHNOLOGIESINC_11_07_1997-EX-10_46-WEB_HOSTING_AGREEMENT.txt';

async function parsed(name: string) {
  const bytes = readFileSync(join(import.meta.dirname, '../../fixtures/contracts', name));
  return parseDocument(bytes, { key: name, maxBytes: 10 * 1024 * 1024, chunk: { maxClauses: 8 } });
}

/** The element at `i`, failing the test when there is none. */
function at<T>(items: readonly T[], i: number): T {
  const item = items[i];
  if (item === undefined) throw new Error(`no element ${i}`);
  return item;
}

const hasCachePoint = (content: readonly ContentBlock[] | undefined) =>
  (content ?? []).some((b) => 'cachePoint' in b && b.cachePoint !== undefined);

describe('the document context', () => {
  it('finds the title, the parties and the definitions section of a real contract', async () => {
    const doc = await parsed(SAMPLE);
    const ctx = findDocumentContext(doc.text, doc.clauses);
    expect(ctx.title).toBe('SUPPLY AGREEMENT');
    expect(ctx.parties).toMatch(/by and between Miltenyi Biotec GmbH/);
    expect(ctx.definitions).toContain('"Affiliate" means');
    expect(ctx.definitions).toContain('"Agreed Standards" means');
    expect(ctx.definitions.length).toBeLessThanOrEqual(24_000);
    expect(ctx.more).not.toContain('"Affiliate" means');
  });

  it('tells definition clauses from others', () => {
    expect(isDefinitionClause({ text: '"Losses" means any and all damages.' })).toBe(true);
    expect(isDefinitionClause({ heading: 'Article 1 DEFINITIONS', text: 'In this Agreement:' })).toBe(true);
    expect(isDefinitionClause({ text: 'The Supplier shall deliver the Products.' })).toBe(false);
  });
});

describe('the shared, cacheable prefix', () => {
  it('puts the context before a cachePoint, the same for every clause of one analyst', async () => {
    const doc = await parsed(SAMPLE);
    const context = findDocumentContext(doc.text, doc.clauses);
    const analyst = analystById('liability-counsel');
    const [a, b] = [doc.clauses[40], doc.clauses[90]].map((c) =>
      buildConverseInput(analyst, c ?? at(doc.clauses, 0), { modelId: PRIMARY_MODEL_ID, context }),
    );
    const [ca, cb] = [a?.messages?.[0]?.content ?? [], b?.messages?.[0]?.content ?? []];
    expect(ca[0]).toEqual(cb[0]);
    expect(ca[0]?.text).toContain('Defined terms');
    expect(hasCachePoint(ca)).toBe(true);
    // The clause itself comes after the checkpoint, in its tags.
    expect(ca[2]?.text).toMatch(/<clause-([0-9a-f]{16})>[\s\S]*<\/clause-\1>$/);
    // The prefix meets Claude Haiku 4.5's minimum of 4,096 tokens (four characters each).
    expect(worstCasePrefixTokens(a ?? {}) / 4).toBeGreaterThan(4096);
  });

  it('leaves the cachePoint out when even the whole document cannot reach the model minimum', async () => {
    const doc = await parsed(SMALL);
    const context = findDocumentContext(doc.text, doc.clauses);
    // Claude Haiku 4.5 caches from 4,096 tokens, more than the small contract has.
    const input = buildConverseInput(at(ANALYSTS, 0), at(doc.clauses, 0), {
      modelId: 'us.anthropic.claude-haiku-4-5-20251001-v1:0',
      context,
    });
    expect(input.messages?.[0]?.content?.[0]?.text).toContain('About the contract');
    expect(hasCachePoint(input.messages?.[0]?.content)).toBe(false);
  });

  it('reserves the prefix at the cache-write price, which is dearer than input', async () => {
    const doc = await parsed(SAMPLE);
    const context = findDocumentContext(doc.text, doc.clauses);
    const analyst = at(ANALYSTS, 0);
    const input = buildConverseInput(analyst, at(doc.clauses, 5), { modelId: PRIMARY_MODEL_ID, context });
    const all = worstCaseInputTokens(input);
    const prefix = worstCasePrefixTokens(input);
    expect(worstCaseCost(input, PRIMARY_MODEL_ID, 512, { [PRIMARY_MODEL_ID]: priceOfPrimary() })).toBe(
      costOf(PRIMARY_MODEL_ID, {
        inputTokens: all - prefix,
        cacheWriteInputTokens: prefix,
        outputTokens: 512,
      }),
    );
  });
});

function priceOfPrimary() {
  return { inputPer1k: 110, outputPer1k: 550, cacheReadPer1k: 11, cacheWritePer1k: 137.5 };
}

describe('the cost quote', () => {
  it('expects cache reads for a cacheable prefix, and quotes the worst case with no cache hit and full answers', async () => {
    const doc = await parsed(SAMPLE);
    const context = findDocumentContext(doc.text, doc.clauses);
    const withCache = quoteJob(doc.clauses, ANALYSTS, context);
    const without = quoteJob(doc.clauses, ANALYSTS, undefined);
    expect(withCache.expectedMicros).toBeLessThan(withCache.worstCaseMicros);
    // The definitions cost less with caching than today's prompts without them cost uncached.
    expect(withCache.expectedMicros).toBeLessThan(without.expectedMicros);
    // On the sample, the default $20 ceiling covers the expected cost.
    expect(withCache.expectedMicros).toBeLessThan(20_000_000);
  });

  it('prices each analyst on its own model', async () => {
    const doc = await parsed(SMALL);
    const cheap = quoteJob(doc.clauses, ANALYSTS, undefined);
    const dear = quoteJob(
      doc.clauses,
      ANALYSTS.map((a) => ({ ...a, modelId: FALLBACK_MODEL_ID })),
      undefined,
    );
    expect(dear.expectedMicros).toBeGreaterThan(2.5 * cheap.expectedMicros);
  });
});
