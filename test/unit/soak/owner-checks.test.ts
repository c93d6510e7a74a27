/**
 * The soak's checks of admission control, each fed records that keep or break it: the owner
 * samples taken during the run, the slot trail and the table read after it, and the owner
 * separation of the reads.
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '../../../lambdas/core/state/job.js';
import {
  checkAdmission,
  checkOwnerSample,
  checkOwnerSeparation,
  freeSlotWaits,
  type OwnerSample,
  peakSlots,
} from '../../soak/owner-checks.js';
import type { TrailEntry } from '../../soak/slot-trail.js';
import { at, job } from './checks-fixtures.js';

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
