/**
 * report.json's review against a playbook: each clause's position findings (the panel's rung
 * with the playbook's question, importance, approvers and language beside it), each position
 * over the contract, the required clauses found in no clause, and every escalation. Every
 * redline is `proposed` here: the review gate holds them for the job's reviewer, and
 * `applyReview` puts the decisions in force on them.
 */

import type { PositionVerdict } from '../analysts/index.js';
import type { Clause } from '../clause.js';
import {
  ADMINISTRATORS_GROUP,
  applicableTopics,
  type ContractType,
  type Escalation,
  type FallbackIndex,
  type Playbook,
  type PlaybookReview,
  type PositionFinding,
  type PositionSummary,
  type ProposedRedline,
  positionFindingId,
  type RequiredClauseFinding,
  type Rung,
  redlineId,
  requiredClauseFindingId,
} from '../playbooks/index.js';
import type { Position, RequiredClause } from '../playbooks/schema.js';
import { applyEdits } from '../report-docx/index.js';
import type { ReportClause } from '../report-types.js';
import { shapeOf } from './redline-vetting.js';

/** What a clause's positions are judged against: a position, or a required clause with no position of its topic. */
type Judged =
  | { readonly kind: 'position'; readonly position: Position }
  | { readonly kind: 'required'; readonly required: RequiredClause };

/** The topics the analysts judged for a contract type, by topic. */
export function judgedTopics(playbook: Playbook, contractType: string | undefined): Map<string, Judged> {
  const { positions, requiredClauses } = applicableTopics(playbook, contractType);
  const out = new Map<string, Judged>(positions.map((p) => [p.topic, { kind: 'position', position: p }]));
  for (const r of requiredClauses) if (!out.has(r.topic)) out.set(r.topic, { kind: 'required', required: r });
  return out;
}

const depthOf = (r: Rung) => (r.rung === 'standard' ? 0 : r.rung === 'fallback' ? (r.fallback ?? 1) : 4);

/** The escalation a rung calls for, or none. */
function escalationOf(judged: Judged, rung: Rung): Escalation | undefined {
  if (rung.rung === 'not-acceptable') {
    const group = judged.kind === 'position' ? judged.position.exceptionApprover : judged.required.approver;
    return { group: group ?? ADMINISTRATORS_GROUP, reason: 'not-acceptable' };
  }
  if (rung.rung === 'fallback' && judged.kind === 'position') {
    const approver = judged.position.fallbacks[(rung.fallback ?? 1) - 1]?.approver;
    if (approver) return { group: approver, reason: 'fallback-approver' };
  }
  return undefined;
}

/** The language of a rung of what was judged. */
function languageOf(judged: Judged, rung: Rung): string {
  if (judged.kind === 'required') return judged.required.language;
  const p = judged.position;
  return rung.rung === 'fallback'
    ? (p.fallbacks[(rung.fallback ?? 1) - 1]?.language ?? '')
    : p.standard.language;
}

/**
 * A clause's position findings from the panel's verdicts, in playbook order. A verdict on a
 * topic the playbook does not judge for this contract type (it cannot come from this job's
 * requests) is left out.
 */
export function positionFindings(
  clause: Pick<Clause, 'id' | 'text'>,
  verdicts: readonly PositionVerdict[],
  topics: ReadonlyMap<string, Judged>,
): PositionFinding[] {
  const order = [...topics.keys()];
  return verdicts
    .filter((v) => topics.has(v.topic))
    .sort((a, b) => order.indexOf(a.topic) - order.indexOf(b.topic))
    .map((v) => {
      const judged = topics.get(v.topic) as Judged;
      const base = judged.kind === 'position' ? judged.position : judged.required;
      const rung: Rung = { rung: v.rung, ...(v.fallback !== undefined ? { fallback: v.fallback } : {}) };
      const escalation = escalationOf(judged, rung);
      const measure = judged.kind === 'position' ? judged.position.measure : undefined;
      let redline: ProposedRedline | undefined;
      if (v.redline && v.rung !== 'standard') {
        const id = redlineId(clause.id, v.topic);
        redline = {
          id,
          clauseId: clause.id,
          topic: v.topic,
          edits: v.redline.edits,
          target: v.redline.target as ProposedRedline['target'],
          language: languageOf(judged, v.redline.target),
          // As given; `vetRedlines` renders the text in the contract's terms and says where it came from.
          source: 'model',
          shape: shapeOf(v.redline.edits),
          text: applyEdits(clause.text, v.redline.edits),
          decision: { status: 'proposed' },
        };
      }
      return {
        id: positionFindingId(clause.id, v.topic),
        topic: v.topic,
        category: base.category,
        importance: base.importance,
        question: base.question,
        ...rung,
        quotes: v.quotes,
        reason: v.reason,
        ...(measure && v.measured !== undefined
          ? {
              measured: {
                value: v.measured,
                unit: measure.unit,
                ...(measure.currency ? { currency: measure.currency } : {}),
              },
            }
          : {}),
        ...(redline ? { redline } : {}),
        ...(escalation ? { escalation } : {}),
        analysts: v.analysts,
      };
    });
}

/** The clause label and heading a reader knows a clause by. */
function clauseName(c: Pick<ReportClause, 'label' | 'heading' | 'index'>): string {
  const name = [c.label, c.heading].filter(Boolean).join(' ');
  return name || `clause ${c.index + 1}`;
}

/**
 * What opens the closing part of a contract: the signature block, or an exhibit, schedule or
 * annex starting as a heading does (in capitals, or named and lettered alone on its line).
 */
const CLOSING =
  /^(?:IN WITNESS WHEREOF|(?:EXHIBIT|SCHEDULE|ANNEX|APPENDIX|ATTACHMENT)\b|(?:Exhibit|Schedule|Annex|Appendix|Attachment)\s+[A-Z0-9][\w.-]*\s*(?:$|\n|[-–—:]))/;

/**
 * The last clause of the operative terms, where a required clause with no placement of its own
 * goes: the one before the signature block or the first exhibit in the second half of the
 * document, else the last clause.
 */
export function endOfTerms<C extends Pick<ReportClause, 'text'>>(clauses: readonly C[]): C | undefined {
  const closing = clauses.findIndex((c, i) => i >= clauses.length / 2 && CLOSING.test(c.text.trimStart()));
  return closing > 0 ? clauses[closing - 1] : clauses.at(-1);
}

/** Whether an analyst that covers the category (one of `coverers`) answered for the clause. */
function assessedFor(clause: ReportClause, coverers: ReadonlySet<string>): boolean {
  if (clause.status === 'not-analysed') return false;
  return clause.analystsAnswered.some((a) => coverers.has(a));
}

/**
 * The review against the playbook over the whole contract, from the clauses with their
 * position findings.
 *
 * @param coverers the analysts of the job that cover each category
 */
export function playbookReviewOf(
  playbook: Playbook,
  contractType: ContractType | undefined,
  clauses: readonly ReportClause[],
  coverers: (category: string) => ReadonlySet<string>,
): PlaybookReview {
  const { positions, requiredClauses } = applicableTopics(playbook, contractType?.type);
  const findings = clauses.flatMap((c) => (c.positions ?? []).map((f) => ({ clause: c, f })));
  const summaries: PositionSummary[] = positions.map((p) => {
    const mine = findings.filter((x) => x.f.topic === p.topic);
    const worst = mine.reduce<Rung | undefined>(
      (w, x) =>
        !w || depthOf(x.f) > depthOf(w)
          ? { rung: x.f.rung, ...(x.f.fallback ? { fallback: x.f.fallback } : {}) }
          : w,
      undefined,
    );
    return {
      topic: p.topic,
      category: p.category,
      importance: p.importance,
      question: p.question,
      ...(worst ?? { rung: 'not-addressed' as const }),
      clauses: mine.map((x) => ({
        clauseId: x.clause.id,
        rung: x.f.rung,
        ...(x.f.fallback !== undefined ? { fallback: x.f.fallback as FallbackIndex } : {}),
      })),
    };
  });
  const addressed = new Set(findings.map((x) => x.f.topic));
  const missing: RequiredClauseFinding[] = requiredClauses
    .filter((r) => !addressed.has(r.topic))
    .map((r) => {
      const after = r.placement.after;
      const last =
        (after ? [...clauses].reverse().find((c) => (c.scores[after] ?? null) !== null) : undefined) ??
        endOfTerms(clauses);
      const who = coverers(r.category);
      const unassessed = clauses.filter((c) => !assessedFor(c, who)).length;
      return {
        id: requiredClauseFindingId(r.topic),
        topic: r.topic,
        category: r.category,
        importance: r.importance,
        question: r.question,
        language: r.language,
        placement: {
          ...(last ? { afterClauseId: last.id, afterClause: clauseName(last) } : {}),
          note: r.placement.note,
        },
        escalation: { group: r.approver ?? ADMINISTRATORS_GROUP, reason: 'required-clause-missing' as const },
        ...(unassessed > 0 ? { unassessedClauses: unassessed } : {}),
      };
    });
  const escalations = [
    ...findings.flatMap((x) => (x.f.escalation ? [{ findingId: x.f.id, ...x.f.escalation }] : [])),
    ...missing.map((m) => ({ findingId: m.id, ...m.escalation })),
  ];
  return {
    ...(contractType ? { contractType } : {}),
    positions: summaries,
    missing,
    escalations,
  };
}
