/**
 * The soak's checks of each job (terminal, ceiling, allotments, books, every call accounted
 * for, missing pieces named, cancels reported) and of the whole run (repeats, spend, p99,
 * coverage), each fed records that keep or break it. The admission checks: owner-checks.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Report } from '../../../lambdas/core/report-types.js';
import type { Checkpoint } from '../../../lambdas/core/state/claims.js';
import {
  addCoverage,
  checkJob,
  checkRepeats,
  checkSpend,
  emptyCallTally,
  type JobFacts,
  p99,
  standing,
} from '../../soak/checks.js';
import { at, job } from './checks-fixtures.js';

const clauses = [
  { id: 'c0001', index: 0, start: 0, end: 5, text: 'one' },
  { id: 'c0002', index: 1, start: 6, end: 9, text: 'two' },
];
const doc = { chunks: [{ index: 0, clauses }] } as unknown as JobFacts['doc'];

function report(coverage: Partial<Report['coverage']> = {}, over: Partial<Report['job']> = {}): Report {
  return {
    job: {
      jobId: 'j-1',
      status: 'completed',
      lane: 'realtime',
      analysts: ['a1', 'a2'],
      document: { bucket: 'b', key: 'k' },
      ...over,
    },
    chunks: [
      {
        chunk: 0,
        clauseIds: ['c0001', 'c0002'],
        stages: { analyze: { status: 'done', attempts: 1 }, consolidate: { status: 'done', attempts: 1 } },
      },
    ],
    coverage: {
      callsPlanned: 4,
      callsDone: 4,
      callsReused: 0,
      callsFailed: 0,
      callsSkippedBudget: 0,
      callsCancelled: 0,
      callsScreened: 0,
      callsNotRun: 0,
      modelAttempts: 4,
      tier1Retries: 0,
      redeliveries: 0,
      failedCalls: [],
      unfinishedChunks: [],
      ...coverage,
    },
  } as unknown as Report;
}

const ledger = ['c0001', 'c0002'].flatMap((clauseId) =>
  ['a1', 'a2'].map((analystId) => ({ chunk: 0, clauseId, analystId, status: 'done', attempts: 1 })),
) as unknown as JobFacts['ledger'];

const facts = (over: Partial<JobFacts> = {}): JobFacts => ({
  jobId: 'j-1',
  job: job(),
  report: report(),
  doc,
  checkpoints: [],
  ledger,
  cancelled: false,
  ...over,
});

describe('checkJob', () => {
  it('passes a job that kept every promise', () => {
    expect(checkJob(facts())).toEqual([]);
  });

  it('names a job that never ended, spent over its ceiling or kept an allotment', () => {
    expect(checkJob(facts({ job: job({ status: 'running', finalizedAt: undefined }) }))[0]?.check).toBe(
      'terminal',
    );
    expect(checkJob(facts({ job: job({ costSpent: 1001 }) })).map((v) => v.check)).toEqual(['ceiling']);
    const held = [
      {
        jobId: 'j-1',
        chunk: 0,
        stage: 'analyze',
        status: 'dead',
        fence: 3,
        allotment: 50,
        allotmentOwner: 'w-1:2',
      } as Checkpoint,
    ];
    const reserving = [
      ...ledger,
      {
        chunk: 0,
        clauseId: 'c0003',
        analystId: 'a1',
        status: 'intent',
        reservation: 40,
        ownerFence: 'w-1:2',
      },
      { chunk: 1, clauseId: 'c0009', analystId: 'a1', status: 'intent', reservation: 7, ownerFence: 'w-2:1' },
    ] as unknown as JobFacts['ledger'];
    // The evidence names the holder the money was taken for and what it still has reserved,
    // from the chunk's own ledger rows only.
    expect(checkJob(facts({ checkpoints: held, ledger: reserving }))).toEqual([
      expect.objectContaining({
        check: 'allotments',
        chunk: 0,
        evidence:
          'status=dead fence=3 allotment=50 allotmentOwner=w-1:2; ledger: done@- ×4 cost 0 reserved 0; intent@w-1:2 ×1 cost 0 reserved 40',
      }),
    ]);
    expect(checkJob(facts({ job: job({ costReserved: 10 }) }))[0]?.check).toBe('allotments');
  });

  it('names a chunk a holder ended with an intent in flight or spend the job was not told of', () => {
    const done = { jobId: 'j-1', chunk: 0, stage: 'analyze', status: 'done', fence: 3, attempts: 3 };
    const withIntent = [
      ...ledger,
      {
        chunk: 0,
        clauseId: 'c0003',
        analystId: 'a1',
        status: 'in-flight',
        reservation: 9,
        ownerFence: 'w:2',
      },
    ] as unknown as JobFacts['ledger'];
    expect(checkJob(facts({ checkpoints: [done as Checkpoint], ledger: withIntent }))).toEqual([
      expect.objectContaining({ check: 'books', chunk: 0, detail: '1 intent(s) still in flight, of w:2' }),
    ]);
    const billed = ledger.map((e, i) => ({ ...e, cost: i === 0 ? 318 : 0 }));
    expect(
      checkJob(facts({ checkpoints: [{ ...done, spentAccounted: 228 } as Checkpoint], ledger: billed })),
    ).toEqual([
      expect.objectContaining({ check: 'books', detail: expect.stringContaining('318 µ$ settled') }),
    ]);
    // A chunk marked dead without a holder keeps its last holder's intents; only its money counts.
    expect(
      checkJob(facts({ checkpoints: [{ ...done, status: 'dead' } as Checkpoint], ledger: withIntent })),
    ).toEqual([]);
  });

  it('says where an unfinished job stands: stages by status, each open one with its lease and last change', () => {
    const now = Date.parse(at) + 90_000;
    const cp = (chunk: number, over: Partial<Checkpoint>) =>
      ({ jobId: 'j-1', chunk, stage: 'analyze', fence: 1, attempts: 1, ...over }) as Checkpoint;
    const checkpoints = [
      cp(0, { status: 'done' }),
      cp(1, { status: 'running', claimExpiresAt: now + 20_000, startedAt: at }),
      cp(2, { status: 'retrying', claimExpiresAt: now - 5_000, failedAt: at, attempts: 2 }),
      cp(3, { status: 'pending' }),
    ];
    expect(standing(checkpoints, now)).toBe(
      'stages done 1, running 1, retrying 1, pending 1; open: ' +
        'analyze 1 running (attempts 1, lease held 20 s, last change 90 s ago); ' +
        'analyze 2 retrying (attempts 2, lease expired 5 s, last change 90 s ago); ' +
        'analyze 3 pending (attempts 1, no lease)',
    );
    const running = checkJob(facts({ job: job({ status: 'running', finalizedAt: undefined }), checkpoints }));
    expect(running[0]?.detail).toMatch(/^status running, finalized never; stages done 1, running 1/);
  });

  it('names calls that are not accounted for, in the job and per chunk', () => {
    expect(checkJob(facts({ report: report({ callsDone: 3 }) })).map((v) => v.check)).toContain('accounted');
    const perChunk = checkJob(facts({ ledger: ledger.slice(0, 3) }));
    expect(perChunk).toEqual([expect.objectContaining({ check: 'accounted', chunk: 0 })]);
  });

  it('accounts the pairs the relevance screen left out as screened, in the job and per chunk', () => {
    const screenedDoc = {
      ...doc,
      screened: { c0002: [{ analystId: 'a2', probability: 0.001 }] },
    } as JobFacts['doc'];
    const asked = ledger.filter((e) => !(e.clauseId === 'c0002' && e.analystId === 'a2'));
    const screened = report({ callsDone: 3, callsScreened: 1 });
    expect(checkJob(facts({ doc: screenedDoc, ledger: asked, report: screened }))).toEqual([]);
    expect(
      checkJob(facts({ doc: screenedDoc, ledger: asked, report: report({ callsDone: 3 }) })).map(
        (v) => v.detail,
      ),
    ).toEqual(['done 3 + failed 0 + skipped 0 + cancelled 0 + screened 0 + not run 0 ≠ planned 4']);
    // Without the screen in the stored document, the pair is a call never accounted for.
    expect(checkJob(facts({ ledger: asked, report: screened }))).toEqual([
      expect.objectContaining({ check: 'accounted', chunk: 0 }),
    ]);
  });

  it('names missing pieces with no reason', () => {
    const unnamed = report(
      { callsDone: 0, callsNotRun: 4, unfinishedChunks: [{ chunk: 0, stage: 'analyze', status: 'dead' }] },
      { status: 'incomplete', reason: 'x' },
    );
    expect(checkJob(facts({ report: unnamed, doc: undefined })).map((v) => v.check)).toEqual(['named']);
    const notNamed = report({ callsDone: 0, callsNotRun: 4 }, { status: 'incomplete' });
    expect(
      checkJob(facts({ report: notNamed, doc: undefined }))
        .map((v) => v.check)
        .sort(),
    ).toEqual(['named', 'named']);
  });

  it('names a recorded cancel the report does not show', () => {
    expect(checkJob(facts({ job: job({ cancelledAt: at }), cancelled: true }))[0]?.check).toBe('cancel');
  });

  it('asks only a reason of a job cancelled while intake read a document it then refused', () => {
    const refused = job({
      status: 'cancelled',
      cancelledAt: at,
      rejection: 'too-complex',
      chunkCount: 0,
      reportKey: undefined,
    });
    expect(checkJob(facts({ job: { ...refused, reason: 'too complex' }, report: undefined }))).toEqual([]);
    expect(checkJob(facts({ job: refused, report: undefined })).map((v) => v.check)).toEqual(['named']);
    // A planned job cancelled later has a report to show.
    const planned = job({ status: 'cancelled', cancelledAt: at, reportKey: undefined });
    expect(checkJob(facts({ job: planned, report: undefined }))).toEqual([
      expect.objectContaining({
        check: 'report',
        evidence: 'status cancelled, 1 chunk(s), rejection none, reason none',
      }),
    ]);
  });
});

describe('run-wide checks', () => {
  it('allow repeated answers only within what worker deaths can explain', () => {
    const books = { a: { count: 1 }, b: { count: 3 }, c: { count: 2 } };
    expect(checkRepeats(books, 3)).toEqual({ repeated: 3, violations: [] });
    expect(checkRepeats(books, 2).violations[0]?.check).toBe('billed-once');
  });

  it('refuse a bill above the recorded spend', () => {
    expect(checkSpend(100, 100)).toEqual([]);
    expect(checkSpend(102, 100)[0]?.check).toBe('spend');
  });

  it('take the nearest-rank 99th percentile', () => {
    expect(p99(Array.from({ length: 200 }, (_, i) => i + 1))).toBe(198);
    expect(p99([5])).toBe(5);
  });
});

describe('addCoverage', () => {
  it('adds each report coverage count to its place in the tally', () => {
    const tally = emptyCallTally();
    const coverage = {
      callsPlanned: 10,
      callsDone: 4,
      callsFailed: 1,
      callsSkippedBudget: 2,
      callsCancelled: 1,
      callsScreened: 2,
      callsNotRun: 0,
    } as Report['coverage'];
    addCoverage(tally, coverage);
    addCoverage(tally, coverage);
    expect(tally).toEqual({
      planned: 20,
      done: 8,
      failed: 2,
      skipped: 4,
      cancelled: 2,
      screened: 4,
      notRun: 0,
    });
  });
});
