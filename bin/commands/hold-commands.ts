import { deciderText } from '../../lambdas/core/holds/decider.js';
import type { ListedFinding } from '../../lambdas/core/holds/review.js';
import type { DecisionBody } from '../client/api-client.js';
import { parse, progressLine, type TargetResolver, withTarget } from './api-commands.js';
import { CliError, type CliIo } from './cli-error.js';
import { resolveTarget } from './target.js';

/** `pause <job>`. */
export async function pauseCommand(argv: string[], io: CliIo, resolveWith: TargetResolver = resolveTarget) {
  const { values, positionals } = parse(argv, {});
  const id = positionals[0];
  if (!id || positionals.length > 1) throw new CliError('name one job: clause-review pause <job>');
  return withTarget(values, resolveWith, async (target) => {
    const view = await target.api.pause(id);
    io.out(`${view.jobId}  ${progressLine(view)}`);
    io.err('no new model call starts; chunks in flight stop at their next check and keep what they finished');
    io.err(`continue it: clause-review resume ${view.jobId}${target.kind === 'local' ? ' --local' : ''}`);
    return 0;
  });
}

/** `resume <job>`. */
export async function resumeCommand(argv: string[], io: CliIo, resolveWith: TargetResolver = resolveTarget) {
  const { values, positionals } = parse(argv, {});
  const id = positionals[0];
  if (!id || positionals.length > 1) throw new CliError('name one job: clause-review resume <job>');
  return withTarget(values, resolveWith, async (target) => {
    const view = await target.api.resume(id);
    io.out(`${view.jobId}  ${progressLine(view)}`);
    const follow = `follow it: clause-review status ${view.jobId} --watch${target.kind === 'local' ? ' --local' : ''}`;
    io.err(
      view.status === 'queued'
        ? `queued: its owner has as many jobs running as the owner's cap; it goes on from its checkpoints when one ends; ${follow}`
        : `resumed from its checkpoints; ${follow}`,
    );
    return 0;
  });
}

const SCORE_WORDS = ['standard', 'minor', 'significant', 'severe'];

/** One finding as `findings` prints it: id, score, decision, where, what the panel quoted. */
export function findingLines(f: ListedFinding): string[] {
  const where = [f.label, f.heading].filter(Boolean).join(' ');
  const decision = f.decision
    ? `  → ${f.decision.verdict}${f.decision.score !== undefined ? ` ${f.decision.score}` : ''} by ${deciderText(f.decision)} at ${f.decision.at}${f.decision.note ? ` (“${f.decision.note}”)` : ''}`
    : f.gated
      ? '  → undecided'
      : '';
  const lines = [
    `${f.id}  score ${f.score} (${SCORE_WORDS[f.score]}) · clause risk ${f.clauseRisk}${f.gated ? ' · gated' : ''}${decision}`,
    `    clause ${f.clauseId}${where ? ` ${where}` : ''} · analysts: ${f.analysts.join(', ') || 'none'}`,
  ];
  for (const q of f.quotes.slice(0, 2)) {
    const quote = q.quote.replace(/\s+/g, ' ');
    lines.push(`    “${quote.length > 160 ? `${quote.slice(0, 157)}…` : quote}”`);
  }
  if (f.quotes.length > 2) lines.push(`    … and ${f.quotes.length - 2} more passage(s)`);
  return lines;
}

/** `findings <job> [--gated] [--json]`. */
export async function findingsCommand(
  argv: string[],
  io: CliIo,
  resolveWith: TargetResolver = resolveTarget,
) {
  const { values, positionals } = parse(argv, { gated: { type: 'boolean' }, json: { type: 'boolean' } });
  const id = positionals[0];
  if (!id || positionals.length > 1)
    throw new CliError('name one job: clause-review findings <job> [--gated]');
  return withTarget(values, resolveWith, async (target) => {
    const view = await target.api.findings(id);
    const shown = values.gated ? view.findings.filter((f) => f.gated) : view.findings;
    if (values.json) {
      io.out(JSON.stringify({ ...view, findings: shown }, null, 2));
      return 0;
    }
    for (const f of shown) for (const line of findingLines(f)) io.out(line);
    const gated = view.findings.filter((f) => f.gated).length;
    io.err(
      `${shown.length} finding(s) shown; ${gated} gated at '${view.gate}', ${view.undecided} undecided` +
        (view.reviewDeadline ? `; review due ${view.reviewDeadline}` : ''),
    );
    if (view.status === 'awaiting_review' && view.undecided > 0) {
      io.err(
        `decide: clause-review decide ${view.jobId} <finding> approve|override --score N|reject [--note TEXT], or --approve-all`,
      );
    }
    return 0;
  });
}

const VERDICTS = ['approve', 'override', 'reject'] as const;

/** `decide <job> <finding...> approve|override --score N|reject [--note TEXT]`, or `decide <job> --approve-all`. */
export async function decideCommand(argv: string[], io: CliIo, resolveWith: TargetResolver = resolveTarget) {
  const { values, positionals } = parse(argv, {
    score: { type: 'string' },
    note: { type: 'string' },
    'approve-all': { type: 'boolean' },
  });
  const usage =
    'clause-review decide <job> <finding...> approve|override --score N|reject [--note TEXT], or decide <job> --approve-all';
  const [id, ...rest] = positionals;
  if (!id) throw new CliError(`name a job: ${usage}`);
  let body: DecisionBody;
  if (values['approve-all']) {
    if (rest.length > 0 || values.score !== undefined)
      throw new CliError(`--approve-all takes no finding, verdict or score: ${usage}`);
    body = { allUndecided: true, verdict: 'approve', ...(values.note ? { note: values.note } : {}) };
  } else {
    const verdict = rest.at(-1);
    const findings = rest.slice(0, -1);
    if (!verdict || !VERDICTS.includes(verdict as never) || findings.length === 0) {
      throw new CliError(`name the finding(s) and a verdict (approve, override or reject): ${usage}`);
    }
    const score = values.score === undefined ? undefined : Number(values.score);
    if (
      verdict === 'override' &&
      !(score !== undefined && Number.isInteger(score) && score >= 0 && score <= 3)
    ) {
      throw new CliError(
        `override needs --score 0, 1, 2 or 3 (standard to severe); got '${values.score ?? 'none'}'`,
      );
    }
    if (verdict !== 'override' && score !== undefined) throw new CliError(`--score goes with override only`);
    body = {
      findings,
      verdict: verdict as (typeof VERDICTS)[number],
      ...(score !== undefined ? { score } : {}),
      ...(values.note ? { note: values.note } : {}),
    };
  }
  return withTarget(values, resolveWith, async (target) => {
    const r = await target.api.decide(id, body);
    for (const d of r.recorded) {
      io.out(
        `${d.findingId}  ${d.verdict}${d.score !== undefined ? ` ${d.score}` : ''}  by ${d.by} at ${d.at}`,
      );
    }
    const flag = target.kind === 'local' ? ' --local' : '';
    if (!r.reviewClosed) {
      io.err(`${r.recorded.length} decision(s) recorded; ${r.undecided} gated finding(s) still undecided`);
      return 0;
    }
    io.err('every gated finding is decided: writing the report');
    // Finalize takes seconds; wait for it a little, so the next command can fetch the report.
    let view = await target.api.status(r.jobId);
    for (const deadline = Date.now() + 30_000; !view.finished && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      view = await target.api.status(r.jobId);
    }
    io.err(
      view.finished
        ? `report ready (${view.status}): clause-review report ${r.jobId} --out DIR${flag}`
        : `the report is still being written: clause-review status ${r.jobId} --watch${flag}`,
    );
    return 0;
  });
}
