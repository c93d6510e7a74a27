import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { Report } from '../../lambdas/core/finalize/report-types.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';
import { expectCompleteReview, fixture, SMALL } from '../helpers/pipeline.js';

const out = mkdtempSync(join(tmpdir(), 'clause-review-cli-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // The package's bin entry, as `npx clause-review` runs it; the emulator is the test run's.
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin/clause-review.js'), ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, AWS_ENDPOINT_URL: inject('awsEndpoint') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npx clause-review review', () => {
  it('reviews a contract on the embedded local stack and writes report.json and report.html', async () => {
    const file = join(PROJECT_ROOT, 'test/fixtures/contracts', SMALL);
    const run = await cli(['review', file, '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const dir = join(out, SMALL.replace(/\.txt$/, ''));
    expect(existsSync(join(dir, 'report.html'))).toBe(true);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
    expectCompleteReview(report, fixture(SMALL).toString('utf8'));
    expect(report.notice).toMatch(/offline heuristic/);
    // Progress while it ran, then the summary table naming the report.
    expect(run.stdout).toMatch(/chunks \d+\/\d+/);
    expect(run.stdout).toMatch(/document\s+status\s+clauses/);
    expect(run.stdout).toContain(join(dir, 'report.html'));
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/^<!doctype html>/i);
  }, 180_000);

  it('refuses bad options with a message that names them', async () => {
    const run = await cli(['review', 'nothing.txt', '--lane', 'express']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--lane must be 'realtime' or 'batch'; got 'express'/);
  });
});
