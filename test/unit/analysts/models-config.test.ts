import { describe, expect, it } from 'vitest';
import {
  ANALYSTS,
  checkPanelModels,
  modelsOf,
  panelModelIds,
  withModels,
  withPrimary,
} from '../../../lambdas/core/analysts/index.js';
import { readJobOptions } from '../../../lambdas/core/intake/job-options.js';
import {
  costOf,
  costOfTotals,
  FALLBACK_MODEL_ID,
  MODELS,
  modelSpec,
  PRIMARY_MODEL_ID,
  quotaTokens,
  tokensOf,
  UnpricedModelError,
} from '../../../lambdas/core/model-catalogue.js';
import { ConfigError, loadConfig, panelModelsOf } from '../../../lambdas/shared/config.js';
import { queueUrlsVariable } from '../../helpers/deployed-env.js';

const ENV = {
  TABLE_NAME: 't',
  INTAKE_BUCKET: 'i',
  RESULTS_BUCKET: 'r',
  QUEUE_URLS: queueUrlsVariable('http://q'),
};

describe('the price table', () => {
  it('prices every default with input, output, cache-read and cache-write prices', () => {
    for (const id of [PRIMARY_MODEL_ID, FALLBACK_MODEL_ID]) {
      const p = modelSpec(id).price;
      expect(p.inputPer1k).toBeGreaterThan(0);
      expect(p.outputPer1k).toBeGreaterThan(p.inputPer1k);
      expect(p.cacheReadPer1k).toBeLessThan(p.inputPer1k);
      expect(p.cacheWritePer1k).toBeGreaterThan(p.inputPer1k);
    }
  });

  it('invokes the defaults through cross-region inference profiles', () => {
    expect(modelSpec(PRIMARY_MODEL_ID)).toMatchObject({
      foundationModelId: 'anthropic.claude-haiku-5-5',
      profileRegions: ['us-east-1', 'us-east-2', 'us-west-2'],
      cacheMinTokens: 512,
      samplingRefused: true,
      thinksByDefault: true,
    });
    expect(modelSpec(FALLBACK_MODEL_ID)).toMatchObject({
      foundationModelId: 'anthropic.claude-sonnet-4-6',
      profileRegions: ['us-east-1', 'us-east-2', 'us-west-2'],
      cacheMinTokens: 2048,
    });
    // Haiku 4.5 and Sonnet 4.5 stay priced for stacks deployed with them, at their own cache minimums.
    expect(modelSpec('us.anthropic.claude-haiku-4-5-20251001-v1:0').cacheMinTokens).toBe(4096);
    expect(modelSpec('us.anthropic.claude-sonnet-4-5-20250929-v1:0').cacheMinTokens).toBe(1024);
    expect(Object.keys(MODELS).some((id) => id.includes('claude-3-haiku'))).toBe(false);
  });

  it('bills cached input at the cache prices, each part rounded up', () => {
    // Haiku 5.5 through the US profile: $0.11 in, $0.55 out, $0.011 cache read, $0.1375 cache
    // write per million tokens (the list prices of $0.10, $0.50, $0.01 and $0.125, and the
    // profile's 10%).
    expect(modelSpec(PRIMARY_MODEL_ID).price).toMatchObject({
      inputPer1k: 110,
      outputPer1k: 550,
      cacheReadPer1k: 11,
      cacheWritePer1k: 137.5,
    });
    expect(costOf(PRIMARY_MODEL_ID, { inputTokens: 1000, outputTokens: 200 })).toBe(110 + 110);
    expect(
      costOf(PRIMARY_MODEL_ID, {
        inputTokens: 100,
        outputTokens: 200,
        cacheReadInputTokens: 5000,
        cacheWriteInputTokens: 1,
      }),
    ).toBe(11 + 110 + 55 + 1);
    // Haiku 4.5: $1.10, $5.50, $0.11, $1.375.
    expect(modelSpec('us.anthropic.claude-haiku-4-5-20251001-v1:0').price).toEqual({
      inputPer1k: 1100,
      outputPer1k: 5500,
      cacheReadPer1k: 110,
      cacheWritePer1k: 1375,
    });
  });

  it('bills a prompt over 100,000 tokens whole at the long-prompt rates', () => {
    // $0.50 in, $2.50 out, $0.05 cache read, $0.625 cache write per million, with the 10%.
    const at = (prompt: number) => costOf(PRIMARY_MODEL_ID, { inputTokens: prompt, outputTokens: 1000 });
    expect(at(100_000)).toBe(11_000 + 550);
    expect(at(100_001)).toBe(Math.ceil((100_001 * 550) / 1000) + 2750);
    // Cache reads count toward the prompt, and are then billed at the long rate too.
    expect(
      costOf(PRIMARY_MODEL_ID, { inputTokens: 1000, cacheReadInputTokens: 100_000, outputTokens: 0 }),
    ).toBe(550 + 5500);
    // Totals of many short calls stay at the standard rates, however large they add up to.
    expect(costOfTotals(PRIMARY_MODEL_ID, { inputTokens: 1_000_000, outputTokens: 1000 })).toBe(
      110_000 + 550,
    );
  });

  it("turns the tokens of a text into the model tokenizer's count", () => {
    expect(tokensOf('us.anthropic.claude-haiku-4-5-20251001-v1:0', 400)).toBe(100);
    expect(tokensOf(PRIMARY_MODEL_ID, 400)).toBe(130);
    expect(tokensOf('unknown.model', 400)).toBe(100);
  });

  it('counts quota tokens as Bedrock does: input and cache writes, output at the burndown, no cache reads', () => {
    const usage = {
      inputTokens: 100,
      outputTokens: 20,
      cacheReadInputTokens: 5_000,
      cacheWriteInputTokens: 300,
    };
    expect(quotaTokens(PRIMARY_MODEL_ID, usage)).toBe(100 + 300 + 5 * 20);
    expect(quotaTokens('amazon.nova-lite-v1:0', usage)).toBe(100 + 300 + 20);
  });

  it('refuses a model without a price, naming it', () => {
    expect(() => modelSpec('anthropic.claude-3-haiku-20240307-v1:0')).toThrow(UnpricedModelError);
    expect(() => costOf('meta.llama3-8b-instruct-v1:0', { inputTokens: 1, outputTokens: 1 })).toThrow(
      /'meta.llama3-8b-instruct-v1:0' has no entry in the price table/,
    );
  });
});

describe('the panel models', () => {
  const panel = {
    primary: PRIMARY_MODEL_ID,
    fallback: FALLBACK_MODEL_ID,
    perAnalyst: { 'ip-counsel': { primary: 'eu.anthropic.claude-haiku-4-5-20251001-v1:0' } },
  };

  it('give each analyst the default unless it has its own', () => {
    expect(modelsOf(panel, 'liability-counsel')).toEqual({
      primary: PRIMARY_MODEL_ID,
      fallback: FALLBACK_MODEL_ID,
    });
    expect(modelsOf(panel, 'ip-counsel')).toEqual({
      primary: 'eu.anthropic.claude-haiku-4-5-20251001-v1:0',
      fallback: FALLBACK_MODEL_ID,
    });
    const ip = withModels(ANALYSTS, panel).find((a) => a.id === 'ip-counsel');
    expect(ip?.modelId).toBe('eu.anthropic.claude-haiku-4-5-20251001-v1:0');
    expect(panelModelIds(panel)).toEqual([
      PRIMARY_MODEL_ID,
      'eu.anthropic.claude-haiku-4-5-20251001-v1:0',
      FALLBACK_MODEL_ID,
    ]);
  });

  it('put a one-run primary in place of every primary, overrides included', () => {
    const one = withPrimary(panel, FALLBACK_MODEL_ID);
    expect(withModels(ANALYSTS, one).every((a) => a.modelId === FALLBACK_MODEL_ID)).toBe(true);
  });

  it('are refused when a model has no price or an override names no analyst', () => {
    expect(() => checkPanelModels({ ...panel, fallback: 'amazon.titan-text-lite-v1' })).toThrow(
      UnpricedModelError,
    );
    expect(() =>
      checkPanelModels({ ...panel, perAnalyst: { nobody: { primary: PRIMARY_MODEL_ID } } }),
    ).toThrow(/unknown analyst 'nobody'/);
  });
});

describe('the runtime configuration of models', () => {
  it('reads the primary, the fallback and per-analyst overrides from the environment', () => {
    const config = loadConfig({
      ...ENV,
      MODEL_ID: 'eu.anthropic.claude-haiku-4-5-20251001-v1:0',
      ANALYST_MODELS: JSON.stringify({
        'ip-counsel': { fallback: 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0' },
      }),
    });
    expect(panelModelsOf(config)).toEqual({
      primary: 'eu.anthropic.claude-haiku-4-5-20251001-v1:0',
      fallback: FALLBACK_MODEL_ID,
      perAnalyst: { 'ip-counsel': { fallback: 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0' } },
    });
  });

  it('refuses an unpriced model or malformed overrides at start, naming them', () => {
    expect(() => loadConfig({ ...ENV, MODEL_ID: 'anthropic.claude-3-haiku-20240307-v1:0' })).toThrow(
      /models: model 'anthropic.claude-3-haiku-20240307-v1:0' has no entry in the price table/,
    );
    expect(() => loadConfig({ ...ENV, ANALYST_MODELS: '[1' })).toThrow(ConfigError);
  });

  it('reads per-model budgets, unlimited by default, and refuses a malformed one naming the problem', () => {
    expect(loadConfig(ENV).MODEL_BUDGETS).toEqual({});
    const budgets = { [PRIMARY_MODEL_ID]: { tokensPerMinute: 5_000_000, requestsPerMinute: 10_000 } };
    expect(loadConfig({ ...ENV, MODEL_BUDGETS: JSON.stringify(budgets) }).MODEL_BUDGETS).toEqual(budgets);
    expect(() => loadConfig({ ...ENV, MODEL_BUDGETS: JSON.stringify({ m: {} }) })).toThrow(
      /MODEL_BUDGETS: m: a budget names tokensPerMinute, requestsPerMinute or both/,
    );
    expect(() =>
      loadConfig({ ...ENV, MODEL_BUDGETS: JSON.stringify({ m: { tokensPerMinute: -1 } }) }),
    ).toThrow(ConfigError);
    expect(() => loadConfig({ ...ENV, MODEL_BUDGETS: '{' })).toThrow(/MODEL_BUDGETS: not a JSON object/);
  });

  it("lets an upload's model option replace the primary of one job, and refuses an unpriced one", () => {
    const defaults = {
      lane: 'realtime' as const,
      ceilingMicros: 1,
      models: { primary: PRIMARY_MODEL_ID, fallback: FALLBACK_MODEL_ID },
    };
    expect(readJobOptions({ model: FALLBACK_MODEL_ID }, {}, defaults).models.primary).toBe(FALLBACK_MODEL_ID);
    expect(readJobOptions({}, {}, defaults).models).toEqual(defaults.models);
    expect(() => readJobOptions({ model: 'nope.model-v1' }, {}, defaults)).toThrow(
      /the 'model' option is not valid: model 'nope.model-v1' has no entry in the price table/,
    );
  });
});
