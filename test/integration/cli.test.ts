/**
 * The CLI's API commands against the local status API (in-process, output captured), and
 * `local up` / `local down` as real processes sharing the worker's emulator.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../bin/client/api-client.js';
import { cancelCommand, reportCommand, statusCommand } from '../../bin/commands/api-commands.js';
import { isCliError } from '../../bin/commands/cli-error.js';
import type { LocalState } from '../../bin/commands/local-state.js';
import { submitCommand } from '../../bin/commands/submit-command.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';
import { startPipelineApi } from '../../localstack/runtime/local-api.js';
import { capture, localTarget } from '../helpers/cli-target.js';
import { awsEndpoint, uniquePrefix } from '../helpers/local-aws.js';
import { fixture, SMALL, startHarness } from '../helpers/pipeline.js';

const h = await startHarness('cli');
const localApi = await startPipelineApi({
  awsEndpoint: h.stack.endpoint,
  db: h.pipeline.clients.db,
  resources: h.stack.resources,
});
const scratch = mkdtempSync(join(tmpdir(), 'clause-review-cli-'));
afterAll(async () => {
  await localApi.close();
  rmSync(scratch, { recursive: true, force: true });
});

const target = localTarget(
  h,
  new ApiClient({ url: localApi.url, region: LOCAL_REGION, credentials: EMULATOR_CREDENTIALS }),
);

describe('submit, status, report', () => {
  it('submits a file, watches it to the end with a progress bar, and downloads its reports', async () => {
    const file = join(scratch, SMALL);
    writeFileSync(file, fixture(SMALL));
    const io = capture();
    expect(await submitCommand([file, '--lane', 'realtime', '--ceiling', '3', '--local'], io, target)).toBe(
      0,
    );
    const jobId = /^job (j-[0-9a-f]{20}) \(submission s-[0-9a-f]{20}\)$/.exec(io.stdout[0] ?? '')?.[1];
    expect(jobId, io.stdout.join('\n')).toBeDefined();
    expect(io.stderr.join('\n')).toMatch(/lane realtime, ceiling \$3\.00, 11 analysts/);

    const watch = capture();
    expect(await statusCommand([jobId ?? '', '--watch', '--interval', '0.3'], watch, target)).toBe(0);
    const last = watch.stdout.at(-1) ?? '';
    expect(last).toMatch(
      /\[#{24}\] (\d+)\/\1 chunks · \d+ calls planned \(\d+ screened\) · \$[\d.]+ of \$3\.00 · completed/,
    );

    const report = capture();
    expect(await reportCommand([jobId ?? '', '--out', scratch], report, target)).toBe(0);
    expect(report.stdout).toEqual([
      join(scratch, jobId ?? '', 'report.json'),
      join(scratch, jobId ?? '', 'report.html'),
      join(scratch, jobId ?? '', 'report.docx'),
    ]);
    // A DOCX is a zip: its first bytes are the local file header's signature.
    expect(readFileSync(join(scratch, jobId ?? '', 'report.docx')).subarray(0, 4)).toEqual(
      Buffer.from([0x50, 0x4b, 0x03, 0x04]),
    );
    const json = JSON.parse(readFileSync(join(scratch, jobId ?? '', 'report.json'), 'utf8')) as {
      job: { jobId: string; status: string };
    };
    expect(json.job).toMatchObject({ jobId, status: 'completed' });
  });

  it('with --dry-run, prints the signed request and where the upload would go, and sends nothing', async () => {
    const file = join(scratch, `dry-${SMALL}`);
    writeFileSync(file, fixture(SMALL));
    const listed = () =>
      h.stack.clients.s3.send(
        new ListObjectsV2Command({
          Bucket: h.stack.resources.intakeBucket,
          Prefix: h.stack.resources.intakePrefix,
        }),
      );
    const before = (await listed()).KeyCount;
    const io = capture();
    // --budget, --ceiling's earlier name, is still read.
    expect(await submitCommand([file, '--lane', 'batch', '--budget', '2', '--dry-run'], io, target)).toBe(0);
    const out = io.stdout.join('\n');
    expect(out).toMatch(/^dry run on the local stack: nothing sent/);
    expect(out).toContain(
      `would POST ${new URL('jobs', localApi.url).href} {"filename":"dry-${SMALL}","lane":"batch","ceilingUsd":2}`,
    );
    expect(out).toMatch(
      /signed: AWS4-HMAC-SHA256 Credential=\w+\/\d{8}\/us-east-1\/execute-api\/aws4_request/,
    );
    expect(out).toContain(`under s3://${h.stack.resources.intakeBucket}/${h.stack.resources.intakePrefix}`);
    // --full-panel asks every analyst about every clause: the relevance screen is the default.
    const full = capture();
    expect(await submitCommand([file, '--full-panel', '--dry-run'], full, target)).toBe(0);
    expect(full.stdout.join('\n')).toContain(
      `would POST ${new URL('jobs', localApi.url).href} {"filename":"dry-${SMALL}","fullPanel":true}`,
    );
    expect((await listed()).KeyCount).toBe(before);
  });

  it('cancels a running job, and explains an unknown id and a second cancel', async () => {
    const file = join(scratch, `batch-${SMALL}`);
    writeFileSync(file, fixture(SMALL));
    const io = capture();
    // No batch worker runs in the harness: the job stays running until cancelled.
    await submitCommand([file, '--lane', 'batch'], io, target);
    const jobId = /(j-[0-9a-f]{20})/.exec(io.stdout[0] ?? '')?.[1] ?? '';
    for (let i = 0; i < 100 && (await h.jobs.find(jobId))?.status !== 'running'; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const cancel = capture();
    expect(await cancelCommand([jobId], cancel, target)).toBe(0);
    expect(cancel.stdout[0]).toMatch(new RegExp(`^cancelled ${jobId}`));
    expect((await h.jobs.get(jobId)).status).toBe('cancelled');

    const again = await cancelCommand([jobId], capture(), target).catch((e: unknown) => e);
    expect(isCliError(again) && again.message).toMatch(/already ended with status 'cancelled'/);
    const unknown = await statusCommand(['j-0123456789abcdef0123'], capture(), target).catch(
      (e: unknown) => e,
    );
    expect(isCliError(unknown) && unknown.message).toMatch(
      /no job with id 'j-0123456789abcdef0123'.*j-… .*s-…/,
    );
    const badLane = await submitCommand([file, '--lane', 'slow'], capture(), target).catch((e: unknown) => e);
    expect(isCliError(badLane) && badLane.message).toBe("--lane must be 'realtime' or 'batch'; got 'slow'");
  });
});

describe('local up and local down', () => {
  it('local down stops a local up running in another process (which removes its state file); --local reaches it', async () => {
    const stateDir = join(scratch, 'state');
    const env = {
      ...process.env,
      CLAUSE_REVIEW_STATE_DIR: stateDir,
      // Reuse the worker's emulator rather than starting another moto.
      AWS_ENDPOINT_URL: awsEndpoint(),
    };
    const cli = join(PROJECT_ROOT, 'bin/clause-review.js');
    const up: ChildProcess = spawn(
      process.execPath,
      [cli, 'local', 'up', '--prefix', uniquePrefix('up'), '--workers', '0'],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => up.once('exit', (code) => resolve(code)));
    let stderr = '';
    up.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    up.stdout?.resume();
    const file = join(stateDir, 'local.json');
    for (let i = 0; i < 600 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(file), stderr).toBe(true);
    const state = JSON.parse(readFileSync(file, 'utf8')) as LocalState;
    expect(state.pid).toBe(up.pid);
    expect(state.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

    // The state file is what --local reads: the API it names answers signed requests.
    const api = new ApiClient({ url: state.apiUrl, region: state.region, credentials: EMULATOR_CREDENTIALS });
    expect((await api.request('GET', 'jobs/j-0123456789abcdef0123')).status).toBe(404);

    // dlq is dispatched to its own command with the local stack's clients and resources.
    const dlq = spawn(process.execPath, [cli, 'dlq', 'ls', '--local'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let dlqOut = '';
    dlq.stdout?.on('data', (d: Buffer) => {
      dlqOut += d.toString();
    });
    dlq.stderr?.resume();
    expect(await new Promise((resolve) => dlq.once('exit', resolve))).toBe(0);
    expect(dlqOut).toMatch(/no dead letters/);

    const down = spawn(process.execPath, [cli, 'local', 'down'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let downOut = '';
    down.stdout?.on('data', (d: Buffer) => {
      downOut += d.toString();
    });
    const downCode = await new Promise<number | null>((resolve) =>
      down.once('exit', (code) => resolve(code)),
    );
    expect(downCode).toBe(0);
    expect(downOut).toMatch(new RegExp(`stopped the local stack \\(process ${up.pid}\\)`));
    expect(await exited).toBe(0);
    expect(existsSync(file)).toBe(false);
  }, 120_000);
});
