/**
 * The stack's day-one check on the run's DynamoDB and the Bedrock stand-in, through the real SDK
 * client: the first intake sends each model the workers' request once and records the answer;
 * another intake (another process) reads the record and sends nothing; a model the stand-in is
 * told to refuse that shape for is recorded refused, with Bedrock's error, and an upload using it
 * is rejected naming the fix (the fallback that served the request), before any of its calls.
 */

import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { intakeObject } from '../../lambdas/core/intake/intake.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { ShapeGuard, shapeRefusal } from '../../lambdas/core/model-shape-guard.js';
import { modelLimitPk } from '../../lambdas/core/state/keys.js';
import { MODEL_SHAPE_SK } from '../../lambdas/core/state/model-shapes.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { startBedrockStandIn } from '../../localstack/bedrock/index.js';
import { provisionTestStack } from '../helpers/local-aws.js';
import { intakeOn } from '../helpers/local-intake.js';
import { fixture, SMALL } from '../helpers/pipeline.js';

const stack = await provisionTestStack('shapes');
const db = DynamoDBDocumentClient.from(stack.clients.dynamodb);
const table = stack.resources.tableName;
const standIn = await startBedrockStandIn({
  seed: 3,
  plan: { catalogue: { refuse: { 'anthropic.claude-haiku-5-5': ['forced-tool'] } } },
});
const bedrock = new BedrockRuntimeClient({
  endpoint: standIn.url,
  region: LOCAL_REGION,
  credentials: EMULATOR_CREDENTIALS,
  maxAttempts: 1,
});
afterAll(async () => {
  bedrock.destroy();
  await standIn.close();
});
const panel = { primary: PRIMARY_MODEL_ID, fallback: FALLBACK_MODEL_ID };
const calls = (modelId: string) =>
  Object.values(standIn.accounting().byModel[modelId] ?? {}).reduce((n, c) => n + (c?.calls ?? 0), 0);

describe("the stack's first check of the workers' request", () => {
  it('is made once per model and recorded; another intake reads the record and sends nothing', async () => {
    const first = new ShapeGuard(bedrock, db, table, panel);
    const verdicts = await first.check([PRIMARY_MODEL_ID, FALLBACK_MODEL_ID]);
    expect(verdicts.map((v) => [v.modelId, v.state])).toEqual([
      [PRIMARY_MODEL_ID, 'refused'],
      [FALLBACK_MODEL_ID, 'served'],
    ]);
    expect([calls(PRIMARY_MODEL_ID), calls(FALLBACK_MODEL_ID)]).toEqual([1, 1]);
    const record = await db.send(
      new GetCommand({ TableName: table, Key: { pk: modelLimitPk(PRIMARY_MODEL_ID), sk: MODEL_SHAPE_SK } }),
    );
    expect(record.Item).toMatchObject({
      state: 'refused',
      error: {
        name: 'ValidationException',
        message:
          'The model returned the following errors: Thinking may not be enabled when tool_choice forces tool use.',
      },
      endpoint: `${standIn.url}/model/${PRIMARY_MODEL_ID}/converse`,
    });
    const second = new ShapeGuard(bedrock, db, table, panel);
    expect((await second.check([PRIMARY_MODEL_ID, FALLBACK_MODEL_ID])).map((v) => v.state)).toEqual([
      'refused',
      'served',
    ]);
    // Nothing more was sent: the record answered.
    expect([calls(PRIMARY_MODEL_ID), calls(FALLBACK_MODEL_ID)]).toEqual([1, 1]);
    expect(shapeRefusal(verdicts, panel)).toContain(
      `make '${FALLBACK_MODEL_ID}', which served the same request, the primary (its tokens cost 30× as much): -c models='{"primary":"${FALLBACK_MODEL_ID}"}'`,
    );
  });

  it('rejects an upload using a model that refused it, naming the fix, before any of its calls', async () => {
    const { deps } = intakeOn(stack);
    const key = `${stack.resources.intakePrefix}shape-${SMALL}`;
    const put = await stack.clients.s3.send(
      new PutObjectCommand({ Bucket: stack.resources.intakeBucket, Key: key, Body: fixture(SMALL) }),
    );
    const before = calls(PRIMARY_MODEL_ID);
    const result = await intakeObject(
      { bucket: stack.resources.intakeBucket, key, ...(put.VersionId ? { versionId: put.VersionId } : {}) },
      { ...deps, shapes: new ShapeGuard(bedrock, db, table, panel) },
    );
    expect(result).toMatchObject({ outcome: 'rejected' });
    const reason = 'reason' in result ? result.reason : '';
    expect(reason).toMatch(
      new RegExp(
        `^'${PRIMARY_MODEL_ID.replace(/\./g, '\\.')}' refused the request the workers send \\(ValidationException: `,
      ),
    );
    expect(reason).toContain(`-c models='{"primary":"${FALLBACK_MODEL_ID}"}'`);
    expect(calls(PRIMARY_MODEL_ID)).toBe(before);
  });
});
