import { describe, expect, it } from 'vitest';
import type { CallOutcome } from '../../lambdas/core/state/call-ledger.js';
import { CallLedger, outcomeOf } from '../../lambdas/core/state/call-ledger.js';
import { Claims } from '../../lambdas/core/state/claims.js';
import { type AccountingSnapshot, repeatedAnswers } from '../../localstack/bedrock/index.js';
import { callsAsked, fixture, MEDIUM, startHarness } from '../helpers/pipeline.js';

const h = await startHarness('faults');

/**
 * The call outcomes every chunk's consolidate checkpoint carries, which finalize reports from
 * instead of reading the ledger: each chunk has them, and together they are the ledger's.
 */
async function expectOutcomesOnCheckpoints(jobId: string, chunkCount: number): Promise<void> {
  const { db } = h.pipeline.clients;
  const table = h.stack.resources.tableName;
  const consolidated = (await new Claims(db, table).list(jobId)).filter((c) => c.stage === 'consolidate');
  expect(consolidated.filter((c) => c.status === 'done' && c.outcomes)).toHaveLength(chunkCount);
  const key = (o: CallOutcome) => `${o.chunk}#${o.clauseId}#${o.analystId}`;
  const sorted = (list: CallOutcome[]) => [...list].sort((a, b) => key(a).localeCompare(key(b)));
  const recorded = consolidated.flatMap((c) => JSON.parse(c.outcomes ?? '[]') as CallOutcome[]);
  const ledger = (await new CallLedger(db, table).forJob(jobId)).map(outcomeOf);
  expect(sorted(recorded)).toEqual(sorted(ledger));
}

/** Calls per outcome over every model. */
function outcomes(snapshot: AccountingSnapshot): Record<string, number> {
  const out: Record<string, number> = {};
  for (const byOutcome of Object.values(snapshot.byModel)) {
    for (const [outcome, counter] of Object.entries(byOutcome))
      out[outcome] = (out[outcome] ?? 0) + (counter?.calls ?? 0);
  }
  return out;
}

describe('transient faults on 5 % of calls', () => {
  it('completes the job, and the report counts every retry the stand-in caused', async () => {
    h.bedrock.resetAccounting();
    h.bedrock.setPlan({
      errorRates: {
        ThrottlingException: 0.02,
        ServiceUnavailableException: 0.01,
        InternalServerException: 0.01,
        ModelTimeoutException: 0.01,
      },
    });
    const jobId = await h.upload(`transient-${MEDIUM}`, fixture(MEDIUM));
    const job = await h.waitForEnd(jobId, 120_000);
    const seen = outcomes(h.bedrock.accounting());
    const errors = Object.entries(seen)
      .filter(([k]) => k !== 'success')
      .reduce((n, [, v]) => n + v, 0);

    expect(job.status).toBe('completed');
    const report = await h.report(job);
    expect(errors).toBeGreaterThan(0);
    expect(report.coverage.callsDone).toBe(callsAsked(job));
    expect(report.coverage.callsFailed).toBe(0);
    expect(report.coverage.failedCalls).toEqual([]);
    // An answer the worker gave up on (its timeout, on a loaded machine) is a success in the
    // stand-in's books and a retry in the worker's: each is a repeated answer, and an
    // unanswered attempt on its ledger entry (billedTwice). On a quiet machine there are none.
    const books = h.bedrock.accounting();
    const repeats = repeatedAnswers(books);
    expect(await h.billedTwice(jobId)).toEqual([]);
    expect(report.coverage.tier1Retries).toBe(errors + repeats);
    expect(report.coverage.modelAttempts).toBe(books.totals.calls);
    expect(seen.success).toBe(callsAsked(job) + repeats);
    expect(report.clauses.every((c) => c.status === 'analysed')).toBe(true);
    await expectOutcomesOnCheckpoints(jobId, job.chunkCount);
  }, 180_000);
});

describe('a permanent fault on some calls', () => {
  it('ends the job incomplete and names every failed call; the other calls of each chunk finish', async () => {
    h.bedrock.resetAccounting();
    h.bedrock.setPlan({ errorRates: { ValidationException: 0.03 } }, { replace: true });
    const jobId = await h.upload(`permanent-${MEDIUM}`, fixture(MEDIUM));
    const job = await h.waitForEnd(jobId, 120_000);
    const rejected = outcomes(h.bedrock.accounting()).ValidationException ?? 0;

    expect(rejected).toBeGreaterThan(0);
    expect(job.status).toBe('incomplete');
    const report = await h.report(job);
    expect(report.job.status).toBe('incomplete');
    expect(report.coverage.callsFailed).toBe(rejected);
    expect(report.coverage.callsDone).toBe(callsAsked(job) - rejected);
    expect(report.coverage.failedCalls).toHaveLength(rejected);
    for (const failed of report.coverage.failedCalls) {
      expect(failed.errorClass).toBe('logic');
      expect(failed.failureKind).toBe('permanent');
      expect(failed.lastError).toMatch(/ValidationException/);
      const clause = report.clauses.find((c) => c.id === failed.clauseId);
      expect(clause?.status).toBe('partial');
      expect(clause?.analystsFailed).toContain(failed.analystId);
    }
    // A permanent failure is not retried and does not hold up its chunk.
    expect(report.coverage.tier1Retries).toBe(0);
    expect(report.coverage.unfinishedChunks).toEqual([]);
    expect(report.job.reason).toMatch(new RegExp(`${rejected} call`));
    await expectOutcomesOnCheckpoints(jobId, job.chunkCount);
  }, 180_000);
});
