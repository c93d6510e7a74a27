/**
 * processChunk, one SQS delivery of a chunk through both stages: the redelivery backoff, what
 * it does before claiming, a lost claim, a cancelled job, a full run, tier-2 retries and the
 * model limiters. The lease it holds meanwhile (heartbeats, a stage stopped as lease-lost):
 * process-chunk-lease.test.ts.
 */
import { ConverseCommand, ServiceUnavailableException } from '@aws-sdk/client-bedrock-runtime';
import { DeleteMessageCommand } from '@aws-sdk/client-sqs';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import { DEFAULT_BACKOFF } from '../../../lambdas/core/worker/backoff.js';
import { LimiterRegistry } from '../../../lambdas/core/worker/limiter-registry.js';
import { processChunk, redeliveryDelay } from '../../../lambdas/core/worker/process-chunk.js';
import { conditionFailed } from '../../helpers/refusals.js';
import {
  clause,
  delivery,
  deps,
  FENCE,
  FENCED,
  FINALIZE_URL,
  mockedWorker,
  NOW,
  SCHEDULE,
} from './process-chunk-fixtures.js';

const {
  ddb,
  sqs,
  bedrock,
  arrange,
  claimsSent,
  stageCompletions,
  releases,
  finalizeClaims,
  finalizeMessages,
  chunkFinishes,
} = mockedWorker();

describe('redeliveryDelay', () => {
  it('backs off by receive count: 30 s after the first, 2 min after the second, 5 min after that', () => {
    expect([1, 2, 3, 4, 10].map((n) => redeliveryDelay(n, SCHEDULE))).toEqual([30, 120, 300, 300, 300]);
  });

  it('treats a missing or zero receive count as the first', () => {
    expect(redeliveryDelay(0, SCHEDULE)).toBe(30);
  });

  it('gives no delay with an empty schedule', () => {
    expect(redeliveryDelay(2, [])).toBe(0);
  });
});

describe('processChunk: before claiming', () => {
  it('leaves a malformed message for the DLQ, touching nothing', async () => {
    arrange();
    const body = JSON.stringify({ v: 2, jobId: 'job-1', chunk: 3, lane: 'realtime', clauses: [clause] });
    const disposition = await processChunk(delivery({ body }), deps());
    expect(disposition.action).toBe('retry');
    expect(disposition).not.toHaveProperty('visibilitySeconds');
    expect(disposition.action === 'retry' && disposition.reason).toMatch(/^malformed chunk message: /);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('leaves a body that is not JSON for the DLQ too, rather than throwing', async () => {
    arrange();
    const disposition = await processChunk(delivery({ body: '{"v":1,"jobId":' }), deps());
    expect(disposition).toEqual({
      action: 'retry',
      reason: expect.stringMatching(/^malformed chunk message: not JSON \(.+\)$/),
    });
    expect(disposition.action === 'retry' && disposition.reason).toContain('JSON');
    expect(ddb.calls()).toHaveLength(0);
    expect(sqs.calls()).toHaveLength(0);
  });

  it('explains a JSON body that is not a chunk message by its first schema issue', async () => {
    arrange();
    const disposition = await processChunk(delivery({ body: '[]' }), deps());
    expect(disposition.action === 'retry' && disposition.reason).toMatch(/^malformed chunk message: /);
    expect(disposition.action === 'retry' && disposition.reason).not.toContain('not JSON');
  });

  it('retries a chunk whose job it cannot find', async () => {
    arrange({ job: null });
    expect(await processChunk(delivery(), deps())).toEqual({
      action: 'retry',
      reason: 'job job-1 not found',
    });
    expect(claimsSent()).toHaveLength(0);
  });

  it('acknowledges without claiming when the job has already ended', async () => {
    arrange({ job: { status: 'completed' } });
    expect(await processChunk(delivery(), deps())).toEqual({
      action: 'ack',
      outcome: 'job already completed',
    });
    expect(claimsSent()).toHaveLength(0);
  });
});

describe('processChunk: a lost claim', () => {
  it('leaves a chunk another worker holds alone, coming back when that lease would run out', async () => {
    arrange({
      lose: { analyze: { status: 'running', claimedBy: 'worker-b', claimExpiresAt: NOW + 42_300 } },
      checkpoints: [{ chunk: 3, stage: 'analyze', status: 'running' }],
    });
    expect(await processChunk(delivery(), deps())).toEqual({
      action: 'retry',
      reason: 'claimed by another worker',
      visibilitySeconds: 43 + 5,
    });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(sqs.commandCalls(DeleteMessageCommand)).toHaveLength(0);
  });

  it('acknowledges a duplicate of a chunk that is already terminal', async () => {
    arrange({
      lose: { analyze: { status: 'cancelled' } },
      checkpoints: [
        { chunk: 3, stage: 'analyze', status: 'cancelled' },
        { chunk: 4, stage: 'analyze', status: 'running' },
      ],
    });
    expect(await processChunk(delivery(), deps())).toEqual({
      action: 'ack',
      outcome: 'chunk already terminal',
    });
  });

  it('does not count another chunk being terminal', async () => {
    arrange({
      lose: { analyze: { status: 'running', claimedBy: 'worker-b', claimExpiresAt: NOW + 1000 } },
      checkpoints: [
        { chunk: 2, stage: 'analyze', status: 'dead' },
        { chunk: 3, stage: 'analyze', status: 'running' },
      ],
    });
    const disposition = await processChunk(delivery(), deps());
    expect(disposition).toMatchObject({ action: 'retry', visibilitySeconds: 6 });
  });

  it('goes on to consolidate without calling Bedrock when analyze is already done', async () => {
    arrange({
      lose: { analyze: { status: 'done' } },
      ledger: [
        {
          sk: 'CALL#0003#c0001#liability-counsel',
          status: 'done',
          result: JSON.stringify({
            analystId: 'liability-counsel',
            clauseId: 'c0001',
            assessments: { liability: { score: 2, findings: [] } },
            summary: 'x',
          }),
        },
      ],
    });
    expect(await processChunk(delivery(), deps())).toEqual({ action: 'ack', outcome: 'done' });
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    const [finish] = chunkFinishes();
    expect(finish?.Key).toEqual({ pk: 'JOB#job-1', sk: 'CHUNK#0003#consolidate' });
    expect(finish?.ExpressionAttributeValues).toMatchObject({
      ':fence': FENCE.consolidate,
      ':status': 'done',
    });
    const assessments = JSON.parse(String(finish?.ExpressionAttributeValues?.[':result']));
    expect(assessments).toHaveLength(1);
    expect(assessments[0]).toMatchObject({ clauseId: 'c0001' });
  });
});

describe('processChunk: a cancelled job', () => {
  it('records where the chunk stopped, enqueues finalize when it was the last, and acknowledges', async () => {
    arrange({ job: { status: 'cancelled' }, lastChunk: true });
    expect(await processChunk(delivery(), deps())).toEqual({
      action: 'ack',
      outcome: 'cancelled-at-stage-1',
    });
    const [finish] = chunkFinishes();
    expect(finish?.Key).toEqual({ pk: 'JOB#job-1', sk: 'CHUNK#0003#analyze' });
    expect(finish?.ConditionExpression).toBe(FENCED);
    expect(finish?.ExpressionAttributeValues).toMatchObject({
      ':status': 'cancelled',
      ':stopped': 'cancelled-at-stage-1',
      ':fence': FENCE.analyze,
    });
    expect(finalizeClaims()).toHaveLength(1);
    expect(finalizeMessages()).toEqual([{ QueueUrl: FINALIZE_URL, MessageBody: '{"v":1,"jobId":"job-1"}' }]);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
  });

  it('names the second stage when analyze had finished before the cancel', async () => {
    arrange({ job: { status: 'cancelled' }, lose: { analyze: { status: 'done' } } });
    expect(await processChunk(delivery(), deps())).toEqual({
      action: 'ack',
      outcome: 'cancelled-at-stage-2',
    });
    expect(finalizeMessages()).toHaveLength(0);
  });
});

describe('processChunk: a full run', () => {
  it('analyzes, consolidates and counts the chunk, each write fenced by its own lease', async () => {
    arrange();
    expect(await processChunk(delivery(), deps())).toEqual({ action: 'ack', outcome: 'done' });
    const [complete] = stageCompletions();
    expect(complete?.Key).toEqual({ pk: 'JOB#job-1', sk: 'CHUNK#0003#analyze' });
    expect(complete?.ConditionExpression).toBe(FENCED);
    expect(complete?.ExpressionAttributeValues).toMatchObject({
      ':me': 'worker-a',
      ':fence': FENCE.analyze,
      ':calls': { done: 1, reused: 0, failed: 0, skipped: 0, cancelled: 0, retries: 0 },
    });
    const [finish] = chunkFinishes();
    expect(finish?.Key).toEqual({ pk: 'JOB#job-1', sk: 'CHUNK#0003#consolidate' });
    expect(finish?.ExpressionAttributeValues).toMatchObject({ ':fence': FENCE.consolidate });
    // Not the last chunk: finalize is someone else's job.
    expect(finalizeClaims()).toHaveLength(0);
    expect(finalizeMessages()).toHaveLength(0);
  });

  it('enqueues finalize once when this completion makes the count whole', async () => {
    arrange({ lastChunk: true });
    expect(await processChunk(delivery(), deps())).toEqual({ action: 'ack', outcome: 'done' });
    expect(finalizeClaims()[0]?.ConditionExpression).toBe(
      'attribute_not_exists(finalizeEnqueuedAt) AND chunksTerminal >= chunkCount AND #status IN (:running, :cancelled)',
    );
    expect(finalizeMessages()).toEqual([{ QueueUrl: FINALIZE_URL, MessageBody: '{"v":1,"jobId":"job-1"}' }]);
  });

  it('returns a stage to SQS, without a lease-lost claim, when its completion is refused', async () => {
    arrange({ completeStage: () => conditionFailed() });
    const disposition = await processChunk(delivery(), deps());
    expect(disposition).toEqual({
      action: 'retry',
      reason: 'lost the lease on job job-1 chunk 3 stage analyze',
    });
    expect(chunkFinishes()).toHaveLength(0);
  });
});

describe('processChunk: tier-2 retries', () => {
  it.each([
    [1, 30],
    [2, 120],
    [3, 300],
  ])(
    'after tier-1 retries run out on receive %i, releases the stage and backs off %i s',
    async (receiveCount, seconds) => {
      arrange({ bedrock: () => new ServiceUnavailableException({ message: 'Unavailable', $metadata: {} }) });
      const disposition = await processChunk(
        delivery({ receiveCount }),
        deps({ backoff: { ...DEFAULT_BACKOFF, maxRetries: 0 } }),
      );
      expect(disposition).toEqual({
        action: 'retry',
        reason: 'tier-1 retries exhausted',
        visibilitySeconds: seconds,
      });
      const [release] = releases();
      expect(release?.ConditionExpression).toBe(FENCED);
      expect(release?.ExpressionAttributeValues).toMatchObject({
        ':class': 'transient',
        ':fence': FENCE.analyze,
      });
      expect(release?.ExpressionAttributeValues?.[':err']).toBe(
        '1 call(s) out of tier-1 retries; first: c0001/liability-counsel: ServiceUnavailableException: Unavailable',
      );
      expect(stageCompletions()).toHaveLength(0);
    },
  );
});

describe('processChunk: the model limiters', () => {
  it("takes each call's permit from the process's limiters, in the message's lane", async () => {
    arrange();
    const limiters = new LimiterRegistry();
    const body = JSON.stringify({ v: 1, jobId: 'job-1', chunk: 3, lane: 'batch', clauses: [clause] });
    expect(await processChunk(delivery({ body }), deps({ limiters }))).toEqual({
      action: 'ack',
      outcome: 'done',
    });
    expect(limiters.stats()[PRIMARY_MODEL_ID]).toMatchObject({
      granted: { realtime: 0, batch: 1 },
      calls: 1,
      active: 0,
    });
  });
});
