import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { JobView } from '../../lambdas/api/jobs-api.js';
import { money } from '../../lambdas/text/money.js';
import { isApiRequestError, send } from '../client/api-client.js';
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
    `${money(view.cost.spentMicros)} of ${money(view.cost.ceilingMicros)} · ${view.status}` +
    holdNote(view) +
    (view.reason && view.status !== 'running' ? ` (${view.reason})` : '') +
    (view.purgedAt ? ` · purged ${view.purgedAt}` : '')
  );
}

/** True while a job waits for a person: paused, or held for a reviewer who has not finished. */
export function waitsForPerson(view: JobView): boolean {
  if (view.status === 'paused') return true;
  return view.status === 'awaiting_review' && !view.review?.completedAt && !view.review?.expiredAt;
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
