import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Report } from '../../lambdas/core/report-types.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';
import { BENCH_CONTRACT } from '../bench/pipeline.js';
import { runCli } from '../helpers/cli-run.js';
import { awsEndpoint } from '../helpers/local-aws.js';
import { expectCompleteReview, fixture, SMALL } from '../helpers/pipeline.js';

/** Every live descendant of a process, from /proc (zombies count as gone). */
function descendants(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z') parentOf.set(pid, Number(ppid));
    } catch {
      // The process ended while we looked.
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parentOf) {
      if (parent === pid) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return found;
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

const out = mkdtempSync(join(tmpdir(), 'clause-review-cli-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The package's bin entry, as `npx clause-review` runs it; the emulator is the worker's. */
const cli = (args: string[]) => runCli(args, { ...process.env, AWS_ENDPOINT_URL: awsEndpoint() });

describe('npx clause-review review', () => {
  it('reviews a contract on the embedded local stack and writes report.json and report.html', async () => {
    const file = join(PROJECT_ROOT, 'test/fixtures/contracts', SMALL);
    const run = await cli(['review', file, '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const dir = join(out, SMALL.replace(/\.txt$/, ''));
    expect(existsSync(join(dir, 'report.html'))).toBe(true);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
    expectCompleteReview(report, fixture(SMALL).toString('utf8'));
    expect(report.notice).toMatch(/offline learned analyst/);
    // The relevance screen runs by default: the quote says what it saves, the progress and the
    // results table count the pairs screened, and the coverage adds up.
    const c = report.coverage;
    expect(c.callsScreened).toBeGreaterThan(0);
    expect(c.callsDone + c.callsScreened).toBe(c.callsPlanned);
    expect(run.stdout).toContain(`; the relevance screen saves ${c.callsScreened} calls,`);
    expect(run.stdout).toMatch(
      /; compute besides: \$\d+\.\d+ on Lambda \(realtime\), \$\d+\.\d+ on Fargate \(batch\)/,
    );
    // Progress while it ran, then the summary table naming the report.
    expect(run.stdout).toMatch(/chunks \d+\/\d+/);
    expect(run.stdout).toContain(`, ${c.callsScreened} screened of ${c.callsPlanned}`);
    expect(run.stdout).toMatch(
      /document\s+status\s+clauses\s+calls done\/planned\s+failed \/ skipped \/ cancelled \/ screened/,
    );
    expect(run.stdout).toMatch(
      new RegExp(`${c.callsDone}/${c.callsPlanned}\\s+0 / 0 / 0 / ${c.callsScreened}\\s`),
    );
    expect(run.stdout).toContain(join(dir, 'report.html'));
    // The in-process handlers' INFO logs stay out of the progress lines.
    expect(run.stdout).not.toMatch(/^\{"level":"INFO"/m);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/^<!doctype html>/i);
  }, 180_000);

  it('with --full-panel, asks every analyst about every clause and screens none', async () => {
    const file = join(PROJECT_ROOT, 'test/fixtures/contracts', SMALL);
    const dest = join(out, 'full-panel');
    const run = await cli(['review', file, '--full-panel', '--out', dest]);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(
      readFileSync(join(dest, SMALL.replace(/\.txt$/, ''), 'report.json'), 'utf8'),
    ) as Report;
    const c = report.coverage;
    expect(c.callsScreened).toBe(0);
    expect(c.callsDone).toBe(c.callsPlanned);
    expect(c.callsPlanned).toBe(report.summary.clauses * report.job.analysts.length);
    expect(run.stdout).not.toContain('the relevance screen saves');
    expect(run.stdout).toContain(`, 0 screened of ${c.callsPlanned}`);
  }, 180_000);

  it('keeps every report inside --out, whatever the documents are called', async () => {
    const docs = mkdtempSync(join(tmpdir(), 'clause-review-names-'));
    const text = fixture(SMALL).toString('utf8');
    writeFileSync(join(docs, '...txt'), text);
    writeFileSync(join(docs, '...pdf.txt'), text);
    const dest = join(out, 'confined');
    try {
      const run = await cli(['review', join(docs, '...txt'), join(docs, '...pdf.txt'), '--out', dest]);
      expect(run.code, run.stderr).toBe(0);
      // Only the folder it was given gained anything, one folder per document.
      expect(readdirSync(out).sort()).not.toContain('report.html');
      expect(readdirSync(dest).sort()).toEqual(['document', 'pdf']);
      for (const dir of readdirSync(dest)) {
        expect(readdirSync(join(dest, dir)).sort()).toEqual(['report.docx', 'report.html', 'report.json']);
      }
    } finally {
      rmSync(docs, { recursive: true, force: true });
    }
  }, 180_000);

  it('stops every process it started and exits when interrupted mid-run', async () => {
    // Its own moto, stand-in and two batch workers: no AWS_ENDPOINT_URL.
    const { AWS_ENDPOINT_URL: _external, ...env } = process.env;
    const child = spawn(
      process.execPath,
      [
        join(PROJECT_ROOT, 'bin/clause-review.js'),
        'review',
        BENCH_CONTRACT,
        '--latency-ms',
        '300',
        '--out',
        out,
      ],
      { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.resume();
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      child.once('exit', (code) => resolve({ code, at: Date.now() })),
    );
    const pid = child.pid ?? 0;
    // Wait until calls are being made, so moto, the stand-in and the workers are all busy.
    const started = Date.now();
    while (!/model requests: [1-9]/.test(stdout)) {
      if (Date.now() - started > 120_000) throw new Error(`no progress:\n${stdout}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const spawned = descendants(pid);
    expect(spawned.length).toBeGreaterThanOrEqual(3); // moto and two batch workers, at least

    const sent = Date.now();
    child.kill('SIGINT');
    const { code, at } = await exited;
    expect(code).toBe(130);
    expect(at - sent).toBeLessThan(15_000);
    expect(spawned.filter(alive)).toEqual([]);
    expect(stdout).toMatch(/stopped by SIGINT: no report was written/);
    expect(stdout).not.toMatch(/report\(s\) written/);
  }, 180_000);

  it('refuses bad options with a message that names them', async () => {
    const run = await cli(['review', 'nothing.txt', '--lane', 'express']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--lane must be 'realtime' or 'batch'; got 'express'/);
  });
});

describe('npx clause-review review --playbook', () => {
  it('puts a playbook file into the local stack first and reviews against it', async () => {
    const file = join(PROJECT_ROOT, 'test/fixtures/contracts', SMALL);
    const ours = join(out, 'ours.yaml');
    writeFileSync(
      ours,
      readFileSync(join(PROJECT_ROOT, 'lambdas/core/playbooks/defaults/nda.yaml'), 'utf8').replace(
        'name: nda',
        'name: our-nda',
      ),
    );
    const dest = join(out, 'with-playbook');
    const run = await cli(['review', file, '--playbook', ours, '--out', dest]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /reviewing against playbook our-nda@1 "Mutual non-disclosure agreements" \(sha256 [0-9a-f]{64}\)/,
    );
    const report = JSON.parse(
      readFileSync(join(dest, SMALL.replace(/\.txt$/, ''), 'report.json'), 'utf8'),
    ) as Report;
    expect(report.job.playbook).toMatchObject({ name: 'our-nda', version: 1 });
  }, 180_000);

  it('refuses a playbook the local stack does not hold before any upload', async () => {
    const run = await cli([
      'review',
      join(PROJECT_ROOT, 'test/fixtures/contracts', SMALL),
      '--playbook',
      'msa',
      '--out',
      out,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--playbook: no playbook named 'msa'; the stack has default, nda/);
    expect(run.stdout).not.toContain('uploaded');
  }, 120_000);
});

describe('npx clause-review review --model / doctor', () => {
  it('refuses a retired model before any upload or model call, naming an active replacement', async () => {
    const file = join(PROJECT_ROOT, 'test/fixtures/contracts', SMALL);
    const run = await cli([
      'review',
      '--model',
      'anthropic.claude-3-haiku-20240307-v1:0',
      file,
      '--out',
      out,
    ]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/'anthropic.claude-3-haiku-20240307-v1:0' has reached end of life/);
    expect(run.stderr).toContain("'us.anthropic.claude-haiku-5-5'");
    expect(run.stdout).not.toContain('uploaded');
  }, 120_000);

  it('doctor --local prints each configured model with its lifecycle state and exits 0', async () => {
    const run = await cli(['doctor', '--local']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/ok {3}us\.anthropic\.claude-haiku-5-5 \(primary\): ACTIVE/);
    expect(run.stdout).toMatch(/ok {3}us\.anthropic\.claude-sonnet-4-6 \(fallback\): ACTIVE/);
    expect(run.stdout).toContain('every model can be called');
  }, 60_000);
});
