/** The soak's plan of jobs: the same from the same seed, with every kind of action and owner. */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../helpers/random.js';
import { OWNER_SHARES, planJobs } from '../../soak/plan.js';

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
