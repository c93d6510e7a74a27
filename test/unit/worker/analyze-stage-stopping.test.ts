/**
 * analyzeStage stopping: no call once the job is cancelled or its ceiling reached, a stage
 * stopped as lease-lost (mid-call, a settlement refused, a lease about to run out), a failing
 * ledger write not hidden, and no more model calls in flight than the semaphore allows.
 */
import { ConverseCommand, type ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ChunkStop } from '../../../lambdas/core/worker/chunk-stop.js';
import { Semaphore } from '../../../lambdas/core/worker/semaphore.js';
import { inFlightPeak } from '../../helpers/in-flight.js';
import { clause, liability, meta, mockedAnalyze, NOW, validAnswer } from './analyze-stage-fixtures.js';

const { ddb, bedrock, events, arrange, run } = mockedAnalyze();

describe('analyzeStage: stopping', () => {
  it('starts no call once the gate reads the job cancelled, and lists the calls not started', async () => {
    arrange({ gate: (n) => (n >= 2 ? { status: 'cancelled' } : {}) });
    const outcome = await run([clause(1), clause(2), clause(3)], { deps: { semaphore: new Semaphore(1) } });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(1);
    expect(outcome).toEqual({
      kind: 'cancelled',
      counts: expect.objectContaining({ done: 1, cancelled: 2 }),
      unstarted: {
        reason: 'cancelled',
        calls: [
          { clauseId: 'c0002', analystId: liability.id },
          { clauseId: 'c0003', analystId: liability.id },
        ],
      },
    });
    // The money goes back, then the intents written ahead for the two calls never started end.
    expect(events.slice(-3)).toEqual(['return', 'retire:c0002', 'retire:c0003']);
  });

  it('skips every call once the ceiling is reached, listing them for one write', async () => {
    arrange({ refuseAllotments: { budgetExceededAt: new Date(NOW).toISOString() } });
    const outcome = await run([clause(1), clause(2)]);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    expect(outcome).toMatchObject({
      kind: 'done',
      counts: { skipped: 2, done: 0 },
      unstarted: { reason: 'budget', calls: [{ clauseId: 'c0001' }, { clauseId: 'c0002' }] },
    });
    expect(events.filter((e) => e.startsWith('intents') || e.startsWith('settle'))).toEqual([]);
  });

  it('stops as lease-lost, starting nothing more, when the stage is stopped as lease-lost mid-call', async () => {
    const stop = new ChunkStop();
    arrange({
      bedrock: (input, n) => {
        if (n === 1) stop.stop('lease-lost');
        return validAnswer(input);
      },
    });
    const outcome = await run([clause(1), clause(2), clause(3)], {
      stop,
      deps: { semaphore: new Semaphore(1) },
    });
    expect(outcome).toEqual({ kind: 'lease-lost' });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(1);
  });

  it('stops as lease-lost when a settlement finds the entry taken over', async () => {
    arrange();
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'no', ...meta }));
    expect(await run([clause(1)])).toEqual({ kind: 'lease-lost' });
  });

  it('starts no call when the lease is about to run out', async () => {
    arrange();
    const outcome = await run([clause(1)], { deps: { leaseMarginMs: 120_000 } });
    expect(outcome).toEqual({ kind: 'lease-lost' });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    // Nor does it write the call's intent: a successor may hold the chunk's entries by now.
    expect(events.filter((e) => e.startsWith('intents'))).toEqual([]);
  });

  it('does not hide a failing ledger write', async () => {
    arrange();
    ddb
      .on(UpdateCommand)
      .rejects(Object.assign(new Error('table gone'), { name: 'ResourceNotFoundException' }));
    await expect(run([clause(1)])).rejects.toThrow('table gone');
  });

  it('keeps at most `semaphore` model calls in flight', async () => {
    arrange();
    const converse = inFlightPeak(
      (input: ConverseCommandInput) => validAnswer(input),
      () => new Promise((r) => setTimeout(r, 2)),
    );
    bedrock.on(ConverseCommand).callsFake(converse.fake);
    await run(
      Array.from({ length: 10 }, (_, i) => clause(i + 1)),
      { deps: { semaphore: new Semaphore(3) } },
    );
    expect(converse.peak()).toBe(3);
  });
});
