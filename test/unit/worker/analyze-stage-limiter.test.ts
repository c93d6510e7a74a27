/**
 * analyzeStage and the model limiter: a permit per call in the job's lane, throttles reported to
 * the model's limiter, and the job read for the call next in line while the permit is in use.
 */
import { ConverseCommand, type ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import { Jobs } from '../../../lambdas/core/state/jobs.js';
import { GATE_LOOKAHEAD_MS } from '../../../lambdas/core/worker/call.js';
import { JobGate } from '../../../lambdas/core/worker/job-gate.js';
import { LimiterRegistry } from '../../../lambdas/core/worker/limiter-registry.js';
import {
  clause,
  db,
  job,
  mockedAnalyze,
  NOW,
  TABLE,
  throttle,
  validAnswer,
} from './analyze-stage-fixtures.js';

let clock = NOW;
const { ddb, bedrock, events, arrange, run } = mockedAnalyze(() => clock);

beforeEach(() => {
  clock = NOW;
});

describe('analyzeStage: the model limiter', () => {
  it("takes a permit in the job's lane per call, gives it back, and reports throttles to the model's limiter", async () => {
    const limiters = new LimiterRegistry({ initial: 10, windowMs: 1e9, now: () => clock });
    arrange({ bedrock: (input, n) => (n === 1 ? throttle() : validAnswer(input)) });
    const outcome = await run([clause(1)], { deps: { limiters, lane: 'batch' } });
    expect(outcome).toMatchObject({ counts: { done: 1, retries: 1 } });
    const stats = limiters.for(PRIMARY_MODEL_ID).stats();
    expect(stats.active).toBe(0);
    expect(stats.throttles).toBe(1);
    expect(stats.calls).toBe(2);
    expect(stats.granted).toMatchObject({ batch: 2, realtime: 0 });
  });

  /**
   * Two calls through one permit. The first call's answer comes once its job has been read
   * again while it was out (the second call, next in line, keeps the reading fresh), and takes
   * `latencyMs` on the clock. Returns the events from the first request on.
   */
  async function twoCallsThroughOnePermit(latencyMs: number) {
    const limiters = new LimiterRegistry({ initial: 1, windowMs: 1e9, now: () => clock });
    arrange();
    let readDuringCall: (() => void) | undefined;
    ddb.on(GetCommand).callsFake(() => {
      events.push('gate');
      readDuringCall?.();
      return { Item: { status: 'running' } };
    });
    bedrock.on(ConverseCommand).callsFake(async (input: ConverseCommandInput) => {
      events.push('converse');
      if (events.filter((e) => e === 'converse').length === 1) {
        clock += 1;
        await new Promise<void>((resolve) => {
          readDuringCall = resolve;
        });
        readDuringCall = undefined;
        clock += latencyMs;
      }
      events.push('answered');
      return validAnswer(input);
    });
    const gate = new JobGate(
      () => new Jobs(db, TABLE, () => clock).gate(job.jobId),
      () => clock,
      1,
    );
    const outcome = await run([clause(1), clause(2)], { deps: { limiters, gate } });
    expect(outcome).toMatchObject({ counts: { done: 2 } });
    const trail = events.filter((e) => ['gate', 'converse', 'answered'].includes(e));
    return trail.slice(trail.indexOf('converse'));
  }

  it('reads the job for the call next in line while the permit is still in use, and starts it on that reading', async () => {
    const trail = await twoCallsThroughOnePermit(50);
    const second = trail.lastIndexOf('converse');
    expect(trail.slice(0, 2)).toEqual(['converse', 'gate']);
    // No read between the permit and the request.
    expect(trail.slice(second - 1)).toEqual(['answered', 'converse', 'answered']);
  });

  it(`reads again when the permit comes more than ${GATE_LOOKAHEAD_MS} ms after the newest reading began`, async () => {
    const trail = await twoCallsThroughOnePermit(GATE_LOOKAHEAD_MS + 1);
    const second = trail.lastIndexOf('converse');
    expect(trail.slice(second - 2)).toEqual(['answered', 'gate', 'converse', 'answered']);
  });
});
