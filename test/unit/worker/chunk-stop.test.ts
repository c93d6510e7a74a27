import { describe, expect, it } from 'vitest';
import { ChunkStop, isChunkStopped, unstartedReason } from '../../../lambdas/core/worker/chunk-stop.js';

describe('ChunkStop', () => {
  it('carries its typed reason on the signal itself, the first reason standing', () => {
    const stop = new ChunkStop();
    expect(stop.reason).toBeUndefined();
    expect(stop.signal.aborted).toBe(false);
    stop.stop('paused');
    stop.stop('cancelled');
    expect(stop.signal.aborted).toBe(true);
    expect(isChunkStopped(stop.signal.reason)).toBe(true);
    expect(stop.signal.reason).toMatchObject({ name: 'ChunkStopped', reason: 'paused' });
    expect(stop.reason).toBe('paused');
  });

  it('lets requests in flight finish on a cancel, a pause or the ceiling', () => {
    for (const reason of ['cancelled', 'paused', 'ceiling'] as const) {
      const stop = new ChunkStop();
      using request = stop.request(60_000);
      stop.stop(reason);
      expect(request.signal.aborted).toBe(false);
      expect(stop.endsRequests).toBe(false);
    }
  });

  it('ends requests in flight, and any asked for later, when the lease is lost or the process ends', () => {
    for (const reason of ['lease-lost', 'deadline'] as const) {
      const stop = new ChunkStop();
      using request = stop.request(60_000);
      stop.stop(reason, new Error('why'));
      expect(request.signal.aborted).toBe(true);
      expect(request.signal.reason).toMatchObject({ reason, cause: { message: 'why' } });
      using later = stop.request(60_000);
      expect(later.signal.aborted).toBe(true);
    }
  });

  it('ends requests when the lease is lost after a cancel, keeping the cancel as the reason', () => {
    const stop = new ChunkStop();
    using request = stop.request(60_000);
    stop.stop('cancelled');
    stop.stop('lease-lost');
    expect(request.signal.aborted).toBe(true);
    expect(stop.endsRequests).toBe(true);
    expect(stop.reason).toBe('cancelled');
  });

  it('ends a request at its time-out', async () => {
    const stop = new ChunkStop();
    using request = stop.request(5);
    await new Promise((r) => setTimeout(r, 30));
    expect(request.signal.aborted).toBe(true);
    expect(stop.reason).toBeUndefined();
  });

  it('follows the process shutting down as its deadline, until disposed of', () => {
    const shutdown = new AbortController();
    const stop = new ChunkStop();
    {
      using _follow = stop.follow(shutdown.signal, 'deadline');
    }
    shutdown.abort();
    expect(stop.reason).toBeUndefined();
    const followed = new ChunkStop();
    using _follow = followed.follow(shutdown.signal, 'deadline');
    expect(followed.reason).toBe('deadline');
    const later = new AbortController();
    using _later = stop.follow(later.signal, 'deadline');
    later.abort();
    expect(stop.reason).toBe('deadline');
  });

  it('records the ceiling as budget and a cancel as such for calls left unstarted', () => {
    expect(unstartedReason('ceiling')).toBe('budget');
    expect(unstartedReason('cancelled')).toBe('cancelled');
    expect(unstartedReason('paused')).toBe('paused');
  });
});
