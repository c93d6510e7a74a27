/**
 * The model lifecycle guard against the stand-in's control plane, through the real
 * `@aws-sdk/client-bedrock` client: active defaults, a retired model, a legacy one with its
 * end-of-life date, a base id of a profile-only model, and the guard's memory.
 */
import { BedrockClient } from '@aws-sdk/client-bedrock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import {
  blockingReason,
  checkModel,
  checkModels,
  LifecycleGuard,
} from '../../lambdas/core/model-lifecycle.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { type BedrockStandIn, startBedrockStandIn } from '../../localstack/bedrock/index.js';

let standIn: BedrockStandIn;
let bedrock: BedrockClient;

beforeAll(async () => {
  standIn = await startBedrockStandIn();
  bedrock = new BedrockClient({
    endpoint: standIn.url,
    region: 'us-east-1',
    credentials: EMULATOR_CREDENTIALS,
  });
});
afterAll(async () => {
  bedrock.destroy();
  await standIn.close();
});
beforeEach(() => {
  standIn.setPlan({}, { replace: true });
});

/** Marks the fallback's foundation model LEGACY, with its end of life at `endOfLifeTime`. */
function sonnetLegacyUntil(endOfLifeTime: string): void {
  standIn.setPlan({
    catalogue: {
      lifecycle: { 'anthropic.claude-sonnet-4-6': { status: 'LEGACY', endOfLifeTime } },
    },
  });
}

describe('the model lifecycle guard', () => {
  it('finds the default models active through their inference profiles', async () => {
    const verdicts = await checkModels(bedrock, [PRIMARY_MODEL_ID, FALLBACK_MODEL_ID], 'us-east-1');
    expect(verdicts.map((v) => [v.modelId, v.state, v.level])).toEqual([
      [PRIMARY_MODEL_ID, 'ACTIVE', 'ok'],
      [FALLBACK_MODEL_ID, 'ACTIVE', 'ok'],
    ]);
    expect(blockingReason(verdicts)).toBeUndefined();
  });

  it('refuses a retired model, saying it reached end of life and naming an active replacement', async () => {
    const v = await checkModel(bedrock, 'anthropic.claude-3-haiku-20240307-v1:0', 'us-east-1');
    expect(v).toMatchObject({ state: 'END_OF_LIFE', level: 'error' });
    expect(v.message).toContain('has reached end of life');
    expect(v.message).toContain(PRIMARY_MODEL_ID);
    expect(blockingReason([v])).toBe(v.message);
  });

  it('warns about a legacy model with its end-of-life date, and refuses it once the date has passed', async () => {
    sonnetLegacyUntil('2099-03-01T00:00:00Z');
    const legacy = await checkModel(bedrock, FALLBACK_MODEL_ID, 'us-east-1');
    expect(legacy).toMatchObject({ state: 'LEGACY', level: 'warning', endOfLifeTime: '2099-03-01' });
    expect(legacy.message).toMatch(/LEGACY and reaches end of life on 2099-03-01/);

    sonnetLegacyUntil('2026-01-01T00:00:00Z');
    expect(await checkModel(bedrock, FALLBACK_MODEL_ID, 'us-east-1')).toMatchObject({
      state: 'END_OF_LIFE',
      level: 'error',
    });
  });

  it('refuses the base id of a model served only through inference profiles, naming the profile ids', async () => {
    const v = await checkModel(bedrock, 'anthropic.claude-haiku-4-5-20251001-v1:0', 'us-east-1');
    expect(v).toMatchObject({ state: 'UNSUPPORTED', level: 'error' });
    expect(v.message).toContain("'us.anthropic.claude-haiku-4-5-20251001-v1:0'");
  });

  it('remembers a verdict for its time to live, then asks again', async () => {
    let now = 0;
    const guard = new LifecycleGuard(bedrock, 'us-east-1', 1000, () => now);
    expect((await guard.check([FALLBACK_MODEL_ID]))[0]?.state).toBe('ACTIVE');
    sonnetLegacyUntil('2026-01-01T00:00:00Z');
    expect((await guard.check([FALLBACK_MODEL_ID]))[0]?.state).toBe('ACTIVE');
    now = 1001;
    expect((await guard.check([FALLBACK_MODEL_ID]))[0]?.state).toBe('END_OF_LIFE');
  });
});
