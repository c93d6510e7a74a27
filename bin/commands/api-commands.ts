import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { JobView } from '../../lambdas/api/jobs-api.js';
import { isLane, LANE_CHOICES } from '../../lambdas/core/contracts.js';
import { isApiRequestError, send, uploadDocument, uploadVersion } from '../client/api-client.js';
import { CliError, type CliIo } from './cli-error.js';
import { writeConfined } from './confined-write.js';
import { resolveTarget, TARGET_ARGS, type Target, type TargetOptions } from './target.js';

/** How a command gets its target; tests hand one in. */
export type TargetResolver = (options: TargetOptions) => Promise<Target>;

export function parse<T extends Record<string, { type: 'string' | 'boolean'; short?: string }>>(
  argv: string[],
  options: T,
) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: { ...TARGET_ARGS, ...options } });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

function targetOptions(values: Record<string, unknown>): TargetOptions {
  return {
    ...(typeof values.stack === 'string' ? { stack: values.stack } : {}),
    ...(typeof values.profile === 'string' ? { profile: values.profile } : {}),
    ...(typeof values.region === 'string' ? { region: values.region } : {}),
    ...(values.local === true ? { local: true } : {}),
  };
}

export async function withTarget<T>(
  values: Record<string, unknown>,
  resolveWith: TargetResolver,
  run: (target: Target) => Promise<T>,
): Promise<T> {
  const target = await resolveWith(targetOptions(values));
  try {
    return await run(target);
  } catch (error) {
    throw explainApiError(error, target);
  } finally {
    target.destroy();
  }
}

/** Turns the API's refusals into messages that say what to do. */
export function explainApiError(error: unknown, target: Target): unknown {
  if (!isApiRequestError(error)) return error;
  // Refusals whose message already says what to do.
  const name = (error.body as { error?: string } | undefined)?.error;
  if (name === 'NotAdministratorError' || name === 'PlaybookUnknownError')
    return new CliError(error.message, 1);
  switch (error.status) {
    case 403:
      return new CliError(
        `the status API of ${target.name} refused the request: ${error.message}. ` +
          (target.kind === 'local'
            ? 'The local API accepts the emulator credentials only.'
            : 'Check --profile/--region, and that the identity may call execute-api:Invoke on the API.'),
      );
    case 404:
      return new CliError(
        `${error.message} (on ${target.name}). Job ids look like j-… and submission ids like s-…; ` +
          "'clause-review submit' prints both.",
        1,
      );
    case 400:
    case 409:
      return new CliError(error.message, 1);
    default:
      return new CliError(
        `the status API of ${target.name} failed (HTTP ${error.status}): ${error.message}`,
        1,
      );
  }
}

const money = (usd: number) => `$${usd.toFixed(usd < 1 ? 4 : 2)}`;

/**
 * True while intake has not read the upload yet: an upload it has not recorded (`queued` with no
 * plan) or a job it is reading. A `queued` job with a plan was read and waits for its owner's turn.
 */
export function awaitsIntake(view: JobView): boolean {
  return view.status === 'intake' || (view.status === 'queued' && view.progress.chunksTotal === 0);
}

/** What holds a queued or paused job or one awaiting review, for the progress line. */
function holdNote(view: JobView): string {
  // Queued with a plan: intake read it, and it waits for one of its owner's running jobs to end.
  if (view.status === 'queued' && !awaitsIntake(view))
    return ' (its owner has as many jobs running as allowed: it starts when one of them ends)';
  if (view.status === 'paused')
    return ` since ${view.pausedAt ?? '?'}${view.pausedBy ? ` by ${view.pausedBy}` : ''}`;
  const r = view.review;
  if (view.status !== 'awaiting_review' || !r) return '';
  const closed = r.completedAt
    ? ', decided: writing the report'
    : r.expiredAt
      ? ', deadline passed: writing the report'
      : '';
  return ` (${r.gatedFindings ?? 0} finding(s) at gate '${r.gate}', review due ${r.deadline ?? '?'}${closed})`;
}

/** One line of progress: a bar of terminal chunks, calls planned (and screened), spend against the ceiling. */
export function progressLine(view: JobView, width = 24): string {
  const { chunksTerminal, chunksTotal, callsPlanned, callsScreened } = view.progress;
  const share = chunksTotal > 0 ? Math.min(1, chunksTerminal / chunksTotal) : 0;
  const filled = Math.round(share * width);
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
  return (
    `${bar} ${chunksTerminal}/${chunksTotal} chunks · ${callsPlanned} calls planned` +
    `${callsScreened > 0 ? ` (${callsScreened} screened)` : ''} · ` +
    `${money(view.cost.spentUsd)} of ${money(view.cost.ceilingUsd)} · ${view.status}` +
    holdNote(view) +
    (view.reason && view.status !== 'running' ? ` (${view.reason})` : '') +
    (view.purgedAt ? ` · purged ${view.purgedAt}` : '')
  );
}

/** `submit`'s flags. */
const SUBMIT_FLAGS = {
  lane: { type: 'string' },
  ceiling: { type: 'string' },
  /** `--ceiling`'s name before, still read for one release. */
  budget: { type: 'string' },
  analysts: { type: 'string' },
  'allow-partial': { type: 'boolean' },
  gate: { type: 'string' },
  'review-hours': { type: 'string' },
  playbook: { type: 'string' },
  'contract-type': { type: 'string' },
  party: { type: 'string' },
  'all-analysts': { type: 'boolean' },
  'full-panel': { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  against: { type: 'string' },
} as const;

type SubmitFlags = ReturnType<typeof parse<typeof SUBMIT_FLAGS>>['values'];

/** The submission `submit`'s flags ask for, and the version it answers. @throws CliError naming the flag */
function submitRequestOf(values: SubmitFlags, file: string) {
  const lane = values.lane;
  if (lane !== undefined && !isLane(lane)) {
    throw new CliError(`--lane must be ${LANE_CHOICES}; got '${lane}'`);
  }
  const [flag, given] =
    values.ceiling !== undefined ? ['ceiling', values.ceiling] : ['budget', values.budget];
  const ceiling = given === undefined ? undefined : Number(given);
  if (ceiling !== undefined && !(Number.isFinite(ceiling) && ceiling > 0)) {
    throw new CliError(`--${flag} must be a number of dollars above 0; got '${given}'`);
  }
  const analysts = values.analysts
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const review = reviewOptions(values.gate, values['review-hours']);
  const against = againstOf(values.against);
  const request = {
    filename: basename(file),
    ...(lane ? { lane } : {}),
    ...(ceiling !== undefined ? { ceilingUsd: ceiling } : {}),
    ...(analysts ? { analysts } : {}),
    ...(values['allow-partial'] ? { allowPartial: true } : {}),
    ...review,
    ...(values.playbook ? { playbook: values.playbook } : {}),
    ...(values['contract-type'] ? { contractType: values['contract-type'] } : {}),
    ...(values.party ? { party: values.party } : {}),
    ...(values['all-analysts'] ? { allAnalysts: true } : {}),
    ...(values['full-panel'] ? { fullPanel: true } : {}),
    ...against.request,
  };
  return { request, against };
}

/** `submit <file>`: presigned upload through the API; prints the job and submission ids. */
export async function submitCommand(argv: string[], io: CliIo, resolveWith: TargetResolver = resolveTarget) {
  const { values, positionals } = parse(argv, SUBMIT_FLAGS);
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0)
    throw new CliError('name exactly one contract file: clause-review submit <file>');
  const bytes = fileBytes(file);
  const { request, against } = submitRequestOf(values, file);
  return withTarget(values, resolveWith, async (target) => {
    if (values['dry-run']) return dryRunSubmit(target, request, file, bytes.length, io);
    const submission = await target.api.submit(request);
    if (against.bytes) await uploadVersion(submission, against.bytes);
    await uploadDocument(submission, bytes);
    // Until intake records the job, only the submission id resolves; wait a little for it, and
    // for the quote intake computes once it has read the document.
    let view = await target.api.status(submission.submissionId);
    for (const deadline = Date.now() + 20_000; awaitsIntake(view) && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 500));
      view = await target.api.status(submission.submissionId);
    }
    const handle = awaitsIntake(view) ? submission.submissionId : view.jobId;
    const flag = target.kind === 'local' ? ' --local' : '';
    io.err(
      `uploaded ${file} → s3://${submission.bucket}/${submission.key} ` +
        `(lane ${submission.options.lane}, ceiling ${money(submission.options.ceilingUsd)}, ` +
        `${submission.options.analysts.length} analysts` +
        `${submission.options.playbook ? `, playbook ${submission.options.playbook.name}@${submission.options.playbook.version}` : ''})`,
    );
    io.out(`job ${view.jobId} (submission ${submission.submissionId})`);
    const quote = view.cost.quote;
    if (quote) {
      io.err(
        `quote: ${money(quote.expectedUsd)} expected, ${money(quote.worstCaseUsd)} at worst (ceiling ${money(view.cost.ceilingUsd)})` +
          (quote.notAsked
            ? `; the playbook saves ${quote.notAsked.calls} calls, ${money(quote.notAsked.expectedUsd)} expected`
            : '') +
          (quote.computeUsd
            ? `; compute besides: ${money(quote.computeUsd.realtime)} on Lambda (realtime), ${money(quote.computeUsd.batch)} on Fargate (batch)`
            : ''),
      );
    }
    if (view.status === 'rejected') {
      io.err(
        `rejected${view.rejection ? ` (${view.rejection})` : ''}: ${view.reason ?? 'no reason recorded'}`,
      );
      return 1;
    }
    if (view.status === 'queued')
      io.err('intake has not picked the upload up yet; the submission id works until it has');
    io.err(`follow it: clause-review status ${handle} --watch${flag}`);
    return 0;
  });
}

/**
 * `submit --dry-run`: what `submit` would do on this target, read from its outputs, with the
 * request signed by the caller's credentials as it would be sent; nothing is sent or uploaded.
 */
async function dryRunSubmit(target: Target, request: object, file: string, bytes: number, io: CliIo) {
  const signed = await target.api.sign('POST', 'jobs', request);
  const r = target.resources;
  io.out(
    `dry run on ${target.kind === 'local' ? 'the local stack' : `stack '${target.name}' (${target.region})`}: nothing sent`,
  );
  io.out(`  would POST ${signed.url.href} ${signed.payload ?? ''}`);
  io.out(`    signed: ${signed.headers.authorization?.split(',')[0] ?? 'no authorization header'}`);
  io.out(
    `  then POST ${file} (${bytes} bytes) with the presigned upload form it returns, under s3://${r.intakeBucket}/${r.intakePrefix}`,
  );
  io.out(
    `  intake queue ${r.queueUrls.intake}; reports in s3://${r.resultsBucket}/${r.resultsPrefix}; state table ${r.tableName}`,
  );
  return 0;
}

/** True while a job waits for a person: paused, or held for a reviewer who has not finished. */
export function waitsForPerson(view: JobView): boolean {
  if (view.status === 'paused') return true;
  return view.status === 'awaiting_review' && !view.review?.completedAt && !view.review?.expiredAt;
}

/**
 * `--against FILE|JOB_ID`: the version the document answers, as the request names it (a job, or a
 * file's name), with the file's bytes to upload first.
 * @throws CliError when the file cannot be read
 */
function againstOf(given: string | undefined): {
  request: { against?: string; againstFilename?: string };
  bytes?: Buffer;
} {
  if (given === undefined) return { request: {} };
  if (/^j-[0-9a-f]{20}$/.test(given)) return { request: { against: given } };
  return { request: { againstFilename: basename(given) }, bytes: fileBytes(given, '--against: ') };
}

/** A file's bytes. @throws CliError naming the file and why it cannot be read */
function fileBytes(file: string, what = ''): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new CliError(`${what}cannot read ${file}: ${(error as Error).message}`);
  }
}

/** The review options of `submit` and `review`, checked. */
export function reviewOptions(
  gate: string | undefined,
  hours: string | undefined,
): { gate?: 'none' | 'critical' | 'high'; reviewHours?: number } {
  if (gate !== undefined && gate !== 'none' && gate !== 'critical' && gate !== 'high') {
    throw new CliError(`--gate must be 'none', 'critical' or 'high'; got '${gate}'`);
  }
  const reviewHours = hours === undefined ? undefined : Number(hours);
  if (reviewHours !== undefined && !(Number.isFinite(reviewHours) && reviewHours > 0 && reviewHours <= 720)) {
    throw new CliError(`--review-hours must be a number of hours above 0 and at most 720; got '${hours}'`);
  }
  return { ...(gate ? { gate } : {}), ...(reviewHours !== undefined ? { reviewHours } : {}) };
}

/** `status <job> [--watch]`. */
export async function statusCommand(argv: string[], io: CliIo, resolveWith: TargetResolver = resolveTarget) {
  const { values, positionals } = parse(argv, {
    watch: { type: 'boolean', short: 'w' },
    interval: { type: 'string' },
    json: { type: 'boolean' },
  });
  const id = positionals[0];
  if (!id) throw new CliError('name a job: clause-review status <job-id|submission-id> [--watch]');
  const intervalMs = Number(values.interval ?? '2') * 1000;
  if (!(intervalMs >= 200))
    throw new CliError(`--interval must be at least 0.2 seconds; got '${values.interval}'`);
  return withTarget(values, resolveWith, async (target) => {
    let view = await target.api.status(id);
    if (!values.watch) {
      io.out(values.json ? JSON.stringify(view, null, 2) : `${view.jobId}  ${progressLine(view)}`);
      return view.status === 'rejected' ? 1 : 0;
    }
    let last = '';
    for (;;) {
      const line = `${view.jobId}  ${progressLine(view)}`;
      if (io.tty) process.stdout.write(`\r\x1b[2K${line}`);
      else if (line !== last) io.out(line);
      last = line;
      // A job a person holds waits for that person, possibly for days: say what to do and stop.
      if (waitsForPerson(view)) {
        if (io.tty) process.stdout.write('\n');
        const flag = target.kind === 'local' ? ' --local' : '';
        io.err(
          view.status === 'paused'
            ? `paused: 'clause-review resume ${view.jobId}${flag}' continues it`
            : `waiting for a reviewer: 'clause-review findings ${view.jobId} --gated${flag}' lists the findings, 'clause-review decide' records decisions`,
        );
        return 0;
      }
      if (view.finished || view.status === 'rejected') break;
      await new Promise((r) => setTimeout(r, intervalMs));
      view = await target.api.status(id);
    }
    if (io.tty) process.stdout.write('\n');
    if (view.reportReady)
      io.err(`report: clause-review report ${view.jobId}${target.kind === 'local' ? ' --local' : ''}`);
    return view.status === 'completed' ? 0 : 1;
  });
}

/** `cancel <job>`. */
export async function cancelCommand(argv: string[], io: CliIo, resolveWith: TargetResolver = resolveTarget) {
  const { values, positionals } = parse(argv, {});
  const id = positionals[0];
  if (!id) throw new CliError('name a job: clause-review cancel <job-id|submission-id>');
  return withTarget(values, resolveWith, async (target) => {
    const view = await target.api.cancel(id);
    io.out(`cancelled ${view.jobId}: no new model call starts; chunks in flight stop at their next check`);
    return 0;
  });
}

function openInBrowser(target: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [target]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', target]]
        : ['xdg-open', [target]];
  spawn(command, args as string[], { detached: true, stdio: 'ignore' })
    .on('error', () => {})
    .unref();
}

/** `report <job> [--out DIR] [--open]`. */
export async function reportCommand(argv: string[], io: CliIo, resolveWith: TargetResolver = resolveTarget) {
  const { values, positionals } = parse(argv, { out: { type: 'string' }, open: { type: 'boolean' } });
  const id = positionals[0];
  if (!id) throw new CliError('name a job: clause-review report <job-id|submission-id> [--out DIR] [--open]');
  return withTarget(values, resolveWith, async (target) => {
    const links = await target.api.report(id);
    if (!values.out && !values.open) {
      io.out(`report.json  ${links.json.url}`);
      io.out(`report.html  ${links.html.url}`);
      if (links.docx) io.out(`report.docx  ${links.docx.url}`);
      io.err(`(links valid until ${links.expiresAt})`);
      return 0;
    }
    // The links download (they are attachments), so --open opens a local copy.
    const out = values.out ?? mkdtempSync(join(tmpdir(), 'clause-review-report-'));
    const files: Record<string, string | Uint8Array> = {};
    for (const [name, link] of [
      ['report.json', links.json],
      ['report.html', links.html],
      ['report.docx', links.docx],
    ] as const) {
      if (!link) continue;
      const r = await send(new URL(link.url), 'GET', {});
      if (r.status !== 200) throw new CliError(`downloading ${name} failed (HTTP ${r.status})`, 1);
      files[name] = name.endsWith('.docx') ? r.bytes : r.text;
    }
    const written = writeConfined(out, links.jobId, files);
    for (const path of written) io.out(path);
    if (values.open && written[1]) openInBrowser(written[1]);
    return 0;
  });
}
