/**
 * The Bedrock stand-in's control plane through the real `@aws-sdk/client-bedrock` client:
 * GetFoundationModel, ListFoundationModels, GetInferenceProfile, ListInferenceProfiles, with
 * the region taken from the SigV4 credential scope, and lifecycle changes made by tests.
 */
import {
  BedrockClient,
  GetFoundationModelCommand,
  GetInferenceProfileCommand,
  ListFoundationModelsCommand,
  ListInferenceProfilesCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-bedrock';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ResourceNotFoundException as RuntimeResourceNotFoundException,
} from '@aws-sdk/client-bedrock-runtime';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BedrockStandIn, startBedrockStandIn } from '../../localstack/bedrock/index.js';

const HAIKU_45 = 'anthropic.claude-haiku-4-5-20251001-v1:0';
const SONNET_45 = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const NOVA_PRO = 'amazon.nova-pro-v1:0';
const NOVA_PREMIER = 'amazon.nova-premier-v1:0';
const CLAUDE_3_HAIKU = 'anthropic.claude-3-haiku-20240307-v1:0';
const START = Date.parse('2026-11-23T12:00:00Z');
const US = ['us-east-1', 'us-east-2', 'us-west-2'];
const EU = ['eu-central-1', 'eu-north-1', 'eu-south-1', 'eu-south-2', 'eu-west-1', 'eu-west-3'];

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
let standIn: BedrockStandIn;
let usEast1: BedrockClient;
let euWest1: BedrockClient;
let runtime: BedrockRuntimeClient;

async function notFound(promise: Promise<unknown>): Promise<ResourceNotFoundException> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ResourceNotFoundException);
  const typed = error as ResourceNotFoundException;
  expect(typed.$metadata.httpStatusCode).toBe(404);
  return typed;
}

beforeAll(async () => {
  standIn = await startBedrockStandIn({ now: () => START, plan: { catalogue: { enforce: true } } });
  const options = { endpoint: standIn.url, credentials, maxAttempts: 1 };
  usEast1 = new BedrockClient({ region: 'us-east-1', ...options });
  euWest1 = new BedrockClient({ region: 'eu-west-1', ...options });
  runtime = new BedrockRuntimeClient({ region: 'us-east-1', ...options });
});

afterAll(async () => {
  for (const client of [usEast1, euWest1, runtime]) client.destroy();
  await standIn.close();
});

beforeEach(() => {
  standIn.setPlan({ catalogue: { enforce: true } }, { replace: true });
});

describe('GetFoundationModel', () => {
  it('describes an active profile-only model in the caller region', async () => {
    const { modelDetails } = await euWest1.send(new GetFoundationModelCommand({ modelIdentifier: HAIKU_45 }));
    expect(modelDetails).toMatchObject({
      modelId: HAIKU_45,
      modelArn: `arn:aws:bedrock:eu-west-1::foundation-model/${HAIKU_45}`,
      providerName: 'Anthropic',
      modelName: 'Claude Haiku 4.5',
      inputModalities: ['TEXT', 'IMAGE'],
      outputModalities: ['TEXT'],
      responseStreamingSupported: true,
      inferenceTypesSupported: ['INFERENCE_PROFILE'],
      modelLifecycle: { status: 'ACTIVE', startOfLifeTime: new Date('2025-10-16T00:00:00Z') },
    });
    expect(modelDetails?.modelLifecycle?.endOfLifeTime).toBeUndefined();
  });

  it('describes on-demand models, also by foundation-model ARN', async () => {
    const { modelDetails } = await usEast1.send(
      new GetFoundationModelCommand({
        modelIdentifier: `arn:aws:bedrock:us-east-1::foundation-model/${NOVA_PRO}`,
      }),
    );
    expect(modelDetails?.inferenceTypesSupported).toEqual(['ON_DEMAND', 'INFERENCE_PROFILE']);
    expect(modelDetails?.modelArn).toBe(`arn:aws:bedrock:us-east-1::foundation-model/${NOVA_PRO}`);
  });

  it('describes a legacy model that is still served', async () => {
    const { modelDetails } = await usEast1.send(
      new GetFoundationModelCommand({ modelIdentifier: NOVA_PREMIER }),
    );
    expect(modelDetails?.modelLifecycle?.status).toBe('LEGACY');
  });

  it('does not find retired or unknown models', async () => {
    for (const modelIdentifier of [CLAUDE_3_HAIKU, 'anthropic.claude-3-sonnet-20240229-v1:0', 'test-model']) {
      const error = await notFound(usEast1.send(new GetFoundationModelCommand({ modelIdentifier })));
      expect(error.message).toBe(
        'Could not resolve the foundation model from the provided model identifier.',
      );
    }
  });
});

describe('ListFoundationModels', () => {
  it('lists active and legacy models, not retired ones', async () => {
    const { modelSummaries = [] } = await usEast1.send(new ListFoundationModelsCommand({}));
    const ids = modelSummaries.map((m) => m.modelId);
    expect(ids).toEqual(
      expect.arrayContaining([HAIKU_45, SONNET_45, NOVA_PRO, 'amazon.nova-lite-v1:0', NOVA_PREMIER]),
    );
    expect(ids).not.toContain(CLAUDE_3_HAIKU);
    expect(modelSummaries.find((m) => m.modelId === NOVA_PREMIER)?.modelLifecycle?.status).toBe('LEGACY');
  });

  it('filters by provider and inference type as the API does', async () => {
    const amazon = await usEast1.send(new ListFoundationModelsCommand({ byProvider: 'amazon' }));
    expect(new Set(amazon.modelSummaries?.map((m) => m.providerName))).toEqual(new Set(['Amazon']));
    const onDemand = await usEast1.send(new ListFoundationModelsCommand({ byInferenceType: 'ON_DEMAND' }));
    const ids = onDemand.modelSummaries?.map((m) => m.modelId);
    expect(ids).toContain(NOVA_PRO);
    expect(ids).not.toContain(HAIKU_45);
  });
});

describe('GetInferenceProfile', () => {
  it('describes a US profile with a model ARN per routed region', async () => {
    const profile = await usEast1.send(
      new GetInferenceProfileCommand({ inferenceProfileIdentifier: `us.${HAIKU_45}` }),
    );
    expect(profile).toMatchObject({
      inferenceProfileId: `us.${HAIKU_45}`,
      inferenceProfileArn: `arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.${HAIKU_45}`,
      inferenceProfileName: 'US Anthropic Claude Haiku 4.5',
      status: 'ACTIVE',
      type: 'SYSTEM_DEFINED',
    });
    expect(profile.models).toEqual(
      US.map((region) => ({ modelArn: `arn:aws:bedrock:${region}::foundation-model/${HAIKU_45}` })),
    );
    expect(profile.createdAt).toBeInstanceOf(Date);
  });

  it('describes EU and global profiles from an EU region, also by ARN', async () => {
    const eu = await euWest1.send(
      new GetInferenceProfileCommand({
        inferenceProfileIdentifier: `arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.${SONNET_45}`,
      }),
    );
    expect(eu.models?.map((m) => m.modelArn)).toEqual(
      EU.map((r) => `arn:aws:bedrock:${r}::foundation-model/${SONNET_45}`),
    );
    const global = await euWest1.send(
      new GetInferenceProfileCommand({ inferenceProfileIdentifier: `global.${HAIKU_45}` }),
    );
    expect(global.models).toEqual([{ modelArn: `arn:aws:bedrock:::foundation-model/${HAIKU_45}` }]);
    expect(global.inferenceProfileArn).toBe(
      `arn:aws:bedrock:eu-west-1:123456789012:inference-profile/global.${HAIKU_45}`,
    );
  });

  it('describes the US Nova Pro profile', async () => {
    const profile = await usEast1.send(
      new GetInferenceProfileCommand({ inferenceProfileIdentifier: `us.${NOVA_PRO}` }),
    );
    expect(profile.models?.map((m) => m.modelArn)).toEqual(
      US.map((r) => `arn:aws:bedrock:${r}::foundation-model/${NOVA_PRO}`),
    );
  });

  it('does not find profiles of another geography, of retired models, or that do not exist', async () => {
    for (const [client, id] of [
      [usEast1, `eu.${HAIKU_45}`],
      [euWest1, `us.${HAIKU_45}`],
      [usEast1, `us.${CLAUDE_3_HAIKU}`],
      [usEast1, `eu.${NOVA_PRO}`],
      [usEast1, HAIKU_45],
    ] as const) {
      await notFound(client.send(new GetInferenceProfileCommand({ inferenceProfileIdentifier: id })));
    }
  });

  it('lists the profiles the caller region may use', async () => {
    const { inferenceProfileSummaries = [] } = await euWest1.send(new ListInferenceProfilesCommand({}));
    const ids = inferenceProfileSummaries.map((p) => p.inferenceProfileId);
    expect(ids).toEqual(expect.arrayContaining([`eu.${HAIKU_45}`, `global.${HAIKU_45}`, `eu.${SONNET_45}`]));
    expect(ids).not.toContain(`us.${HAIKU_45}`);
  });
});

describe('lifecycle changes made by tests', () => {
  it('marks a model LEGACY with an end-of-life date, and retires it once the clock passes that date', async () => {
    const eol = '2026-12-19T00:00:00Z';
    standIn.setPlan({
      catalogue: {
        lifecycle: {
          [HAIKU_45]: { status: 'LEGACY', legacyTime: '2026-06-19T00:00:00Z', endOfLifeTime: eol },
        },
      },
    });
    const { modelDetails } = await usEast1.send(new GetFoundationModelCommand({ modelIdentifier: HAIKU_45 }));
    expect(modelDetails?.modelLifecycle).toMatchObject({
      status: 'LEGACY',
      legacyTime: new Date('2026-06-19T00:00:00Z'),
      endOfLifeTime: new Date(eol),
    });
    const converse = () =>
      runtime.send(
        new ConverseCommand({
          modelId: `us.${HAIKU_45}`,
          messages: [
            { role: 'user', content: [{ text: 'Assess: the Supplier shall indemnify the Customer.' }] },
          ],
        }),
      );
    expect((await converse()).stopReason).toBe('end_turn');

    standIn.advanceClock(Date.parse(eol) - standIn.now());
    await notFound(usEast1.send(new GetFoundationModelCommand({ modelIdentifier: HAIKU_45 })));
    await notFound(
      usEast1.send(new GetInferenceProfileCommand({ inferenceProfileIdentifier: `us.${HAIKU_45}` })),
    );
    const error = await converse().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(RuntimeResourceNotFoundException);
    expect(error?.message).toBe(
      'This model version has reached the end of its life. Please refer to the AWS documentation for more details.',
    );
  });

  it('retires a model over HTTP, and brings it back by removing the override', async () => {
    const put = (body: unknown) =>
      fetch(`${standIn.url}/_stand-in/plan`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await put({ catalogue: { lifecycle: { [NOVA_PRO]: { status: 'EOL' } } } })).status).toBe(200);
    await notFound(usEast1.send(new GetFoundationModelCommand({ modelIdentifier: NOVA_PRO })));
    expect((await put({ catalogue: { lifecycle: { [NOVA_PRO]: null } } })).status).toBe(200);
    const { modelDetails } = await usEast1.send(new GetFoundationModelCommand({ modelIdentifier: NOVA_PRO }));
    expect(modelDetails?.modelLifecycle?.status).toBe('ACTIVE');
    const bad = await put({ catalogue: { lifecycle: { [NOVA_PRO]: { endOfLifeTime: 'soon' } } } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/endOfLifeTime/);
  });
});
