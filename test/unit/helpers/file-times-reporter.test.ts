/**
 * The closing table of the slowest test files, the times it records, and the longest-first
 * order that reads them: the arithmetic, and the reporter and sequencer in real vitest runs of
 * two files, one slow to load and one quick.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVitest } from 'vitest/node';
import FileTimesReporter, { fileTimesTable } from '../../helpers/file-times-reporter.js';
import LongestFirstSequencer, { FILE_TIMES, longestFirst } from '../../helpers/longest-first-sequencer.js';

describe('fileTimesTable', () => {
  it('lists the slowest files by load plus run time, at most `top`, then the sums over the wall clock', () => {
    const table = fileTimesTable(
      [
        { file: 'a.test.ts', loadMs: 100, runMs: 900 },
        { file: 'b.test.ts', loadMs: 4000, runMs: 500 },
        { file: 'c.test.ts', loadMs: 200, runMs: 2300 },
      ],
      3000,
      2,
    );
    expect(table.split('\n')).toEqual([
      'Slowest 2 of 3 test files (seconds: load, run, total)',
      '    4.0    0.5    4.5  b.test.ts',
      '    0.2    2.3    2.5  c.test.ts',
      '    4.3    3.7    8.0  all files, over 3.0 s of wall clock',
    ]);
  });
});

describe('longestFirst', () => {
  it('keeps projects apart in name order, puts unknown files first, then the longest', () => {
    const times: Record<string, number | undefined> = { a: 5, b: 50, c: undefined, d: 20, e: 1 };
    const files = [
      { project: 'unit', name: 'e' },
      { project: 'integration', name: 'a' },
      { project: 'integration', name: 'b' },
      { project: 'unit', name: 'c' },
      { project: 'integration', name: 'd' },
    ];
    expect(
      longestFirst(
        files,
        (f) => f.project,
        (f) => times[f.name],
      ).map((f) => `${f.project}:${f.name}`),
    ).toEqual(['integration:b', 'integration:d', 'integration:a', 'unit:c', 'unit:e']);
  });
});

describe('FileTimesReporter and LongestFirstSequencer', () => {
  const root = mkdtempSync(join(tmpdir(), 'clause-review-reporter-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  beforeAll(() => {
    const pause = (ms: number) => `await new Promise((r) => setTimeout(r, ${ms}));`;
    writeFileSync(
      join(root, 'slow-load.test.ts'),
      // Slower to load by far more than loading a module can vary on a busy machine.
      `import { it } from 'vitest';\n${pause(3000)}\nit('passes', () => {});\n`,
    );
    writeFileSync(
      join(root, 'quick.test.ts'),
      `import { it } from 'vitest';\nit('passes', async () => { ${pause(50)} });\n`,
    );
    mkdirSync(join(root, 'test'));
    writeFileSync(join(root, FILE_TIMES), JSON.stringify({ 'gone.test.ts': 1234 }));
  });

  it('ends a run with its files, the slowest first, and records their times beside those already there', async () => {
    const printed: string[] = [];
    const vitest = await createVitest('test', {
      root,
      config: false,
      watch: false,
      include: ['*.test.ts'],
      reporters: [new FileTimesReporter({ write: (t) => printed.push(t), record: true })],
    });
    try {
      await vitest.start();
    } finally {
      await vitest.close();
    }
    const lines = printed.join('').trim().split('\n');
    expect(lines[0]).toBe('Slowest 2 of 2 test files (seconds: load, run, total)');
    expect(lines[1]).toMatch(/^ +\d+\.\d +\d+\.\d +\d+\.\d {2}slow-load\.test\.ts$/);
    expect(Number(lines[1]?.trim().split(/ +/)[0])).toBeGreaterThanOrEqual(3);
    expect(lines[2]).toMatch(/ {2}quick\.test\.ts$/);
    expect(lines[3]).toMatch(/ {2}all files, over \d+\.\d s of wall clock$/);
    const recorded = JSON.parse(readFileSync(join(root, FILE_TIMES), 'utf8')) as Record<string, number>;
    expect(Object.keys(recorded)).toEqual(['gone.test.ts', 'quick.test.ts', 'slow-load.test.ts']);
    expect(recorded['gone.test.ts']).toBe(1234);
    expect(recorded['slow-load.test.ts']).toBeGreaterThanOrEqual(3000);
  }, 60_000);

  it('orders the files of a fresh checkout by the recorded times, the longest first', async () => {
    // No cache: what vitest remembers of the last run would come first.
    const vitest = await createVitest('test', {
      root,
      config: false,
      watch: false,
      include: ['*.test.ts'],
      cache: false,
      reporters: [],
    });
    const order = async (times: Record<string, number>) => {
      writeFileSync(join(root, FILE_TIMES), JSON.stringify(times));
      const sorted = await new LongestFirstSequencer(vitest).sort(await vitest.globTestSpecifications());
      return sorted.map((s) => basename(s.moduleId));
    };
    try {
      expect(await order({ 'quick.test.ts': 9000, 'slow-load.test.ts': 10 })).toEqual([
        'quick.test.ts',
        'slow-load.test.ts',
      ]);
      expect(await order({ 'quick.test.ts': 10, 'slow-load.test.ts': 9000 })).toEqual([
        'slow-load.test.ts',
        'quick.test.ts',
      ]);
    } finally {
      await vitest.close();
    }
  }, 60_000);
});
