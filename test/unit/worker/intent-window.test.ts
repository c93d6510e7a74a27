import { describe, expect, it, vi } from 'vitest';
import type { Intent } from '../../../lambdas/core/state/call-ledger.js';
import { IntentWindow } from '../../../lambdas/core/worker/intent-window.js';

const intents = Array.from(
  { length: 60 },
  (_, i) =>
    ({
      call: { jobId: 'j', chunk: 0, clauseId: `c${i}`, analystId: 'a', idempotencyKey: 'k' },
      owner: 'w:1',
      reservation: 1,
    }) as Intent,
);

describe('IntentWindow', () => {
  it('writes the window of the first call that asks, once, and nothing ahead of it', async () => {
    const writeIntents = vi.fn(async (_: readonly Intent[]) => {});
    const w = new IntentWindow({ writeIntents }, intents.length, (i) => intents[i] as Intent, 25);
    await Promise.all([w.ensure(0), w.ensure(3), w.ensure(24)]);
    expect(writeIntents).toHaveBeenCalledOnce();
    expect(writeIntents.mock.calls[0]?.[0].map((i) => i.call.clauseId)).toEqual(
      intents.slice(0, 25).map((i) => i.call.clauseId),
    );
    await w.ensure(59);
    expect(writeIntents).toHaveBeenCalledTimes(2);
    expect(writeIntents.mock.calls[1]?.[0]).toHaveLength(10);
  });

  it('builds an intent only when its window is first asked for, and once', async () => {
    const writeIntents = vi.fn(async (_: readonly Intent[]) => {});
    const built: number[] = [];
    const w = new IntentWindow(
      { writeIntents },
      intents.length,
      (i) => {
        built.push(i);
        return intents[i] as Intent;
      },
      25,
    );
    expect(built).toEqual([]);
    await Promise.all([w.ensure(30), w.ensure(31)]);
    expect(built).toEqual(Array.from({ length: 25 }, (_, i) => 25 + i));
    await w.ensure(26);
    expect(built).toHaveLength(25);
  });

  it('makes the calls of a window wait until its write is done', async () => {
    let finish!: () => void;
    const writeIntents = vi.fn(() => new Promise<void>((r) => (finish = r)));
    const w = new IntentWindow({ writeIntents }, intents.length, (i) => intents[i] as Intent, 25);
    let passed = false;
    const waiting = w.ensure(5).then(() => {
      passed = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(passed).toBe(false);
    finish();
    await waiting;
    expect(passed).toBe(true);
  });

  it('writes a window again when its write failed', async () => {
    const writeIntents = vi.fn().mockRejectedValueOnce(new Error('throttled')).mockResolvedValue(undefined);
    const w = new IntentWindow({ writeIntents }, intents.length, (i) => intents[i] as Intent, 25);
    await expect(w.ensure(1)).rejects.toThrow('throttled');
    await w.ensure(2);
    expect(writeIntents).toHaveBeenCalledTimes(2);
  });
});
