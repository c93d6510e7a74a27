import { describe, expect, it } from 'vitest';
import { type LatencySpec, sampleLatencyMs } from '../../../localstack/bedrock/latency.js';
import { createRandom, randomUuid } from '../../../localstack/bedrock/random.js';

const draws = (seed: number, n: number): number[] => {
  const random = createRandom(seed);
  return Array.from({ length: n }, () => random.next());
};

const samples = (spec: LatencySpec, n: number, seed = 7): number[] => {
  const random = createRandom(seed);
  return Array.from({ length: n }, () => sampleLatencyMs(spec, random));
};

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

describe('seeded random', () => {
  it('repeats the same sequence for the same seed and differs for another', () => {
    expect(draws(42, 100)).toEqual(draws(42, 100));
    expect(draws(42, 100)).not.toEqual(draws(43, 100));
  });

  it('draws uniformly from [0, 1)', () => {
    const values = draws(1, 50_000);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(1);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    expect(mean).toBeCloseTo(0.5, 2);
    const lowDecile = values.filter((v) => v < 0.1).length / values.length;
    expect(lowDecile).toBeGreaterThan(0.09);
    expect(lowDecile).toBeLessThan(0.11);
  });

  it('forks consume exactly one draw, so the parent stream does not depend on the child', () => {
    const a = createRandom(5);
    const child = a.fork();
    child.next();
    child.next();
    const b = createRandom(5);
    b.next();
    expect(a.next()).toBe(b.next());
  });

  it('draws standard normal variates', () => {
    const random = createRandom(3);
    const values = Array.from({ length: 40_000 }, () => random.normal());
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
    expect(mean).toBeCloseTo(0, 1);
    expect(variance).toBeGreaterThan(0.95);
    expect(variance).toBeLessThan(1.05);
  });

  it('formats version-4 UUIDs', () => {
    const random = createRandom(9);
    const ids = Array.from({ length: 200 }, () => randomUuid(random));
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('latency distributions', () => {
  it('fixed latency is exact and scaled', () => {
    expect(samples({ kind: 'fixed', ms: 120 }, 5)).toEqual([120, 120, 120, 120, 120]);
    expect(samples({ kind: 'fixed', ms: 120, scale: 0.5 }, 1)).toEqual([60]);
  });

  it('uniform latency stays within its bounds and covers them', () => {
    const values = samples({ kind: 'uniform', minMs: 50, maxMs: 150 }, 20_000);
    expect(Math.min(...values)).toBe(50);
    expect(Math.max(...values)).toBe(150);
    expect(values.reduce((a, b) => a + b, 0) / values.length).toBeCloseTo(100, -1);
  });

  it('lognormal latency has the requested median and a right tail', () => {
    const values = samples({ kind: 'lognormal', medianMs: 800, sigma: 0.5 }, 20_000);
    expect(Math.abs(median(values) - 800) / 800).toBeLessThan(0.03);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    // E[X] = median * exp(sigma^2 / 2) for a lognormal.
    expect(mean / (800 * Math.exp(0.125))).toBeCloseTo(1, 1);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
  });

  it('scale multiplies lognormal samples', () => {
    const base = samples({ kind: 'lognormal', medianMs: 400, sigma: 0.3 }, 5_000);
    const scaled = samples({ kind: 'lognormal', medianMs: 400, sigma: 0.3, scale: 2 }, 5_000);
    expect(Math.abs(median(scaled) / median(base) - 2)).toBeLessThan(0.02);
  });
});
