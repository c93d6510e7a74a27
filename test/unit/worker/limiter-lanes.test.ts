/**
 * Who AdaptiveLimiter serves next: realtime before batch, first come first served in a lane,
 * batch waiters aged past agingMs, withdrawn waiters, and onNext as the line moves.
 */
import { describe, expect, it } from 'vitest';
import type { Permit } from '../../../lambdas/core/worker/limiter.js';
import { flush, hold, setup, track } from './limiter-fixtures.js';

describe('AdaptiveLimiter: lanes', () => {
  /** A limiter of one permit (windows too long to matter) with that permit taken. */
  async function busy(agingMs = 1_000) {
    const s = setup({ initial: 1, windowMs: 1e9, agingMs });
    const [first] = await hold(s.limiter, 1);
    return { ...s, first: first as Permit };
  }

  it('serves realtime waiters before batch waiters that came earlier', async () => {
    const s = await busy();
    const batch = track(s.limiter.acquire('batch'));
    s.advance(10);
    const realtime = track(s.limiter.acquire('realtime'));
    s.first.release();
    await flush();
    expect(realtime.done).toBe(true);
    expect(batch.done).toBe(false);
    realtime.value?.release();
    await flush();
    expect(batch.value?.lane).toBe('batch');
    expect(s.limiter.stats().agedBatchGrants).toBe(0);
  });

  it('serves each lane first come, first served', async () => {
    const s = await busy();
    const order: string[] = [];
    for (const id of ['b1', 'r1', 'b2', 'r2']) {
      void s.limiter.acquire(id.startsWith('r') ? 'realtime' : 'batch').then((permit) => {
        order.push(id);
        permit.release(); // hands the permit to the next waiter
      });
      s.advance(1);
    }
    s.first.release();
    await flush();
    expect(order).toEqual(['r1', 'r2', 'b1', 'b2']);
  });

  it('lets a batch waiter that has waited agingMs longer go before a fresh realtime waiter', async () => {
    const s = await busy(1_000);
    const batch = track(s.limiter.acquire('batch'));
    s.advance(1_500);
    const realtime = track(s.limiter.acquire('realtime'));
    s.first.release();
    await flush();
    expect(batch.done).toBe(true);
    expect(realtime.done).toBe(false);
    expect(batch.value?.waitedMs).toBe(1_500);
    expect(s.limiter.stats().agedBatchGrants).toBe(1);
  });

  it('keeps realtime first while the batch waiter has not waited agingMs longer', async () => {
    const s = await busy(1_000);
    const batch = track(s.limiter.acquire('batch'));
    s.advance(900);
    const realtime = track(s.limiter.acquire('realtime'));
    s.advance(5_000); // both wait much longer; the realtime one still came less than 1 s after
    s.first.release();
    await flush();
    expect(realtime.done).toBe(true);
    expect(batch.done).toBe(false);
  });

  it('does not starve batch work under sustained realtime load', async () => {
    // Two permits, calls of 100 ms, and always more realtime work waiting than fits.
    const s = setup({ initial: 2, windowMs: 1e9, agingMs: 1_000 });
    const held: Permit[] = await hold(s.limiter, 2);
    const realtimeWaiters = [s.limiter.acquire('realtime'), s.limiter.acquire('realtime')];
    const batch = track(s.limiter.acquire('batch'));
    let realtimeGrants = 0;
    while (!batch.done && s.clock.t < 10_000) {
      s.advance(50);
      held.shift()?.release();
      await flush();
      if (batch.done) break;
      held.push(await (realtimeWaiters.shift() as Promise<Permit>));
      realtimeGrants++;
      realtimeWaiters.push(s.limiter.acquire('realtime'));
    }
    expect(batch.done).toBe(true);
    // Realtime work went first until the batch waiter was 1 s older than the oldest realtime
    // waiter (who had waited 100 ms): the first release after 1.1 s.
    expect(realtimeGrants).toBe(22);
    expect(batch.value?.waitedMs).toBe(1_150);
    expect(s.limiter.stats().agedBatchGrants).toBe(1);
  });

  it('withdraws a waiting request when its signal aborts', async () => {
    const s = await busy();
    const controller = new AbortController();
    const aborted = track(s.limiter.acquire('batch', { signal: controller.signal }));
    const next = track(s.limiter.acquire('batch'));
    controller.abort(new Error('lease lost'));
    await flush();
    expect((aborted.error as Error).message).toBe('lease lost');
    expect(s.limiter.waiting).toBe(1);
    s.first.release();
    await flush();
    expect(next.done).toBe(true);
    expect(s.limiter.active).toBe(1);
    await expect(s.limiter.acquire('realtime', { signal: AbortSignal.abort('gone') })).rejects.toBe('gone');
  });
});

describe('AdaptiveLimiter: onNext', () => {
  async function busy() {
    const s = setup({ initial: 1, windowMs: 1e9 });
    const [first] = await hold(s.limiter, 1);
    return { ...s, first: first as Permit };
  }

  it('is not called when a permit is free at once', async () => {
    const s = setup({ initial: 1, windowMs: 1e9 });
    let told = 0;
    await s.limiter.acquire('realtime', { onNext: () => told++ });
    expect(told).toBe(0);
  });

  it('tells each waiter once, when it becomes the next to be served, as the line moves', async () => {
    const s = await busy();
    const told: string[] = [];
    const a = track(s.limiter.acquire('realtime', { onNext: () => told.push('a') }));
    const b = track(s.limiter.acquire('realtime', { onNext: () => told.push('b') }));
    expect(told).toEqual(['a']);
    s.first.release();
    await flush();
    expect(a.done).toBe(true);
    expect(b.done).toBe(false);
    expect(told).toEqual(['a', 'b']);
    a.value?.release();
    await flush();
    expect(b.done).toBe(true);
    expect(told).toEqual(['a', 'b']);
  });

  it('tells a realtime waiter that goes ahead of the batch waiter already told', async () => {
    const s = await busy();
    const told: string[] = [];
    void s.limiter.acquire('batch', { onNext: () => told.push('batch') });
    void s.limiter.acquire('realtime', { onNext: () => told.push('realtime') });
    expect(told).toEqual(['batch', 'realtime']);
  });

  it('tells the waiter behind one that withdraws', async () => {
    const s = await busy();
    const told: string[] = [];
    const controller = new AbortController();
    const gone = track(
      s.limiter.acquire('realtime', { signal: controller.signal, onNext: () => told.push('a') }),
    );
    void s.limiter.acquire('realtime', { onNext: () => told.push('b') });
    controller.abort(new Error('lease lost'));
    await flush();
    expect(gone.error).toBeInstanceOf(Error);
    expect(told).toEqual(['a', 'b']);
  });
});
