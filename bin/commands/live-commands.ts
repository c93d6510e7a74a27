import type { JobSummary } from '../../lambdas/core/live/index.js';
import type { ReportClause } from '../../lambdas/core/report-types.js';
import { money } from '../../lambdas/text/money.js';
import { parse, type TargetResolver, withTarget } from './api-commands.js';
import { CliError, type CliIo } from './cli-error.js';
import { resolveTarget } from './target.js';

/** The lowest category score a clause line names. */
const NAMED_SCORE = 1;

/** One clause as `findings` prints it: id, risk, then the categories scored, highest first. */
export function clauseLine(c: ReportClause): string {
  if (c.status === 'not-analysed') return `${c.id}  not analysed`;
  const scored = Object.entries(c.scores)
    .filter((e): e is [string, number] => e[1] !== null && e[1] >= NAMED_SCORE)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([category, score]) => `${category}(${score})`);
  const where = [c.label, c.heading].filter(Boolean).join(' ');
  return `${c.id}  ${c.risk ?? 'none'}  ${scored.join(', ') || '-'}${where ? `  · ${where}` : ''}${c.status === 'partial' ? '  · partial' : ''}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `findings <job> [--once] [--interval S] [--json]`: every clause as its chunk consolidates,
 * one line each (`--json`: one clause entry of report.json a line), until the job stops
 * moving; `--once` prints what is readable now and stops.
 */
export async function liveFindingsCommand(
  argv: string[],
  io: CliIo,
  resolveWith: TargetResolver = resolveTarget,
): Promise<number> {
  const { values, positionals } = parse(argv, {
    once: { type: 'boolean' },
    interval: { type: 'string' },
    json: { type: 'boolean' },
    after: { type: 'string' },
  });
  const id = positionals[0];
  if (!id || positionals.length > 1) {
    throw new CliError(
      'name one job: clause-review findings <job> [--once] [--interval S] [--json], or --gated',
    );
  }
  const intervalMs = Number(values.interval ?? '2') * 1000;
  if (!(intervalMs >= 200))
    throw new CliError(`--interval must be at least 0.2 seconds; got '${values.interval}'`);
  return withTarget(values, resolveWith, async (target) => {
    let cursor = values.after ?? '';
    let printed = 0;
    for (;;) {
      const view = await target.api.liveFindings(id, cursor);
      for (const c of view.clauses) io.out(values.json ? JSON.stringify(c) : clauseLine(c));
      printed += view.clauses.length;
      cursor = view.cursor;
      if (view.more) continue;
      if (view.ended || values.once) {
        const flag = target.kind === 'local' ? ' --local' : '';
        io.err(
          `${printed} clause(s) from ${view.chunks.delivered} of ${view.chunks.total} chunk(s); job ${view.status}` +
            (view.ended ? '' : `; more later: clause-review findings ${view.jobId} --after ${cursor}${flag}`),
        );
        if (view.status === 'awaiting_review') {
          io.err(`held for a reviewer: clause-review findings ${view.jobId} --gated${flag}`);
        }
        return 0;
      }
      await sleep(intervalMs);
    }
  });
}

/** One job as `jobs` prints it. */
export function jobLine(j: JobSummary): string {
  const name = j.document.split('/').pop() ?? j.document;
  return [
    j.jobId,
    j.status.padEnd(15),
    `${j.chunks.done}/${j.chunks.total} chunks`.padEnd(16),
    `${money(j.cost.spentMicros)} of ${money(j.cost.ceilingMicros)}`.padEnd(18),
    j.createdAt,
    name,
  ].join('  ');
}

/** `jobs [--limit N] [--after CURSOR] [--owner ARN] [--json]`: the caller's jobs, newest first. */
export async function jobsCommand(argv: string[], io: CliIo, resolveWith: TargetResolver = resolveTarget) {
  const { values } = parse(argv, {
    limit: { type: 'string' },
    after: { type: 'string' },
    owner: { type: 'string' },
    json: { type: 'boolean' },
    'awaiting-approval': { type: 'boolean' },
  });
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (values['awaiting-approval'] && (values.limit ?? values.after ?? values.owner) !== undefined)
    throw new CliError('--awaiting-approval lists one page: it takes no --limit, --after or --owner');
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 100)) {
    throw new CliError(`--limit must be a whole number from 1 to 100; got '${values.limit}'`);
  }
  return withTarget(values, resolveWith, async (target) => {
    const page = await target.api.jobs({
      ...(values.after ? { after: values.after } : {}),
      ...(limit ? { limit } : {}),
      ...(values.owner ? { owner: values.owner } : {}),
      ...(values['awaiting-approval'] ? { awaiting: 'approval' } : {}),
    });
    if (values.json) io.out(JSON.stringify(page, null, 2));
    else for (const j of page.jobs) io.out(jobLine(j));
    if (!values.json) {
      const flag = target.kind === 'local' ? ' --local' : '';
      io.err(
        `${page.jobs.length} job(s)${page.cursor ? `; older: clause-review jobs --after ${page.cursor}${flag}` : ''}`,
      );
    }
    return 0;
  });
}
