import { describe, expect, it } from 'vitest';
import {
  Catalogue,
  type CatalogueModel,
  effectiveLifecycle,
  foundationModelArn,
  inferenceProfileArn,
} from '../../../localstack/bedrock/catalogue.js';
import { DEFAULT_CATALOGUE } from '../../../localstack/bedrock/catalogue-models.js';

const HAIKU_45 = 'anthropic.claude-haiku-4-5-20251001-v1:0';
const catalogue = new Catalogue(DEFAULT_CATALOGUE);

function entry(modelId: string): CatalogueModel {
  const model = catalogue.model(modelId);
  if (!model) throw new Error(`${modelId} is not in the catalogue`);
  return model;
}

describe('catalogue lookup', () => {
  it('resolves base ids, profile ids and both kinds of ARN', () => {
    expect(catalogue.resolve(HAIKU_45)).toEqual({ model: catalogue.model(HAIKU_45) });
    expect(catalogue.resolve(`us.${HAIKU_45}`)?.viaProfile).toEqual({
      geography: 'us',
      profileId: `us.${HAIKU_45}`,
    });
    expect(catalogue.resolve(`global.${HAIKU_45}`)?.viaProfile?.geography).toBe('global');
    expect(catalogue.resolve(foundationModelArn('eu-west-1', 'amazon.nova-lite-v1:0'))?.model.modelId).toBe(
      'amazon.nova-lite-v1:0',
    );
    const arn = inferenceProfileArn('us-east-1', `eu.${HAIKU_45}`);
    expect(catalogue.resolve(arn)?.viaProfile).toEqual({ geography: 'eu', profileId: `eu.${HAIKU_45}` });
  });

  it('knows nothing of unknown ids or profiles a model does not have', () => {
    expect(catalogue.resolve('test-model')).toBeUndefined();
    expect(catalogue.resolve('eu.amazon.nova-pro-v1:0')).toBeUndefined();
    expect(catalogue.resolve('apac.anthropic.claude-haiku-4-5-20251001-v1:0')).toBeUndefined();
    expect(catalogue.resolve('arn:aws:bedrock:us-east-1::foundation-model/nope.nope-v1:0')).toBeUndefined();
  });
});

describe('the Claude models the pipeline defaults to', () => {
  it('serves Sonnet 4.6 under its dateless id, through its us., eu. and global. profiles only', () => {
    const sonnet = entry('anthropic.claude-sonnet-4-6');
    expect(sonnet).toMatchObject({
      modelName: 'Claude Sonnet 4.6',
      inferenceTypesSupported: ['INFERENCE_PROFILE'],
      lifecycle: { status: 'ACTIVE', startOfLifeTime: '2026-02-17T00:00:00Z' },
      promptCaching: { minTokensPerCheckpoint: 2_048, maxCheckpoints: 4 },
      temperatureTopPExclusive: true,
      toolUse: true,
    });
    expect(Object.keys(sonnet.profiles).sort()).toEqual(['eu', 'global', 'us']);
    expect(sonnet.lifecycle.endOfLifeTime).toBeUndefined();
    expect(catalogue.resolve('us.anthropic.claude-sonnet-4-6')?.viaProfile?.geography).toBe('us');
    expect(catalogue.resolve('apac.anthropic.claude-sonnet-4-6')).toBeUndefined();
  });

  it("keeps each model card's cache minimum: Haiku 4.5 4,096, Sonnet 4.5 1,024, Sonnet 4.6 2,048", () => {
    expect(entry(HAIKU_45).promptCaching?.minTokensPerCheckpoint).toBe(4_096);
    expect(entry('anthropic.claude-sonnet-4-5-20250929-v1:0').promptCaching?.minTokensPerCheckpoint).toBe(
      1_024,
    );
    expect(entry('anthropic.claude-sonnet-4-6').promptCaching?.minTokensPerCheckpoint).toBe(2_048);
  });

  it('lists Haiku 4.5, Sonnet 4.5 and Sonnet 4.6 as ACTIVE', () => {
    for (const id of [HAIKU_45, 'anthropic.claude-sonnet-4-5-20250929-v1:0', 'anthropic.claude-sonnet-4-6']) {
      expect(entry(id).lifecycle.status).toBe('ACTIVE');
    }
  });
});

describe('effective lifecycle', () => {
  const model = entry(HAIKU_45);
  it('applies overrides and turns a passed end-of-life date into EOL', () => {
    const now = Date.parse('2026-11-23T00:00:00Z');
    expect(effectiveLifecycle(model, undefined, now).status).toBe('ACTIVE');
    const legacy = { status: 'LEGACY' as const, endOfLifeTime: '2026-12-19T00:00:00Z' };
    expect(effectiveLifecycle(model, legacy, now)).toMatchObject({
      status: 'LEGACY',
      endOfLifeTime: legacy.endOfLifeTime,
    });
    expect(effectiveLifecycle(model, legacy, Date.parse('2026-12-19T00:00:00Z')).status).toBe('EOL');
    expect(effectiveLifecycle(entry('anthropic.claude-3-haiku-20240307-v1:0'), undefined, now).status).toBe(
      'EOL',
    );
  });
});
