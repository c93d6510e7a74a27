/**
 * processChunk and the lease it holds on a stage: heartbeats that extend the lease and the
 * message's visibility, the call counts recorded between them, a lease lost mid-stage, and a
 * stage stopped as lease-lost (the process shutting down) freeing its claim.
 */
import type { ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it, vi } from 'vitest';
import { processChunk } from '../../../lambdas/core/worker/process-chunk.js';
import { conditionFailed } from '../../helpers/refusals.js';
import {
  clause,
  delivery,
  deps,
  FENCE,
  FENCED,
  LEASE_MS,
  mockedWorker,
  NOW,
  QUEUE_URL,
  validAnswer,
} from './process-chunk-fixtures.js';

const {
  arrange,
  heartbeatsSent,
  countsRecorded,
  stageCompletions,
  releases,
  visibilityChanges,
  chunkFinishes,
} = mockedWorker();

describe('processChunk: heartbeat', () => {
  /** Bedrock answers after 25 s: long enough for two heartbeats at a third of the 30 s lease. */
  const slowAnswer = () =>
    new Promise<ConverseCommandOutput>((resolve) => setTimeout(() => resolve(validAnswer()), 25_000));

  it('extends both the lease and the message visibility every third of the lease', async () => {
    vi.useFakeTimers({ now: NOW });
    arrange({ bedrock: slowAnswer });
    const result = processChunk(delivery(), deps({ now: () => Date.now() }));
    await vi.advanceTimersByTimeAsync(25_000);
    expect(await result).toEqual({ action: 'ack', outcome: 'done' });

    const beats = heartbeatsSent();
    expect(beats.map((b) => b.ExpressionAttributeValues?.[':exp'])).toEqual([
      NOW + 10_000 + LEASE_MS,
      NOW + 20_000 + LEASE_MS,
    ]);
    for (const beat of beats) {
      expect(beat.Key).toEqual({ pk: 'JOB#job-1', sk: 'CHUNK#0003#analyze' });
      expect(beat.ConditionExpression).toBe(FENCED);
      expect(beat.ExpressionAttributeValues).toMatchObject({ ':me': 'worker-a', ':fence': FENCE.analyze });
    }
    // Once at each claim (analyze, then consolidate), and with each of the two heartbeats.
    expect(visibilityChanges()).toEqual(
      Array(4).fill({ QueueUrl: QUEUE_URL, ReceiptHandle: 'rh-1', VisibilityTimeout: 60 }),
    );
    // Each heartbeat carries the stage's call counts so far.
    expect(beats[0]?.ExpressionAttributeValues?.[':calls']).toMatchObject({ done: 0 });
  });

  it('records the call counts between heartbeats when they moved, at most once a second', async () => {
    vi.useFakeTimers({ now: NOW });
    // Three calls, answered 1.5 s, 3.5 s and 25 s after they start.
    const delays = [1_500, 3_500, 25_000];
    let started = 0;
    arrange({
      bedrock: () => {
        const ms = delays[started++] ?? 0;
        return new Promise((resolve) => setTimeout(() => resolve(validAnswer()), ms));
      },
    });
    const clauses = [0, 1, 2].map((index) => ({ ...clause, index, id: `c000${index + 1}` }));
    const body = JSON.stringify({ v: 1, jobId: 'job-1', chunk: 3, lane: 'realtime', clauses });
    const result = processChunk(delivery({ body }), deps({ now: () => Date.now() }));
    await vi.advanceTimersByTimeAsync(25_000);
    expect(await result).toEqual({ action: 'ack', outcome: 'done' });

    // After the first answer and after the second; nothing while the counts stood still.
    const recorded = countsRecorded();
    expect(recorded.map((r) => r.ExpressionAttributeValues?.[':calls'].done)).toEqual([1, 2]);
    for (const r of recorded) {
      expect(r.Key).toEqual({ pk: 'JOB#job-1', sk: 'CHUNK#0003#analyze' });
      expect(r.ConditionExpression).toBe(FENCED);
      expect(r.ExpressionAttributeValues).toMatchObject({ ':me': 'worker-a', ':fence': FENCE.analyze });
    }
    // The heartbeats still renew at a third of the lease, with the counts as they stand.
    expect(heartbeatsSent().map((b) => b.ExpressionAttributeValues?.[':calls'].done)).toEqual([2, 2]);
  });

  it('aborts the stage when recording the counts finds the lease taken over', async () => {
    vi.useFakeTimers({ now: NOW });
    const delays = [1_500, 25_000];
    let started = 0;
    arrange({
      bedrock: () => {
        const ms = delays[started++] ?? 0;
        return new Promise((resolve) => setTimeout(() => resolve(validAnswer()), ms));
      },
      recordCounts: () => conditionFailed(),
      release: () => conditionFailed(),
    });
    const clauses = [0, 1].map((index) => ({ ...clause, index, id: `c000${index + 1}` }));
    const body = JSON.stringify({ v: 1, jobId: 'job-1', chunk: 3, lane: 'realtime', clauses });
    const result = processChunk(delivery({ body }), deps({ now: () => Date.now() }));
    await vi.advanceTimersByTimeAsync(25_000);
    expect(await result).toMatchObject({ action: 'retry', reason: 'lease lost during analyze' });
    expect(countsRecorded()).toHaveLength(1);
    expect(heartbeatsSent()).toHaveLength(0);
    expect(stageCompletions()).toHaveLength(0);
  });

  it('stops once the stage is over', async () => {
    vi.useFakeTimers({ now: NOW });
    arrange();
    expect(await processChunk(delivery(), deps({ now: () => Date.now() }))).toEqual({
      action: 'ack',
      outcome: 'done',
    });
    const atEnd = visibilityChanges().length;
    await vi.advanceTimersByTimeAsync(5 * LEASE_MS);
    expect(heartbeatsSent()).toHaveLength(0);
    // Only the two set at the claims, none after.
    expect(atEnd).toBe(2);
    expect(visibilityChanges()).toHaveLength(2);
  });

  it('aborts the stage when the lease is lost, committing nothing more under it', async () => {
    vi.useFakeTimers({ now: NOW });
    // The claim is gone, so the fenced release that follows is refused too.
    arrange({ bedrock: slowAnswer, heartbeat: () => conditionFailed(), release: () => conditionFailed() });
    const log = vi.fn();
    const result = processChunk(delivery({ receiveCount: 2 }), deps({ now: () => Date.now(), log }));
    await vi.advanceTimersByTimeAsync(25_000);
    expect(await result).toEqual({
      action: 'retry',
      reason: 'lease lost during analyze',
      visibilitySeconds: 120,
    });
    expect(stageCompletions()).toHaveLength(0);
    // Only attempted, fenced by the lost lease: the refusal is ignored.
    expect(releases()).toHaveLength(1);
    expect(releases()[0]?.ConditionExpression).toBe(FENCED);
    expect(chunkFinishes()).toHaveLength(0);
    // The message's visibility is set once at the claim, and not extended for a lease this
    // worker no longer holds.
    expect(visibilityChanges()).toHaveLength(1);
    expect(log).toHaveBeenCalledWith(
      'heartbeat-failed',
      expect.objectContaining({ jobId: 'job-1', chunk: 3 }),
    );
  });

  it('keeps working through a heartbeat that fails for another reason', async () => {
    vi.useFakeTimers({ now: NOW });
    let beats = 0;
    arrange({
      bedrock: slowAnswer,
      heartbeat: () => (++beats === 1 ? new Error('socket hang up') : undefined),
    });
    const result = processChunk(delivery(), deps({ now: () => Date.now() }));
    await vi.advanceTimersByTimeAsync(25_000);
    expect(await result).toEqual({ action: 'ack', outcome: 'done' });
    // The failed one is tried again a second later, and the next comes a third of the lease
    // after that: at 10 s, 11 s and 21 s.
    expect(heartbeatsSent().map((b) => b.ExpressionAttributeValues?.[':exp'])).toEqual([
      NOW + 10_000 + LEASE_MS,
      NOW + 11_000 + LEASE_MS,
      NOW + 21_000 + LEASE_MS,
    ]);
    // At the two claims, and after the two heartbeats that succeeded.
    expect(visibilityChanges()).toHaveLength(4);
    expect(stageCompletions()).toHaveLength(1);
  });
});

describe('processChunk: a stage stopped as lease-lost', () => {
  /** Bedrock's answer to a call aborted by the process shutting down. */
  function shutdownDuringCall(shutdown: AbortController) {
    return () => {
      shutdown.abort();
      return new DOMException('This operation was aborted', 'AbortError');
    };
  }

  it('frees a claim that is still its own, so the next delivery need not wait it out', async () => {
    const shutdown = new AbortController();
    arrange({ bedrock: shutdownDuringCall(shutdown) });
    expect(await processChunk(delivery(), deps({ signal: shutdown.signal }))).toEqual({
      action: 'retry',
      reason: 'lease lost during analyze',
      visibilitySeconds: 30,
    });
    const [release] = releases();
    expect(releases()).toHaveLength(1);
    expect(release?.Key).toEqual({ pk: 'JOB#job-1', sk: 'CHUNK#0003#analyze' });
    expect(release?.ConditionExpression).toBe(FENCED);
    expect(release?.ExpressionAttributeValues).toMatchObject({
      ':me': 'worker-a',
      ':fence': FENCE.analyze,
      ':err': 'lease lost during analyze',
      ':class': 'infrastructure',
    });
    expect(stageCompletions()).toHaveLength(0);
    expect(chunkFinishes()).toHaveLength(0);
  });

  it('returns the message all the same when that release fails', async () => {
    const shutdown = new AbortController();
    arrange({ bedrock: shutdownDuringCall(shutdown), release: () => new Error('socket hang up') });
    expect(await processChunk(delivery({ receiveCount: 3 }), deps({ signal: shutdown.signal }))).toEqual({
      action: 'retry',
      reason: 'lease lost during analyze',
      visibilitySeconds: 300,
    });
    expect(releases()).toHaveLength(1);
  });
});
