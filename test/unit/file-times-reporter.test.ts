/**
 * The closing table of the slowest test files: its arithmetic, and the reporter in a real
 * vitest run of two files, one slow to load and one slow to run.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createVitest } from 'vitest/node';
import FileTimesReporter, { fileTimesTable } from '../helpers/file-times-reporter.js';

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

describe('FileTimesReporter', () => {
  const root = mkdtempSync(join(tmpdir(), 'clause-review-reporter-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('ends a run with its files, the slowest first, named from the project root', async () => {
    const pause = (ms: number) => `await new Promise((r) => setTimeout(r, ${ms}));`;
    writeFileSync(
      join(root, 'slow-load.test.ts'),
      `import { it } from 'vitest';\n${pause(600)}\nit('passes', () => {});\n`,
    );
    writeFileSync(
      join(root, 'quick.test.ts'),
      `import { it } from 'vitest';\nit('passes', async () => { ${pause(50)} });\n`,
    );
    const printed: string[] = [];
    const vitest = await createVitest('test', {
      root,
      config: false,
      watch: false,
      include: ['*.test.ts'],
      reporters: [new FileTimesReporter({ write: (t) => printed.push(t) })],
    });
    try {
      await vitest.start();
    } finally {
      await vitest.close();
    }
    const lines = printed.join('').trim().split('\n');
    expect(lines[0]).toBe('Slowest 2 of 2 test files (seconds: load, run, total)');
    expect(lines[1]).toMatch(/^ +\d+\.\d +\d+\.\d +\d+\.\d {2}slow-load\.test\.ts$/);
    expect(Number(lines[1]?.trim().split(/ +/)[0])).toBeGreaterThanOrEqual(0.6);
    expect(lines[2]).toMatch(/ {2}quick\.test\.ts$/);
    expect(lines[3]).toMatch(/ {2}all files, over \d+\.\d s of wall clock$/);
  }, 60_000);
});
