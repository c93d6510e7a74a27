import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { type CallCounts, Claims, type Lease } from '../../../lambdas/core/state/claims.js';
import { ChunkStop } from '../../../lambdas/core/worker/chunk-stop.js';
import { Heartbeat, messageHoldSeconds, PROGRESS_MS } from '../../../lambdas/core/worker/heartbeat.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const LEASE_MS = 9_000;
const ddb = mockClient(DynamoDBDocumentClient);
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const taken = () => new ConditionalCheckFailedException({ message: 'taken', $metadata: {} });
const counts = (done: number): CallCounts => ({
  done,
  reused: 0,
  failed: 0,
  skipped: 0,
  cancelled: 0,
  retries: 0,
});

/** A heartbeat over a lease of 9 s (renewals every 3 s, a tick a second), not started. */
function beat(progress: () => CallCounts | undefined = () => undefined) {
  const lease: Lease = {
    jobId: 'job-1',
    chunk: 3,
    stage: 'analyze',
    workerId: 'w',
    fence: 2,
    attempts: 1,
    expiresAt: NOW + 1_000,
  };
  const holds: number[] = [];
  const stop = new ChunkStop();
  const log = vi.fn();
  const heartbeat = new Heartbeat({
    claims: new Claims(db, 'table', () => NOW),
    lease,
    leaseMs: LEASE_MS,
    holdMessage: async () => holds.push(holds.length),
    progress,
    stop,
    log,
  });
  return { heartbeat, holds, stop, log, lease };
}

/** The writes of the checkpoint: renewals (`claimExpiresAt`) and counts, in order. */
function writes(): string[] {
  return ddb.commandCalls(UpdateCommand).map((c) => {
    const input: UpdateCommandInput = c.args[0].input;
    const done = (input.ExpressionAttributeValues?.[':calls'] as CallCounts | undefined)?.done;
    return `${input.UpdateExpression?.includes('claimExpiresAt') ? 'renew' : 'counts'}:${done ?? '-'}`;
  });
}

beforeEach(() => {
  ddb.reset();
  ddb.on(UpdateCommand).resolves({});
});

describe('messageHoldSeconds', () => {
  it('holds a message for twice the lease, in whole seconds rounded up', () => {
    expect(messageHoldSeconds(6000)).toBe(12);
    expect(messageHoldSeconds(6500)).toBe(13);
    expect(messageHoldSeconds(120_000)).toBe(240);
  });
});

describe('Heartbeat', () => {
  it('ticks once a second with a lease of 9 s, at most every PROGRESS_MS', () => {
    expect(beat().heartbeat.tickMs).toBe(PROGRESS_MS);
  });

  it('holds the message at once when started, before any renewal', () => {
    const { heartbeat, holds } = beat();
    using _running = heartbeat.start();
    expect(holds).toHaveLength(1);
    expect(writes()).toEqual([]);
  });

  it('renews the lease, with the counts as they stand, and the message at a third of the lease', async () => {
    const { heartbeat, holds, lease } = beat(() => counts(0));
    using _h = heartbeat;
    expect(heartbeat.tick()).toBeUndefined();
    expect(heartbeat.tick()).toBeUndefined();
    await heartbeat.tick();
    expect(writes()).toEqual(['renew:0']);
    expect(holds).toHaveLength(1);
    expect(lease.expiresAt).toBe(NOW + LEASE_MS);
    expect(heartbeat.tick()).toBeUndefined();
  });

  it('records the counts between renewals only when they moved, and not while nothing is done', async () => {
    let now = counts(0);
    const { heartbeat } = beat(() => now);
    using _h = heartbeat;
    expect(heartbeat.tick()).toBeUndefined();
    now = counts(1);
    await heartbeat.tick();
    // The renewal at 3 s, then nothing while the counts stand still.
    await heartbeat.tick();
    expect(heartbeat.tick()).toBeUndefined();
    now = counts(2);
    await heartbeat.tick();
    expect(writes()).toEqual(['counts:1', 'renew:1', 'counts:2']);
  });

  it('stops the stage as lease-lost when a write finds the lease taken over, and writes no more', async () => {
    ddb.on(UpdateCommand).rejects(taken());
    const { heartbeat, stop, log } = beat(() => counts(1));
    using _h = heartbeat;
    await heartbeat.tick();
    expect(stop.reason).toBe('lease-lost');
    expect(stop.endsRequests).toBe(true);
    expect(log).toHaveBeenCalledWith(
      'heartbeat-failed',
      expect.objectContaining({ jobId: 'job-1', chunk: 3 }),
    );
    expect(heartbeat.tick()).toBeUndefined();
    expect(writes()).toHaveLength(1);
  });

  it('logs any other failure and tries again at the next tick', async () => {
    ddb.on(UpdateCommand).rejectsOnce(new Error('socket hang up')).resolves({});
    const { heartbeat, stop, log } = beat(() => counts(1));
    using _h = heartbeat;
    await heartbeat.tick();
    expect(log).toHaveBeenCalledTimes(1);
    await heartbeat.tick();
    expect(stop.reason).toBeUndefined();
    expect(writes()).toEqual(['counts:1', 'counts:1']);
  });

  it('keeps one write in flight at a time', async () => {
    let release: () => void = () => {};
    ddb.on(UpdateCommand).callsFake(() => new Promise<object>((r) => (release = () => r({}))));
    const { heartbeat } = beat(() => counts(1));
    using _h = heartbeat;
    const first = heartbeat.tick();
    expect(first).toBeDefined();
    expect(heartbeat.tick()).toBeUndefined();
    release();
    await first;
    expect(writes()).toHaveLength(1);
  });

  it('once disposed of, takes a refusal of the write then in flight as no news', async () => {
    let refuse: () => void = () => {};
    ddb
      .on(UpdateCommand)
      .callsFake(() => new Promise<object>((_, reject) => (refuse = () => reject(taken()))));
    const { heartbeat, stop, log } = beat(() => counts(1));
    const inFlight = heartbeat.tick();
    heartbeat[Symbol.dispose]();
    refuse();
    await inFlight;
    expect(stop.reason).toBeUndefined();
    expect(log).not.toHaveBeenCalled();
    expect(heartbeat.tick()).toBeUndefined();
  });
});
