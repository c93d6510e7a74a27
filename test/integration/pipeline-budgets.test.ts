/**
 * The pipeline with a per-minute budget on its model: a stand-in that enforces the account's
 * requests and tokens per minute, and workers configured (MODEL_BUDGETS) with the same values.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { MODEL_BUDGET_SK, modelLimitPk } from '../../lambdas/core/state/keys.js';
import { fixture, SMALL, startHarness } from '../helpers/pipeline.js';

const QUOTA = { requestsPerMinute: 300, tokensPerMinute: 2_000_000 };

const h = await startHarness('budgets', {
  plan: { capacity: { ...QUOTA }, latency: { kind: 'fixed', ms: 50 } },
  settings: { modelBudgets: JSON.stringify({ [PRIMARY_MODEL_ID]: QUOTA }) },
});

describe('the pipeline under a per-minute budget', () => {
  it('paces its calls to the quota instead of being throttled by it', async () => {
    const started = Date.now();
    // The full panel, so the calls paced are a known 77.
    const job = await h.waitForEnd(await h.upload(SMALL, fixture(SMALL), { 'full-panel': 'true' }), 120_000);
    expect(job.status).toBe('completed');
    expect(job.callsPlanned).toBe(77);
    // 300 requests a minute are 5 a second: 77 calls take at least the 14 s the last ones wait.
    expect(Date.now() - started).toBeGreaterThanOrEqual(14_000);
    const books = h.bedrock.accounting().byModel[PRIMARY_MODEL_ID];
    expect(books?.success?.calls).toBe(77);
    expect(books?.ThrottlingException).toBeUndefined();
    const item = await h.pipeline.clients.db.send(
      new GetCommand({
        TableName: h.stack.resources.tableName,
        Key: { pk: modelLimitPk(PRIMARY_MODEL_ID), sk: MODEL_BUDGET_SK },
        ConsistentRead: true,
      }),
    );
    expect(item.Item?.requestsAt).toBeGreaterThan(started);
    expect(item.Item?.tokensAt).toBeGreaterThan(started);
  }, 180_000);
});
