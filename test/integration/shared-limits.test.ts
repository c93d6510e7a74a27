/**
 * One model's concurrency shared by several processes through the state table on the
 * emulator: each "process" here is its own LimiterRegistry and SharedLimits with its own
 * worker id, as separate Lambda instances or batch workers would be.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { MODEL_LIMIT_SK, modelLimitPk } from '../../lambdas/core/state/keys.js';
import { ModelLimits } from '../../lambdas/core/state/model-limits.js';
import type { AdaptiveLimiter } from '../../lambdas/core/worker/limiter.js';
import { LimiterRegistry } from '../../lambdas/core/worker/limiter-registry.js';
import { SharedLimits } from '../../lambdas/core/worker/shared-limits.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { loadConfig } from '../../lambdas/shared/config.js';
import { createClients, workerDeps } from '../../lambdas/shared/runtime.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { LOCAL_RUN_DEFAULTS, localEnvironment } from '../../localstack/runtime/local-env.js';
import { provisionTestStack } from '../helpers/local-aws.js';

const stack = await provisionTestStack('shared-limits');
const db = stack.clients.documents;
const table = stack.resources.tableName;
const WINDOW = 1_000;
const STALE = 3 * WINDOW;

/** A process: its own registry on a clock the test moves, sharing through the table. */
function processOn(clock: { t: number }, workerId: string, initial = 4) {
  const limits = new ModelLimits(db, table, () => clock.t);
  const registry = new LimiterRegistry({
    initial,
    windowMs: WINDOW,
    now: () => clock.t,
    sharing: new SharedLimits({ limits, workerId, initial, min: 1, max: 200, staleMs: STALE }),
  });
  return registry;
}

/** A full window: the whole limit busy, released clean, then the window closes (and reports). */
async function cleanWindow(limiter: AdaptiveLimiter, clock: { t: number }): Promise<void> {
  const permits = await Promise.all(Array.from({ length: limiter.limit }, () => limiter.acquire('batch')));
  clock.t += 100;
  for (const p of permits) p.release();
  clock.t = (Math.floor(clock.t / WINDOW) + 1) * WINDOW;
  limiter.tick();
}

async function item(modelId: string) {
  const r = await db.send(
    new GetCommand({
      TableName: table,
      Key: { pk: modelLimitPk(modelId), sk: MODEL_LIMIT_SK },
      ConsistentRead: true,
    }),
  );
  return r.Item;
}

/** Until the reports in flight have landed (the limiters' rebase happens after them). */
async function settled(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('reports did not land');
}

/**
 * Two processes on a model whose fleet starts at 10: each joins, and once a's window has
 * closed and reported it has heard of b, so each holds 5.
 */
async function twoSharing(model: string) {
  const clock = { t: 0 };
  const a = processOn(clock, 'a', 10).for(model);
  (await a.acquire('batch')).release({ unused: true });
  const b = processOn(clock, 'b', 10).for(model);
  (await b.acquire('batch')).release({ unused: true });
  expect(b.limit).toBe(5);
  clock.t = WINDOW;
  a.tick(); // a's window closes and reports: it hears of b
  await settled(() => a.limit === 5);
  return { clock, a, b };
}

describe('a model limit shared by processes through the state table', () => {
  it('is joined for the primary model as a worker process starts, before any call asks for a permit', async () => {
    const config = loadConfig(
      localEnvironment(stack.endpoint, 'http://127.0.0.1:9', stack.resources, LOCAL_RUN_DEFAULTS),
    );
    const clients = createClients({
      endpoint: stack.endpoint,
      region: LOCAL_REGION,
      credentials: EMULATOR_CREDENTIALS,
    });
    expect(await item(config.MODEL_ID)).toBeUndefined();
    const deps = workerDeps(config, clients);
    expect(Object.keys(deps.limiters?.stats() ?? {})).toEqual([config.MODEL_ID]);
    // Its first report lands with nobody having asked for a permit.
    await settled(async () => (await item(config.MODEL_ID)) !== undefined);
    for (const c of [clients.db, clients.sqs, clients.s3, clients.bedrock]) c.destroy();
  });

  it('gives a new process its share of what the fleet learned, not the start value, and returns a gone one', async () => {
    const model = 'model-share';
    const clock = { t: 0 };
    const a = processOn(clock, 'a').for(model);
    await a.acquire('batch').then((p) => p.release({ unused: true })); // joined: total 4
    for (let i = 0; i < 3; i++) {
      await cleanWindow(a, clock); // +5 each
      await settled(async () => (await item(model))?.total === 4 + 5 * (i + 1));
    }
    expect(a.limit).toBe(19);

    // B's first grant waits for its first report, which tells it half of 19.
    const b = processOn(clock, 'b', 50).for(model);
    const first = await b.acquire('batch');
    expect(b.limit).toBe(9); // floor(19 / 2); the remainder goes to 'a', first in id order
    first.release({ unused: true });
    expect((await item(model))?.total).toBe(19);

    // A learns of B at its next report: its own window added 5 while it was alone, so the
    // fleet holds 24, of which A's share is 12. B knows it shares with A: its window's +5 adds
    // half, 2.5, so that two processes moving on the same signal move the total as one
    // limiter would. The fleet holds 26.5; 26 permits go out, 13 of them B's.
    await cleanWindow(a, clock);
    await settled(() => a.limit === 12);
    expect((await item(model))?.total).toBe(24);
    await cleanWindow(b, clock);
    await settled(async () => (await item(model))?.total === 26.5);
    await settled(() => b.limit === 13);

    // A stops reporting (a frozen instance): after staleMs its share returns to B.
    clock.t += STALE + WINDOW;
    await cleanWindow(b, clock);
    await settled(() => b.limit === 29); // 26.5 + half its own 5, all of it B's
    const after = await item(model);
    expect(Object.keys(after ?? {}).filter((k) => k.startsWith('member#'))).toEqual(['member#b']);
  });

  it('adds concurrent reports without losing any', async () => {
    const model = 'model-concurrent';
    const limits = new ModelLimits(db, table);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        limits.report({ modelId: model, workerId: `w${i}`, delta: 1, initial: 10, staleMs: 60_000 }),
      ),
    );
    const total = (await item(model))?.total;
    expect(total).toBe(30);
  });

  it('steps a throttled process down at once, and the fleet total with it', async () => {
    const model = 'model-throttle';
    const { clock, a, b } = await twoSharing(model);
    const p = await a.acquire('batch');
    p.release({ throttled: true });
    expect(a.limit).toBe(4); // at once, before any report
    clock.t = 2 * WINDOW;
    a.tick();
    await settled(async () => (await item(model))?.total === 9.5);
    // a's step down of one counts half (two share the model): the fleet holds 9.5, so 9
    // permits go out: 5 for a (first in id order takes the remainder), 4 for b.
    await settled(() => a.limit === 5);
    clock.t = 3 * WINDOW;
    (await b.acquire('batch')).release({ unused: true });
    b.tick();
    await settled(() => b.limit === 4);
  });

  it('holds a step up until the fleet has it, so processes stepping up together do not overshoot', async () => {
    const model = 'model-step-up';
    const { clock, a } = await twoSharing(model);

    // A clean, saturated window: a's limiter steps up by 5 to 10.
    await cleanWindow(a, clock);
    expect(a.limit).toBe(10);
    // Its own 10 are not granted: calls wait until the report has scaled the step to half (two
    // share the model), 2.5, and the fleet's 12.5 hands a 6.
    const waiting = Array.from({ length: 8 }, () => a.acquire('batch'));
    expect(a.active).toBe(0);
    await settled(() => a.limit === 6);
    expect((await item(model))?.total).toBe(12.5);
    expect(a.active).toBe(6);
    const granted = await Promise.all(waiting.slice(0, 6));
    for (const p of granted) p.release();
    await Promise.all(waiting.slice(6)).then((ps) => {
      for (const p of ps) p.release({ unused: true });
    });
  });
});
