/** LimiterRegistry: one AdaptiveLimiter per model id, with per-model overrides and sharing. */
import { describe, expect, it } from 'vitest';
import type { WindowSnapshot } from '../../../lambdas/core/worker/limiter.js';
import { LimiterRegistry } from '../../../lambdas/core/worker/limiter-registry.js';
import { WINDOW } from './limiter-fixtures.js';

describe('LimiterRegistry', () => {
  it('hands each new limiter to its sharing, and every window of it', async () => {
    const joined: string[] = [];
    const windows: string[] = [];
    const clock = { t: 0 };
    const registry = new LimiterRegistry({
      windowMs: WINDOW,
      now: () => clock.t,
      sharing: {
        join: (modelId) => joined.push(modelId),
        window: (w) => windows.push(w.name ?? ''),
      },
    });
    const a = registry.for('model-a');
    registry.for('model-a');
    registry.for('model-b');
    expect(joined).toEqual(['model-a', 'model-b']);
    (await a.acquire('realtime')).release();
    clock.t = WINDOW;
    a.tick();
    expect(windows).toEqual(['model-a']);
  });

  it('keeps one limiter per model id with per-model overrides', async () => {
    const windows: WindowSnapshot[] = [];
    let t = 0;
    const registry = new LimiterRegistry({
      initial: 4,
      windowMs: WINDOW,
      now: () => t,
      onWindow: (w) => windows.push(w),
      perModel: { 'model-b': { initial: 12 } },
    });
    const a = registry.for('model-a');
    expect(registry.for('model-a')).toBe(a);
    expect(a.limit).toBe(4);
    expect(registry.for('model-b').limit).toBe(12);
    await a.run(async () => {
      t += 10;
    });
    t = WINDOW;
    a.tick();
    expect(windows).toEqual([expect.objectContaining({ name: 'model-a', calls: 1 })]);
    expect(Object.keys(registry.stats())).toEqual(['model-a', 'model-b']);
    expect(registry.stats()['model-a']).toMatchObject({ name: 'model-a', calls: 1 });
  });
});
