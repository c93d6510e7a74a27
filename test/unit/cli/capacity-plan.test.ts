import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Assumptions,
  callsInFlight,
  DEFAULT_STACK,
  HOURS_PER_MONTH,
  INFRA_PRICES,
  planBatch,
  quotaTokens,
  writeUnitsPerCall,
} from '../../../bin/capacity/model.js';
import {
  type AccountLimits,
  defaultLimits,
  defaultQuota,
  isUnknownQuotaError,
} from '../../../bin/capacity/quotas.js';
import { isCliError } from '../../../bin/commands/cli-error.js';
import { estimateFile, planCommand, raiseAdvice } from '../../../bin/commands/plan.js';
import { selectAnalysts } from '../../../lambdas/core/analysts/index.js';
import { findDocumentContext } from '../../../lambdas/core/documents/document-context.js';
import { parseDocument } from '../../../lambdas/core/documents/index.js';
import { laneComputeCost } from '../../../lambdas/core/intake/lane-cost.js';
import { estimateJob, type JobEstimate, quoteJob } from '../../../lambdas/core/intake/quote.js';
import { PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import { topology } from '../../../lib/topology.js';

const HAIKU = 'anthropic.claude-haiku-4-5-20251001-v1:0';
const PROFILE = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';
/** The default primary model, Claude Haiku 5.5, whose quotas are assumed (no published codes). */
const HAIKU_5_5 = 'anthropic.claude-haiku-5-5';
const DIR = 'test/fixtures/contracts';
const SMALL = join(DIR, 'GALACTICOMMTECHNOLOGIESINC_11_07_1997-EX-10_46-WEB_HOSTING_AGREEMENT.txt');
const SAMPLE = join(DIR, 'BELLICUMPHARMACEUTICALS_INC_05_07_2019-EX-10_1-Supply_Agreement.txt');

const load = {
  calls: 1000,
  inputTokens: 100_000,
  cacheReadInputTokens: 5_000_000,
  cacheWriteInputTokens: 10_000,
  outputTokens: 200_000,
};
const estimate: JobEstimate = {
  quote: { expectedMicros: 2_000_000, worstCaseMicros: 9_000_000 },
  loads: { [PROFILE]: load },
};
const limits: AccountLimits = {
  models: {
    [HAIKU]: { tokensPerMinute: 1_000_000, requestsPerMinute: 500, outputBurndown: 5, source: 'AWS default' },
  },
  lambdaConcurrency: 1000,
  note: 'test',
};
const assume: Assumptions = { callSeconds: 2.5, cacheReadsCount: true, lane: 'realtime' };

function captured() {
  const lines: string[] = [];
  return { lines, io: { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l), tty: false } };
}

describe('the capacity arithmetic', () => {
  it('counts quota tokens as input + cache writes (+ reads when they count) + output × burndown', () => {
    expect(quotaTokens(load, 5, true)).toBe(100_000 + 10_000 + 5_000_000 + 1_000_000);
    expect(quotaTokens(load, 5, false)).toBe(1_110_000);
    expect(quotaTokens(load, 1, false)).toBe(310_000);
  });

  it("counts a call's ledger writes: its intent and its outcome, by the answer's size", () => {
    expect(writeUnitsPerCall(0)).toBe(2);
    expect(writeUnitsPerCall(179)).toBe(3); // 716 + 600 bytes: 2 units
    expect(writeUnitsPerCall(500)).toBe(4);
  });

  it('keeps the calls the stack holds in flight within Lambda concurrency, per lane', () => {
    expect(DEFAULT_STACK.realtimeInvocations).toBe(topology().queues.realtime.maxConcurrency);
    expect(callsInFlight(DEFAULT_STACK, limits, 'realtime')).toBe(DEFAULT_STACK.realtimeInvocations * 16);
    expect(callsInFlight(DEFAULT_STACK, { ...limits, lambdaConcurrency: 3 }, 'realtime')).toBe(48);
    expect(callsInFlight(DEFAULT_STACK, limits, 'batch')).toBe(DEFAULT_STACK.batchTasks * 2 * 16);
  });

  it('takes the slowest limit as binding, and names the one that binds under the other reading of cache reads', () => {
    const plan = planBatch([estimate], limits, DEFAULT_STACK, assume);
    expect(plan.limits.map((r) => r.limit)).toEqual([
      `Bedrock tokens/min, ${HAIKU}`,
      `Bedrock requests/min, ${HAIKU}`,
      'calls in flight, realtime lane',
      'DynamoDB on-demand writes (table)',
    ]);
    expect(plan.minutes).toBeCloseTo(6.11, 10);
    expect(plan.limits[1]?.minutes).toBeCloseTo(2, 10);
    expect(plan.limits[2]?.minutes).toBeCloseTo((1000 * 2.5) / 320 / 60, 10);
    // Without the reads, 1.11 M quota tokens take 1.11 min: requests per minute bind at 2 min.
    expect(plan.minutesOtherReading).toBeCloseTo(2, 10);
    expect(plan.calls).toBe(1000);
  });

  it('prices the batch from the quotes, adds Lambda and DynamoDB, and extends the rate to a month', () => {
    const plan = planBatch([estimate, estimate], limits, DEFAULT_STACK, assume);
    const gbSeconds = (2000 * 2.5 * 0.5) / 16;
    const units = 2000 * writeUnitsPerCall(200);
    const infra = Math.ceil(
      gbSeconds * INFRA_PRICES.lambdaPerGbSecond + units * INFRA_PRICES.dynamoPerWriteUnit,
    );
    expect(plan.infraMicros).toBe(infra);
    expect(plan.expectedMicros).toBe(4_000_000);
    expect(plan.worstCaseMicros).toBe(18_000_000);
    expect(plan.minutes).toBeCloseTo(12.22, 10);
    expect(plan.contractsPerHour).toBeCloseTo((2 * 60) / 12.22, 10);
    expect(plan.monthlyMicros).toBe(Math.round((4_000_000 + infra) * (60 / 12.22) * HOURS_PER_MONTH));
  });

  it('refuses an empty batch, a call time of 0 and a model without a known quota', () => {
    expect(() => planBatch([], limits)).toThrow('at least one contract');
    expect(() => planBatch([estimate], limits, DEFAULT_STACK, { ...assume, callSeconds: 0 })).toThrow(
      'callSeconds must be above 0',
    );
    expect(() => planBatch([estimate], { ...limits, models: {} })).toThrow(`no quota given for ${HAIKU}`);
    let thrown: unknown;
    try {
      defaultQuota('anthropic.claude-unknown');
    } catch (error) {
      thrown = error;
    }
    expect(isUnknownQuotaError(thrown)).toBe(true);
  });

  it('advises raising what binds', () => {
    const plan = planBatch([estimate], limits, DEFAULT_STACK, assume);
    const advice = plan.limits.map(raiseAdvice);
    expect(advice[0]).toContain('L-58BE175A');
    expect(advice[1]).toContain('L-CCA5DF70');
    expect(advice[2]).toContain('maxConcurrency');
    expect(advice[3]).toContain('DynamoDB');
  });
});

describe('estimateJob, the quote and the plan: one walk over the requests', () => {
  it("gives the quote's figures, every call once, and one cache write per analyst", async () => {
    const doc = await parseDocument(readFileSync(SAMPLE), { key: 'sample.txt', maxBytes: 1 << 20 });
    const analysts = selectAnalysts();
    const context = findDocumentContext(doc.text, doc.clauses);
    const e = estimateJob(doc.clauses, analysts, context);
    expect(e.quote).toEqual(quoteJob(doc.clauses, analysts, context));
    const l = e.loads[PRIMARY_MODEL_ID];
    expect(Object.keys(e.loads)).toEqual([PRIMARY_MODEL_ID]);
    expect(l?.calls).toBe(doc.clauses.length * analysts.length);
    expect(l?.cacheWriteInputTokens).toBeGreaterThan(0);
    expect(l?.cacheReadInputTokens).toBeGreaterThan(l?.cacheWriteInputTokens ?? 0);
    const file = (await estimateFile(SAMPLE, undefined, undefined, true)).estimate;
    expect(file.loads).toEqual(e.loads);
    expect(file.quote).toEqual({ ...e.quote, compute: laneComputeCost(l?.calls ?? 0, doc.chunks.length) });
  });
});

describe('clause-review plan', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('prints each file, the limits slowest first, what binds, the cost and what to raise (--defaults)', async () => {
    const { lines, io } = captured();
    expect(await planCommand(['--defaults', '--full-panel', SMALL, SAMPLE], io)).toBe(0);
    const text = lines.join('\n');
    expect(lines[0]).toBe('Batch: 2 contract(s), 3,443 model calls');
    // Without --full-panel, the calls intake would ask after the relevance screen.
    const screened = captured();
    expect(await planCommand(['--defaults', SMALL, SAMPLE], screened.io)).toBe(0);
    const asked = Number(
      /Batch: 2 contract\(s\), ([\d,]+) model calls/.exec(screened.lines[0] ?? '')?.[1]?.replace(/,/g, ''),
    );
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThan(3443);
    expect(text).toMatch(/GALACTICOMM.*: 7 clauses, 77 calls, \$\d+\.\d\d expected/);
    expect(text).toMatch(/BELLICUM.*: 306 clauses, 3,366 calls/);
    expect(text).toContain('Limits (AWS default quotas (--defaults)), slowest first:');
    expect(text).toContain(`Binding: Bedrock tokens/min, ${HAIKU_5_5}.`);
    expect(text).toContain('at 5,000,000 tokens/min (assumed)');
    expect(text).toMatch(
      /Raise first: request an increase of "Cross-Region InvokeModel tokens per minute for Anthropic Claude Haiku 5\.5"/,
    );
  });

  it('answers JSON whose plan is the sum of the quotes intake would record', async () => {
    const { lines, io } = captured();
    await planCommand(
      ['--defaults', '--json', '--full-panel', '--analysts', 'liability-counsel,ip-counsel', SMALL, SAMPLE],
      io,
    );
    const out = JSON.parse(lines.join('\n'));
    const expected = await Promise.all(
      [SMALL, SAMPLE].map(
        async (f) => (await estimateFile(f, ['liability-counsel', 'ip-counsel'], undefined, true)).estimate,
      ),
    );
    expect(out.plan.calls).toBe((7 + 306) * 2);
    expect(out.plan.expectedMicros).toBe(expected.reduce((s, e) => s + e.quote.expectedMicros, 0));
    expect(out.limits).toEqual(defaultLimits([HAIKU_5_5], 'AWS default quotas (--defaults)'));
  });

  it('uses the defaults, saying why, when no AWS credentials are found', async () => {
    for (const k of [
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_WEB_IDENTITY_TOKEN_FILE',
    ]) {
      delete process.env[k];
    }
    Object.assign(process.env, {
      AWS_PROFILE: 'clause-review-no-such-profile',
      AWS_CONFIG_FILE: '/nonexistent/config',
      AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_REGION: 'us-east-1',
    });
    const { lines, io } = captured();
    await planCommand([SMALL], io);
    expect(lines.join('\n')).toContain('Limits (AWS default quotas: no AWS credentials (');
  });

  it('refuses bad input with a clear error', async () => {
    const { io } = captured();
    const failure = async (args: string[]) => {
      try {
        await planCommand(args, io);
      } catch (error) {
        return isCliError(error) ? error.message : `not a CliError: ${String(error)}`;
      }
      return 'no error';
    };
    expect(await failure([])).toMatch(/^plan needs at least one file/);
    expect(await failure(['--lane', 'fast', SMALL])).toBe("--lane must be realtime or batch; got 'fast'");
    expect(await failure(['--call-seconds', '0', SMALL])).toMatch(
      /--call-seconds must be a number of seconds above 0/,
    );
    expect(await failure(['--defaults', 'no/such/file.txt'])).toMatch(/^cannot read no\/such\/file\.txt/);
    expect(await failure(['--defaults', '--analysts', 'astrologer', SMALL])).toMatch(/astrologer/);
    expect(await failure(['--defaults', '--model', 'acme.unpriced-v1', SMALL])).toMatch(/acme\.unpriced-v1/);
  });
});
