import { describe, expect, it } from 'vitest';
import type { Report } from '../../../lambdas/core/report-types.js';
import type { Checkpoint } from '../../../lambdas/core/state/claims.js';
import type { Job } from '../../../lambdas/core/state/job.js';
import { seededRandom } from '../../helpers/random.js';
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
import {
  checkAdmission,
  checkOwnerSample,
  checkOwnerSeparation,
  freeSlotWaits,
  type OwnerSample,
  peakSlots,
} from '../../soak/owner-checks.js';
import { OWNER_SHARES, planJobs } from '../../soak/plan.js';
import type { TrailEntry } from '../../soak/slot-trail.js';

const at = '2026-03-01T10:00:00.000Z';

function job(over: Partial<Job> = {}): Job {
  return {
    jobId: 'j-1',
    status: 'completed',
    lane: 'realtime',
    bucket: 'b',
    key: 'k',
    analysts: ['a1', 'a2'],
    chunkCount: 1,
    clauseCount: 2,
    callsPlanned: 4,
    chunksTerminal: 1,
    chunksDone: 1,
    ceilingMicros: 1000,
    costCommitted: 400,
    costReserved: 0,
    costSpent: 400,
    createdAt: at,
    updatedAt: at,
    deadline: 0,
    finalizedAt: at,
    reportKey: 'reports/j-1/report.json',
    ...over,
  };
}

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

describe('planJobs', () => {
  it('draws the same plan from the same seed, with every kind of action among many jobs', () => {
    const files = ['a.txt', 'b.txt', 'c.txt'];
    const plan = planJobs(300, files, seededRandom(9));
    expect(planJobs(300, files, seededRandom(9))).toEqual(plan);
    expect(plan.filter((p) => p.cancelAfterMs !== undefined).length).toBeGreaterThan(15);
    expect(plan.filter((p) => p.pauseAfterMs !== undefined).length).toBeGreaterThan(15);
    expect(plan.filter((p) => p.tightCeilingUsd !== undefined).length).toBeGreaterThan(15);
    expect(plan.filter((p) => p.gate).length).toBeGreaterThan(10);
    expect(new Set(plan.map((p) => p.lane))).toEqual(new Set(['realtime', 'batch']));
  });

  it('spreads jobs over every owner, most to the busy ones, with deaths and duplicates on admission control', () => {
    const plan = planJobs(300, ['a.txt'], seededRandom(9));
    const byOwner = OWNER_SHARES.map((_, i) => plan.filter((p) => p.owner === i).length);
    expect(byOwner.every((n) => n > 0)).toBe(true);
    expect(byOwner[0]).toBeGreaterThan(90);
    expect(byOwner[1]).toBeGreaterThan(60);
    expect(plan.filter((p) => p.reroute).length).toBeGreaterThan(15);
    expect(plan.filter((p) => p.dyingRoute).length).toBeGreaterThan(10);
    expect(plan.filter((p) => p.cancelWhenQueued).length).toBeGreaterThan(15);
    const intakeDeaths = plan.flatMap((p) => (p.dyingIntake ? [p.dyingIntake] : []));
    expect(new Set(intakeDeaths.map((d) => ('landmark' in d ? d.landmark : 'count')))).toEqual(
      new Set(['slot-take', 'queued', 'count']),
    );
    const endDeaths = plan.flatMap((p) => (p.dyingEnd ? [p.dyingEnd] : []));
    expect(endDeaths.length).toBeGreaterThan(50);
    expect(endDeaths.every((d) => 'landmark' in d && d.landmark === 'slot-release')).toBe(true);
    expect(plan.filter((p) => p.dyingHold).length).toBeGreaterThan(100);
  });
});

const ANN = 'arn:aws:iam::1:user/ann';
const BOB = 'arn:aws:iam::1:user/bob';

describe('checkOwnerSample', () => {
  const sample = (over: Partial<OwnerSample> = {}): OwnerSample => ({
    at: Date.parse(at),
    slots: [
      { owner: ANN, held: 2, cap: 2 },
      { owner: BOB, held: 1, cap: 2 },
    ],
    holders: [
      { jobId: 'a1', owner: ANN },
      { jobId: 'a2', owner: ANN },
      { jobId: 'b1', owner: BOB },
    ],
    queued: [{ jobId: 'a3', owner: ANN }],
    ...over,
  });

  it('passes owners at or under their cap', () => {
    expect(checkOwnerSample(sample(), 2)).toEqual([]);
  });

  it('names an owner whose count is over its cap', () => {
    const v = checkOwnerSample(sample({ slots: [{ owner: ANN, held: 3, cap: 2 }] }), 2);
    expect(v).toEqual([
      expect.objectContaining({
        check: 'owner-cap',
        detail: expect.stringMatching(/^arn.*ann held 3 slots over its cap 2/),
      }),
    ]);
  });

  it('names an owner with more running jobs holding a slot than its cap, whatever its count says', () => {
    const holders = [...sample().holders, { jobId: 'a3', owner: ANN }];
    const v = checkOwnerSample(sample({ holders }), 2);
    expect(v).toEqual([expect.objectContaining({ check: 'owner-cap', evidence: 'a1, a2, a3' })]);
  });

  it('names a count below zero, with or without a cap', () => {
    expect(checkOwnerSample(sample({ slots: [{ owner: BOB, held: -1 }] }), 0)[0]?.check).toBe('owner-slots');
  });
});

describe('freeSlotWaits', () => {
  it('measures the longest run of readings in which an owner had jobs queued and a slot free', () => {
    const reading = (s: number, held: number, queued: boolean): OwnerSample => ({
      at: s * 1000,
      slots: [{ owner: ANN, held, cap: 2 }],
      holders: [],
      queued: queued ? [{ jobId: 'a3', owner: ANN }] : [],
    });
    const waits = freeSlotWaits(
      [
        reading(0, 2, true),
        reading(1, 1, true),
        reading(5, 1, true),
        reading(6, 2, true),
        reading(7, 1, true),
        reading(8, 1, false),
      ],
      2,
    );
    expect(waits.get(ANN)).toBe(4000);
  });
});

/** A trail entry; `sent` and `answered` order it among the others. */
function entry(
  kind: 'take' | 'release',
  jobId: string,
  sent: number,
  answered: number,
  owner = ANN,
  outcome: TrailEntry['outcome'] = 'ok',
): TrailEntry {
  return { kind, owner, jobId, sentSeq: sent, answeredSeq: answered, outcome, at: Date.parse(at) + sent };
}
const queued = (
  jobId: string,
  sent: number,
  answered = sent + 1,
  kind: 'queued' | 'fanned-out' | 'cancelled' = 'queued',
): TrailEntry => ({
  kind,
  jobId,
  sentSeq: sent,
  answeredSeq: answered,
  outcome: 'ok',
  at: Date.parse(at) + sent,
});

describe('peakSlots', () => {
  it('counts a take from its answer and a give-back from its request, so overlapping writes never inflate the peak', () => {
    // j2's take was answered after j1's give-back was sent: never two at once.
    const trail = [entry('take', 'j1', 1, 2), entry('release', 'j1', 3, 6), entry('take', 'j2', 4, 5)];
    expect(peakSlots(trail).get(ANN)?.held).toBe(1);
    // j2's take was answered before j1's give-back was sent: two at once.
    const overlapping = [entry('take', 'j1', 1, 2), entry('take', 'j2', 3, 4), entry('release', 'j1', 5, 6)];
    expect(peakSlots(overlapping).get(ANN)).toMatchObject({ held: 2, jobId: 'j2' });
  });
});

describe('checkAdmission', () => {
  const ended = (jobId: string, over: Partial<Job> = {}) => job({ jobId, owner: ANN, ...over });
  const clean = [
    queued('j3', 1),
    entry('take', 'j1', 3, 4),
    entry('take', 'j2', 5, 6),
    entry('release', 'j1', 7, 8),
    entry('take', 'j3', 9, 10),
    entry('release', 'j2', 11, 12),
    entry('release', 'j3', 13, 14),
  ];
  const endJobs = [ended('j1'), ended('j2'), ended('j3', { queuedAt: at })];
  const slots = [{ owner: ANN, held: 0, cap: 2 }];

  it('passes a run that kept every promise of admission control', () => {
    expect(checkAdmission(clean, 2, endJobs, slots)).toEqual([]);
  });

  it('names an owner the records show over its cap', () => {
    const v = checkAdmission(clean, 1, endJobs, [{ owner: ANN, held: 0, cap: 1 }]);
    expect(v).toEqual([expect.objectContaining({ check: 'owner-cap', jobId: 'j2' })]);
  });

  it('leaves an owner with a write of unknown outcome to the table, and still checks the table', () => {
    const unknown = [...clean.slice(0, 2), entry('take', 'j2', 5, 6, ANN, 'unknown'), ...clean.slice(3)];
    expect(checkAdmission(unknown, 1, endJobs, [{ owner: ANN, held: 0, cap: 1 }])).toEqual([]);
    expect(
      checkAdmission(unknown, 1, endJobs, [{ owner: ANN, held: 1, cap: 1 }]).map((v) => v.check),
    ).toEqual(['slot-held']);
  });

  it('names a slot held by an ended job, in the records and in the table', () => {
    const kept = clean.filter((e) => !(e.kind === 'release' && e.jobId === 'j3'));
    const v = checkAdmission(
      kept,
      2,
      [ended('j1'), ended('j2'), ended('j3', { holdsSlot: true })],
      [{ owner: ANN, held: 1, cap: 2 }],
    );
    expect(v).toEqual([
      expect.objectContaining({
        check: 'slot-held',
        jobId: 'j3',
        detail: expect.stringMatching(/^completed and still holds a slot/),
      }),
    ]);
    // The table says it gave it back, the records say it did not: a write lost or a slot leaked.
    expect(checkAdmission(kept, 2, endJobs, slots).map((v) => [v.check, v.jobId])).toEqual([
      ['owner-slots', 'j3'],
    ]);
  });

  it("names an owner's count that is not its jobs holding slots, and a cap other than the run's", () => {
    const v = checkAdmission(clean, 2, endJobs, [{ owner: ANN, held: 1, cap: 3 }]);
    expect(v.map((x) => x.check)).toEqual(['slot-held', 'owner-cap']);
  });

  it('names a job queued and never started or ended, and one still queued', () => {
    const never = [...clean, queued('j4', 20)];
    const j4 = ended('j4', { status: 'queued', finalizedAt: undefined, queuedAt: at });
    expect(checkAdmission(never, 2, [...endJobs, j4], slots).map((v) => [v.check, v.jobId])).toEqual([
      ['queued', 'j4'],
      ['queued', 'j4'],
    ]);
    // Started before it was queued again (a resume that found its owner full), and never after.
    const requeued = [...clean.slice(0, -1), queued('j3', 15), entry('release', 'j3', 13, 14)];
    const j3 = ended('j3', { status: 'paused', finalizedAt: undefined });
    expect(checkAdmission(requeued, 2, [ended('j1'), ended('j2'), j3], slots).map((v) => v.check)).toEqual([
      'queued',
    ]);
  });

  it('names a job whose chunks were sent while it waited queued, and not one sent as it started', () => {
    const fanned = (sent: number, answered: number) => queued('j3', sent, answered, 'fanned-out');
    // j3 was queued at 1-2 and started at 9-10: a fan-out recorded after its start is its own.
    expect(checkAdmission([...clean, fanned(15, 16)], 2, endJobs, slots)).toEqual([]);
    // One answered after the start was sent may have come after it.
    expect(checkAdmission([...clean, fanned(8, 15)], 2, endJobs, slots)).toEqual([]);
    // Sent after the queueing was answered and answered before any start was sent: sent while it waited.
    const v = checkAdmission([...clean, fanned(5, 8)], 2, endJobs, slots);
    expect(v).toEqual([
      expect.objectContaining({
        check: 'queued',
        jobId: 'j3',
        detail: expect.stringMatching(/^its chunks were sent while it waited queued, before it ever ran/),
        evidence: "the job's trail: queued 1-2, fanned-out 5-8, take 9-10, release 13-14",
      }),
    ]);
  });

  it('lets a job cancelled while it waited have its chunks sent, for workers to end', () => {
    const cancelledQueued = [
      queued('j4', 1, 2),
      queued('j4', 3, 5, 'cancelled'),
      queued('j4', 4, 6, 'fanned-out'),
    ];
    const j4 = ended('j4', { status: 'cancelled', queuedAt: at });
    expect(checkAdmission(cancelledQueued, 2, [j4], slots)).toEqual([]);
    // Recorded before the cancel was sent: sent while it waited.
    const early = [queued('j4', 1, 2), queued('j4', 3, 4, 'fanned-out'), queued('j4', 5, 6, 'cancelled')];
    expect(checkAdmission(early, 2, [j4], slots).map((v) => v.check)).toEqual(['queued']);
  });

  it('lets a job that ran before it was queued again record its fan-out while it waits', () => {
    // j1 started at intake, was paused (its slot given back) and resumed while its owner was full;
    // intake's fan-out, sent while it ran, is recorded after.
    const requeued = [
      entry('take', 'j1', 1, 2),
      entry('release', 'j1', 3, 4),
      queued('j1', 5, 6),
      queued('j1', 7, 8, 'fanned-out'),
      entry('take', 'j1', 9, 10),
      entry('release', 'j1', 11, 12),
    ];
    expect(checkAdmission(requeued, 2, [ended('j1')], slots)).toEqual([]);
  });
});

describe('checkOwnerSeparation', () => {
  const findings = 'GET /jobs/{id}/findings?after=';
  it('passes a stranger refused everywhere and an administrator who reads every readable clause', () => {
    expect(
      checkOwnerSeparation(
        'j-1',
        [
          { route: 'GET /jobs/{id}', as: 'stranger', status: 404 },
          { route: findings, as: 'stranger', status: 404 },
          { route: findings, as: 'administrator', status: 200, clauses: 12 },
          { route: 'GET /jobs/{id}/report', as: 'administrator', status: 200 },
        ],
        12,
      ),
    ).toEqual([]);
  });

  it('names a stranger who was shown findings, and a read that lost or repeated clauses', () => {
    const v = checkOwnerSeparation(
      'j-1',
      [
        { route: findings, as: 'stranger', status: 200, clauses: 3 },
        { route: findings, as: 'administrator', status: 200, clauses: 11 },
      ],
      12,
    );
    expect(v.map((x) => x.detail)).toEqual([
      `stranger got 200 from ${findings}, expected 404`,
      `${findings} read 3 clause(s) to the end; the report has 12`,
      `${findings} read 11 clause(s) to the end; the report has 12`,
    ]);
    expect(v.every((x) => x.check === 'owner' && x.jobId === 'j-1')).toBe(true);
  });

  it('lets an administrator be told a report is not written yet, and nothing else', () => {
    const report = 'GET /jobs/{id}/report';
    expect(
      checkOwnerSeparation('j-1', [{ route: report, as: 'administrator', status: 409 }], undefined),
    ).toEqual([]);
    expect(
      checkOwnerSeparation('j-1', [{ route: report, as: 'administrator', status: 409 }], 4),
    ).toHaveLength(1);
    expect(
      checkOwnerSeparation('j-1', [{ route: findings, as: 'administrator', status: 500 }], 4),
    ).toHaveLength(1);
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
