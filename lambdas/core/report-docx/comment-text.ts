/**
 * What a clause's Word comment says: its risk, the categories scored, each finding with the
 * analysts' reasons and quotes, the reviewer's decision when there was one, and its redlines. Plain
 * paragraphs of text; the XML is built from them through the DOM.
 */

import { deciderText } from '../../text/decider.js';
import { rungLabel } from '../../text/redline-text.js';
import type { FindingReview, Report, ReportClause, Risk } from '../report-types.js';
import type { DocxRedline } from './redlines.js';

const RISK_ORDER: readonly Risk[] = ['none', 'low', 'medium', 'high', 'critical'];
const SCORE_WORDS: readonly string[] = ['standard', 'minor', 'significant', 'severe'];
/** The lowest clause risk that gets a comment. */
export const COMMENT_RISK: Risk = 'medium';

const atLeast = (risk: Risk | null | undefined, floor: Risk) =>
  risk != null && RISK_ORDER.indexOf(risk) >= RISK_ORDER.indexOf(floor);

/**
 * Whether a clause gets a comment: its risk, or the panel's before a reviewer's decisions, is
 * medium or above (so a clause a reviewer brought down still shows what was decided, and why).
 */
export const commented = (c: ReportClause): boolean =>
  atLeast(c.risk, COMMENT_RISK) || atLeast(c.model?.risk, COMMENT_RISK);

const DECISION_WORDS: Readonly<Record<FindingReview['decision'], string>> = {
  approved: 'approved',
  overridden: 'overridden',
  rejected: 'rejected',
  unreviewed: 'not reviewed before the deadline',
};

function decisionLine(name: string, r: FindingReview): string {
  if (r.decision === 'unreviewed')
    return `Reviewer: ${name} ${DECISION_WORDS.unreviewed}; the panel's score ${r.modelScore} stands.`;
  const score =
    r.decidedScore === r.modelScore ? `score ${r.decidedScore}` : `score ${r.modelScore} → ${r.decidedScore}`;
  const who = deciderText(r);
  return `Reviewer: ${name} ${DECISION_WORDS[r.decision]} (${score})${who ? ` by ${who}` : ''}${r.at ? ` at ${r.at}` : ''}${r.note ? `: “${r.note}”` : ''}`;
}

const REDLINE_WORDS: Readonly<Record<Exclude<DocxRedline['decision'], 'rejected'>, string>> = {
  proposed: 'proposed, undecided: nobody has accepted it',
  accepted: 'accepted',
  edited: 'edited',
};

/** A redline of the clause as its comment tells it: written as tracked changes, or why not. */
export interface RedlineMention {
  readonly redline: DocxRedline;
  /** Why it is not in the document, when it could not be placed. */
  readonly notPlaced?: string;
}

/** What a redline's comment says of it: where it is, who decided it, where its words came from. */
function redlineLines({ redline, notPlaced }: RedlineMention): string[] {
  const decision = redline.decision === 'rejected' ? 'rejected' : REDLINE_WORDS[redline.decision];
  const by = redline.decidedBy ? ` by ${redline.decidedBy}` : '';
  const note = redline.note ? `: “${redline.note}”` : '';
  const out = [
    notPlaced
      ? `Redline ${redline.id} (${decision}${by}) not placed in this document: ${notPlaced}${note}`
      : `Redline ${redline.id} (${decision}${by}) is in the tracked changes${note}`,
  ];
  if (redline.source === 'model')
    out.push(
      `Its language was drafted by the model, not taken from the playbook. The playbook's language: “${redline.language ?? ''}”`,
    );
  if (redline.shape === 'appended')
    out.push(
      "It adds the playbook's language to the clause: no smaller edit of the clause's own words reaches the position.",
    );
  if (redline.rewritten?.length)
    out.push(
      `Written without terms this contract does not define: ${redline.rewritten.map((r) => `“${r.from}” as “${r.to}”`).join(', ')}.`,
    );
  return out;
}

/** A position the clause addresses, as its comment tells it: the rung reached, why, and who decides. */
function positionLine(p: NonNullable<ReportClause['positions']>[number]): string {
  const rung = rungLabel(p);
  const who = p.escalation ? ` (for ${p.escalation.group} to decide)` : '';
  const shared = p.sharedRedline
    ? ` The redline for this position is ${p.sharedRedline}, proposed once for the document.`
    : '';
  return `Playbook ${p.topic}: ${rung}${who}. ${p.reason}${shared}`;
}

/**
 * The paragraphs of a clause's comment: the risk and findings, the playbook positions it
 * addresses, then a line for each of its redlines.
 */
export function commentParagraphs(
  report: Pick<Report, 'categories' | 'analystPanel'>,
  c: ReportClause,
  redlines: readonly RedlineMention[] = [],
): string[] {
  const category = new Map(report.categories.map((x) => [x.id, x.name]));
  const analyst = new Map(report.analystPanel.map((a) => [a.id, a.name]));
  const upper = (r: Risk | null) => (r ?? 'none').toUpperCase();
  const risk =
    c.model && c.model.risk !== c.risk ? `${upper(c.risk)} (panel: ${upper(c.model.risk)})` : upper(c.risk);
  const where = [c.label, c.heading].filter(Boolean).join(' ');
  const scored = Object.entries(c.scores)
    .filter((e): e is [string, number] => e[1] !== null && e[1] >= 2)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([id, s]) => `${category.get(id) ?? id} ${s} (${SCORE_WORDS[s] ?? s})`);
  const out = [
    `Risk: ${risk} · clause ${c.id}${where ? ` (${where})` : ''}`,
    `Categories: ${scored.join('; ') || 'none scored significant'}`,
  ];
  const findings = [...c.findings].sort(
    (a, b) => (b.score ?? 0) - (a.score ?? 0) || a.category.localeCompare(b.category),
  );
  const decided = new Set<string>();
  for (const f of findings) {
    const name = category.get(f.category) ?? f.category;
    const by = f.analysts.map((a) => analyst.get(a) ?? a).join(', ');
    out.push(`${name} ${f.score ?? '-'}: ${f.rationale}${by ? ` (${by})` : ''}`);
    if (f.quote) out.push(`“${f.quote}”`);
    if (f.review && !decided.has(f.review.findingId)) {
      decided.add(f.review.findingId);
      out.push(decisionLine(name, f.review));
    }
  }
  for (const p of c.positions ?? []) out.push(positionLine(p));
  for (const r of redlines) out.push(...redlineLines(r));
  return out;
}
