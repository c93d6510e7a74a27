import { describe, expect, it } from 'vitest';
import type { Clause } from '../../../lambdas/core/clause.js';
import { chunkClauses } from '../../../lambdas/core/documents/index.js';

/** Clauses of the given lengths, laid end to end with one space between them. */
function clausesOf(lengths: readonly number[]): Clause[] {
  let start = 0;
  return lengths.map((length, index) => {
    const clause = {
      index,
      id: `c${String(index + 1).padStart(4, '0')}`,
      start,
      end: start + length,
      text: 'x'.repeat(length),
    };
    start += length + 1;
    return clause;
  });
}

/** A small deterministic generator, so a failing case can be replayed. */
function lengths(seed: number, count: number, max: number): number[] {
  let state = seed;
  return Array.from({ length: count }, () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return 1 + (state % max);
  });
}

describe('chunkClauses', () => {
  it('defaults to 8 clauses and 12,000 characters per chunk', () => {
    expect(chunkClauses(clausesOf(Array(20).fill(100))).map((c) => c.clauses.length)).toEqual([8, 8, 4]);
    expect(chunkClauses(clausesOf([5000, 5000, 5000])).map((c) => c.clauses.length)).toEqual([2, 1]);
  });

  it('gives a clause bigger than maxChars a chunk of its own', () => {
    const chunks = chunkClauses(clausesOf([100, 20_000, 100, 100]), { maxChars: 1000 });
    expect(chunks.map((c) => c.clauses.map((k) => k.index))).toEqual([[0], [1], [2, 3]]);
  });

  it.each([
    [1, 1, 100, 200],
    [2, 8, 12_000, 4000],
    [3, 3, 500, 400],
    [4, 200, 1_000_000, 4000],
  ])('keeps every bound and every clause once, in order (seed %i)', (seed, maxClauses, maxChars, longest) => {
    const clauses = clausesOf(lengths(seed, 500, longest));
    const chunks = chunkClauses(clauses, { maxClauses, maxChars });
    expect(chunks.flatMap((c) => c.clauses)).toEqual(clauses);
    for (const [i, chunk] of chunks.entries()) {
      expect(chunk.index).toBe(i);
      expect(chunk.clauses.length).toBeGreaterThan(0);
      expect(chunk.clauses.length).toBeLessThanOrEqual(maxClauses);
      const chars = chunk.clauses.reduce((n, c) => n + c.text.length, 0);
      if (chunk.clauses.length > 1) expect(chars).toBeLessThanOrEqual(maxChars);
      // Greedy: the next clause would not have fitted.
      const next = chunks[i + 1]?.clauses[0];
      if (next !== undefined) {
        expect(chunk.clauses.length === maxClauses || chars + next.text.length > maxChars).toBe(true);
      }
    }
  });

  it('returns no chunks for no clauses', () => {
    expect(chunkClauses([])).toEqual([]);
  });

  it.each([
    [{ maxClauses: 0 }, /maxClauses must be a whole number from 1 to 200; got 0/],
    [{ maxClauses: 201 }, /maxClauses .* 1 to 200; got 201/],
    [{ maxClauses: 2.5 }, /maxClauses .*got 2\.5/],
    [{ maxChars: 99 }, /maxChars must be a whole number from 100 to 1000000; got 99/],
    [{ maxChars: Number.NaN }, /maxChars .*got NaN/],
  ])('rejects %o', (options, message) => {
    expect(() => chunkClauses(clausesOf([10]), options)).toThrow(RangeError);
    expect(() => chunkClauses(clausesOf([10]), options)).toThrow(message);
  });
});
