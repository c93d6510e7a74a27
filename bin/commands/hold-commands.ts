import { readFileSync } from 'node:fs';
import type { DecisionBody, RedlineBody } from '../../lambdas/api/holds-api.js';
import type { ListedEscalation, ListedFinding, ListedRedline } from '../../lambdas/core/holds/review.js';
import { deciderText } from '../../lambdas/text/decider.js';
import type { RedlineEdit } from '../../lambdas/text/redline-edits.js';
import { editSegments, editsBetween, rungLabel } from '../../lambdas/text/redline-text.js';
import { parse, progressLine, type TargetResolver, withTarget } from './api-commands.js';
import { CliError, type CliIo } from './cli-error.js';
import { resolveTarget, type Target } from './target.js';

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

const oneLine = (text: string, max = 160) => {
  const t = text.replace(/\s+/g, ' ');
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

/** One escalated finding as `findings` prints it: id, the group it waits for, the rung, the decision. */
export function escalationLines(e: ListedEscalation): string[] {
  const where = e.clause
    ? [e.clause.id, e.clause.label, e.clause.heading].filter(Boolean).join(' ')
    : 'the whole contract';
  const state = e.rung ? rungLabel(e.rung) : 'missing';
  const decision = e.decision
    ? `  → ${e.decision.verdict} by ${deciderText(e.decision)} at ${e.decision.at}${e.decision.note ? ` (“${e.decision.note}”)` : ''}`
    : '  → undecided';
  const lines = [
    `${e.id}  ${state} · escalated to '${e.escalation.group}' (${e.escalation.reason})${e.mayDecide ? ' · yours to decide' : ''}${decision}`,
    `    ${where} · ${e.question}`,
    `    ${oneLine(e.rationale)}`,
  ];
  for (const q of e.quotes.slice(0, 1)) lines.push(`    “${oneLine(q.quote)}”`);
  if (e.language) lines.push(`    model language: ${oneLine(e.language)}`);
  return lines;
}

/**
 * A redline's edits as a terminal shows them, as `git diff --word-diff` does: deleted text in
 * `[-…-]`, inserted text in `{+…+}`.
 * @example wordDiff('ten days', [{ start: 0, end: 3, insert: 'thirty' }]) // '[-ten-]{+thirty+} days'
 */
export function wordDiff(text: string, edits: readonly RedlineEdit[]): string {
  return editSegments(text, edits)
    .map((s) => (s.kind === 'deleted' ? `[-${s.text}-]` : s.kind === 'inserted' ? `{+${s.text}+}` : s.text))
    .join('');
}

/** One proposed redline as `findings` prints it: id, rung now and after, the edit as a word diff, the decision. */
export function redlineLines(r: ListedRedline): string[] {
  const d = r.decision;
  const decision =
    d.status === 'proposed'
      ? '  → proposed, undecided'
      : `  → ${d.status} by ${deciderText(d)} at ${d.at}${d.note ? ` (“${d.note}”)` : ''}`;
  const edits = d.status === 'edited' && d.edits ? d.edits : r.edits;
  const where = [r.clause.label, r.clause.heading].filter(Boolean).join(' ');
  return [
    `${r.id}  ${rungLabel(r.rung)} → ${rungLabel(r.target)}${r.mayDecide ? ' · yours to decide' : ''}${decision}`,
    `    clause ${r.clause.id}${where ? ` ${where}` : ''} · ${r.question}`,
    `    ${oneLine(wordDiff(r.clause.text, edits), 400)}`,
  ];
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
    for (const e of view.escalations ?? []) for (const line of escalationLines(e)) io.out(line);
    for (const r of view.redlines ?? []) for (const line of redlineLines(r)) io.out(line);
    const gated = view.findings.filter((f) => f.gated).length;
    const playbook = [
      view.escalations?.length ? `${view.escalations.length} escalated` : '',
      view.redlines?.length ? `${view.redlines.length} redline(s)` : '',
    ].filter(Boolean);
    io.err(
      `${shown.length} finding(s) shown; ${gated} gated at '${view.gate}'${playbook.length ? `, ${playbook.join(', ')}` : ''}, ` +
        `${view.undecided} undecided` +
        (view.reviewDeadline ? `; review due ${view.reviewDeadline}` : ''),
    );
    if (view.status === 'awaiting_review' && view.undecided > 0) {
      io.err(
        `decide: clause-review decide ${view.jobId} <finding> approve|override --score N|reject [--note TEXT], or --approve-all`,
      );
      if (view.redlines?.length)
        io.err(
          `redlines: clause-review redline accept|reject ${view.jobId} <redline...>, or redline edit ${view.jobId} <redline> --text TEXT`,
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
      io.err(`${r.recorded.length} decision(s) recorded; ${r.undecided} held item(s) still undecided`);
      return 0;
    }
    await reviewClosed(target, r.jobId, flag, io);
    return 0;
  });
}

/** Says the review closed, and waits a little for the report, so the next command can fetch it. */
async function reviewClosed(target: Target, jobId: string, flag: string, io: CliIo): Promise<void> {
  io.err('everything the review held is decided: writing the report');
  let view = await target.api.status(jobId);
  for (const deadline = Date.now() + 30_000; !view.finished && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    view = await target.api.status(jobId);
  }
  io.err(
    view.finished
      ? `report ready (${view.status}): clause-review report ${jobId} --out DIR${flag}`
      : `the report is still being written: clause-review status ${jobId} --watch${flag}`,
  );
}

const REDLINE_VERBS = ['accept', 'reject', 'edit'] as const;

const REDLINE_USAGE =
  'clause-review redline accept|reject <job> <redline...> [--note TEXT], redline accept|reject <job> --all, ' +
  'or redline edit <job> <redline> --text TEXT | --text-file FILE | --edits JSON [--note TEXT]';

/** The edits an `edit` asks for: given as JSON, or the reworded clause compared with the clause's text. */
async function editsOf(
  values: Record<string, string | boolean | undefined>,
  clauseText: () => Promise<string>,
): Promise<RedlineEdit[]> {
  const given = [values.text, values['text-file'], values.edits].filter((v) => v !== undefined);
  if (given.length !== 1)
    throw new CliError(`edit takes one of --text, --text-file or --edits: ${REDLINE_USAGE}`);
  if (typeof values.edits === 'string') {
    try {
      return JSON.parse(values.edits) as RedlineEdit[];
    } catch (error) {
      throw new CliError(`--edits must be a JSON list of {start, end, insert}: ${(error as Error).message}`);
    }
  }
  const text =
    typeof values['text-file'] === 'string'
      ? readFileSync(values['text-file'], 'utf8').replace(/\r?\n$/, '')
      : String(values.text);
  const edits = editsBetween(await clauseText(), text);
  if (edits.length === 0) throw new CliError('the text given is the clause as it stands: nothing to edit');
  return edits;
}

/**
 * `redline accept|reject <job> <redline...>`, `redline accept|reject <job> --all`, or `redline edit
 * <job> <redline> --text TEXT | --text-file FILE | --edits JSON`: a reviewer's decision on
 * proposed redlines. `--text` is the clause as it should read; the edits are the words that differ.
 */
export async function redlineCommand(argv: string[], io: CliIo, resolveWith: TargetResolver = resolveTarget) {
  const { values, positionals } = parse(argv, {
    note: { type: 'string' },
    all: { type: 'boolean' },
    text: { type: 'string' },
    'text-file': { type: 'string' },
    edits: { type: 'string' },
  });
  const [verb, id, ...redlines] = positionals;
  if (!verb || !REDLINE_VERBS.includes(verb as never) || !id)
    throw new CliError(`name accept, reject or edit, then the job: ${REDLINE_USAGE}`);
  const decision = verb as (typeof REDLINE_VERBS)[number];
  if (values.all && (redlines.length > 0 || decision === 'edit'))
    throw new CliError(`--all accepts or rejects every undecided redline, and names none: ${REDLINE_USAGE}`);
  if (!values.all && redlines.length === 0)
    throw new CliError(`name the redline(s), or --all: ${REDLINE_USAGE}`);
  if (decision === 'edit' && redlines.length !== 1)
    throw new CliError(`edit names exactly one redline: ${REDLINE_USAGE}`);
  if (decision !== 'edit' && (values.text ?? values['text-file'] ?? values.edits) !== undefined)
    throw new CliError(`--text, --text-file and --edits go with edit only: ${REDLINE_USAGE}`);
  const note = values.note ? { note: values.note } : {};
  return withTarget(values, resolveWith, async (target) => {
    let body: RedlineBody;
    if (decision === 'edit') {
      const redline = redlines[0] ?? '';
      const edits = await editsOf(values, async () => {
        const found = (await target.api.findings(id)).redlines?.find((r) => r.id === redline);
        if (!found)
          throw new CliError(
            `no proposed redline '${redline}' on job ${id}: 'clause-review findings ${id} --gated' lists them`,
          );
        return found.clause.text;
      });
      body = { redlines: [redline], decision, edits, ...note };
    } else {
      body = values.all ? { allUndecided: true, decision, ...note } : { redlines, decision, ...note };
    }
    const r = await target.api.decideRedlines(id, body);
    for (const d of r.recorded) io.out(`${d.redlineId}  ${d.status}  by ${deciderText(d)} at ${d.at}`);
    const flag = target.kind === 'local' ? ' --local' : '';
    if (!r.reviewClosed) {
      io.err(`${r.recorded.length} decision(s) recorded; ${r.undecided} held item(s) still undecided`);
      return 0;
    }
    await reviewClosed(target, r.jobId, flag, io);
    return 0;
  });
}
