import { describe, expect, it } from 'vitest';
import { Semaphore } from '../../../lambdas/core/worker/semaphore.js';

/** A promise and the functions that settle it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('Semaphore', () => {
  it('refuses a limit that is not a positive integer, naming the value', () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
    expect(() => new Semaphore(1.5)).toThrow('got 1.5');
    expect(() => new Semaphore(Number.NaN)).toThrow(RangeError);
  });

  it('never runs more than `limit` tasks at once', async () => {
    const semaphore = new Semaphore(2);
    let running = 0;
    let peak = 0;
    const gates = Array.from({ length: 6 }, () => deferred());
    const results = gates.map((gate, i) =>
      semaphore.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await gate.promise;
        running--;
        return i;
      }),
    );
    await settle();
    expect(running).toBe(2);
    expect(semaphore.inUse).toBe(2);
    for (const gate of gates) {
      gate.resolve();
      await settle();
    }
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(peak).toBe(2);
    expect(semaphore.inUse).toBe(0);
  });

  it('serves waiters first come, first served', async () => {
    const semaphore = new Semaphore(1);
    const started: string[] = [];
    const first = deferred();
    const a = semaphore.run(async () => {
      started.push('a');
      await first.promise;
    });
    const rest = ['b', 'c', 'd'].map((name) =>
      semaphore.run(async () => {
        started.push(name);
      }),
    );
    await settle();
    expect(started).toEqual(['a']);
    first.resolve();
    await Promise.all([a, ...rest]);
    expect(started).toEqual(['a', 'b', 'c', 'd']);
  });

  it('frees the slot of a task that fails, and passes its error on', async () => {
    const semaphore = new Semaphore(1);
    const failing = semaphore.run(async () => {
      throw new Error('boom');
    });
    const next = semaphore.run(async () => 'ran');
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('ran');
    expect(semaphore.inUse).toBe(0);
  });
});
