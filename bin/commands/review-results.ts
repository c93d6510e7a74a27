/**
 * The end of a `review` run: each finished job's report.json, report.html and report.docx copied
 * under `--out`, the results table, and what the other side's changes came to.
 */
import { mkdirSync } from 'node:fs';
import { basename } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { Report } from '../../lambdas/core/report-types.js';
import { type Job, TERMINAL_STATUSES } from '../../lambdas/core/state/job.js';
import { money } from '../../lambdas/text/money.js';
import { theirChangesLine } from '../../lambdas/text/their-changes.js';
import { writeConfined } from './confined-write.js';
import type { RunOptions, Session, Submitted } from './review-session.js';

/**
 * The folder a document's reports go to inside `--out`: its file name without the extension,
 * with anything but letters, digits, `.`, `_` and `-` replaced and no leading dots, so no name
 * (`...txt`, `../x`) can point outside `--out`; a second document of the same name (in any
 * letter case) gets `-2`.
 *
 * @example reportDirName('/tmp/../Master Agreement.docx', new Set()) // 'Master_Agreement'
 */
export function reportDirName(file: string, used: Set<string>): string {
  const stem = basename(file).replace(/\.[^.]*$/, '');
  const clean =
    stem
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^[.]+/, '')
      .slice(0, 120) || 'document';
  // Compared without case: on macOS and Windows `Lease` and `lease` are one folder.
  let name = clean;
  for (let n = 2; used.has(name.toLowerCase()); n++) name = `${clean}-${n}`;
  used.add(name.toLowerCase());
  return name;
}

const RESULT_HEADER = [
  'document',
  'status',
  'clauses',
  'calls done/planned',
  'failed / skipped / cancelled / screened',
  'high+crit',
  'cost',
  'report',
];

/**
 * Writes the reports of the jobs that ended under `--out`, prints the results table, says
 * which jobs were still running at the timeout, and returns the exit code: 0 only when every
 * job completed.
 */
export async function writeResults(
  session: Session,
  submitted: readonly Submitted[],
  finished: Map<string, Job>,
  o: RunOptions,
): Promise<number> {
  mkdirSync(o.outDir, { recursive: true });
  console.log('\nresults');
  let exitCode = 0;
  let written = 0;
  const unfinished: string[] = [];
  const used = new Set<string>();
  const rows: string[][] = [RESULT_HEADER];
  const rounds: string[] = [];
  for (const s of submitted) {
    const job = finished.get(s.jobId) ?? (await session.stores.jobs.find(s.jobId));
    const name = basename(s.file);
    if (!job || !TERMINAL_STATUSES.includes(job.status) || (!job.finalizedAt && job.status !== 'rejected')) {
      rows.push([name, job?.status ?? 'not started', '-', '-', '-', '-', '-', 'timed out']);
      unfinished.push(
        `  ${name} (job ${s.jobId}): ${job?.status ?? 'not started'}, chunks ${job?.chunksTerminal ?? 0}/${job?.chunkCount ?? '?'}`,
      );
      exitCode = 1;
    } else if (job.status === 'rejected') {
      rows.push([name, 'rejected', '-', '-', '-', '-', '-', job.reason ?? '']);
      exitCode = 1;
    } else {
      const { row, completed, round } = await writeReport(session, s, job, o.outDir, used);
      rows.push(row);
      if (round) rounds.push(`${name}: ${round}`);
      written++;
      if (!completed) exitCode = 1;
    }
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  for (const r of rows) console.log(r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  '));
  if (rounds.length > 0) console.log(`\n${rounds.join('\n')}`);
  if (written > 0) {
    console.log(
      `\n${written} report(s) written under ${o.outDir} (report.json, report.html and report.docx per document)`,
    );
  } else console.log('\nno report was written');
  if (unfinished.length > 0) {
    console.log(
      `\ntimed out after ${o.timeoutS} s; these jobs were still running, and stop with the local stack:\n${unfinished.join('\n')}\nRun again with a longer --timeout (seconds) to let them finish.`,
    );
  }
  return exitCode;
}

/** Copies one finalized job's report.json, report.html and report.docx under `outDir`; its results row. */
async function writeReport(
  { pipeline, stack }: Session,
  s: Submitted,
  job: Job,
  outDir: string,
  used: Set<string>,
): Promise<{ row: string[]; completed: boolean; round?: string }> {
  const get = async (key: string) =>
    (
      await pipeline.clients.s3.send(
        new GetObjectCommand({ Bucket: stack.resources.resultsBucket, Key: key }),
      )
    ).Body?.transformToString() ?? '';
  const json = await get(job.reportKey ?? '');
  const docx = job.docxReportKey
    ? await (
        await pipeline.clients.s3.send(
          new GetObjectCommand({ Bucket: stack.resources.resultsBucket, Key: job.docxReportKey }),
        )
      ).Body?.transformToByteArray()
    : undefined;
  const [, htmlPath] = writeConfined(outDir, reportDirName(s.file, used), {
    'report.json': json,
    'report.html': await get(job.htmlReportKey ?? ''),
    ...(docx ? { 'report.docx': docx } : {}),
  });
  const report = JSON.parse(json) as Report;
  const c = report.coverage;
  return {
    row: [
      basename(s.file).slice(0, 40),
      report.job.status,
      String(report.summary.clauses),
      `${c.callsDone}/${c.callsPlanned}`,
      `${c.callsFailed} / ${c.callsSkippedBudget} / ${c.callsCancelled} / ${c.callsScreened}`,
      String(report.summary.riskCounts.high + report.summary.riskCounts.critical),
      `${money(report.cost.spentMicros)} / ${money(report.cost.ceilingMicros)}`,
      htmlPath ?? '',
    ],
    completed: report.job.status === 'completed',
    ...(report.negotiation ? { round: roundLine(report.negotiation) } : {}),
  };
}

/** The other side's turn in one line, with who made the changes and what was compared with. */
export function roundLine(n: NonNullable<Report['negotiation']>): string {
  const who = n.authors.length > 0 ? ` (by ${n.authors.join(', ')})` : '';
  const against = n.against
    ? `, compared with ${n.against.jobId ? `job ${n.against.jobId}` : `our version (sha256 ${n.against.sha256?.slice(0, 12)}…)`}`
    : '';
  return `${theirChangesLine(n.summary)}${who}${against}`;
}
