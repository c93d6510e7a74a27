/**
 * What a review gate holds of a review against a playbook, beside the findings at its risk:
 * every finding the playbook escalates (a fallback whose position names an approver, a clause
 * below every fallback, a required clause found nowhere), each held for its approver group; and
 * every proposed redline, for the job's reviewer to accept, reject or edit.
 */
import type { CategoryId } from '../analysts/categories.js';
import type { Escalation, Importance, PositionQuote, ProposedRedline, Rung } from '../playbooks/index.js';
import { ADMINISTRATORS_GROUP } from '../playbooks/review-types.js';
import type { Report } from '../report-types.js';

/** The clause a held item is on, as a reader knows it. */
export interface HeldClause {
  readonly id: string;
  readonly index: number;
  readonly label?: string;
  readonly heading?: string;
}

/**
 * A finding a playbook escalates, held for its approver group: a clause's position finding
 * (`<clause>/playbook/<topic>`), or a required clause found in no clause
 * (`document/playbook/<topic>`). Its members, or an administrator, approve it (the clause may
 * stand as it is, or the contract go without the clause) or reject it.
 */
export interface EscalatedFinding {
  readonly id: string;
  readonly escalation: Escalation;
  readonly topic: string;
  readonly category: CategoryId;
  readonly importance: Importance;
  readonly question: string;
  /** The clause, for a position finding; absent for a missing required clause. */
  readonly clause?: HeldClause;
  /** The rung the clause reaches, for a position finding. */
  readonly rung?: Rung;
  /** The passages the rung rests on (none for a missing clause). */
  readonly quotes: readonly PositionQuote[];
  /** Why the clause reaches its rung; for a missing clause, where the clause would go. */
  readonly rationale: string;
  /** The model language to insert, for a missing clause. */
  readonly language?: string;
  readonly analysts: readonly string[];
}

/** A proposed redline held for the job's reviewer, with the clause it edits. */
export type HeldRedline = Omit<ProposedRedline, 'decision'> & {
  /** The position finding it would bring up: `<clause>/playbook/<topic>`. */
  readonly findingId: string;
  readonly question: string;
  /** The rung the clause reaches as it stands. */
  readonly rung: Rung;
  readonly clause: HeldClause & { readonly text: string };
};

/** What a gate holds of a report's review against its playbook. */
export interface PlaybookHolds {
  readonly escalations: readonly EscalatedFinding[];
  readonly redlines: readonly HeldRedline[];
}

function heldClause(c: Report['clauses'][number]): HeldClause {
  return {
    id: c.id,
    index: c.index,
    ...(c.label ? { label: c.label } : {}),
    ...(c.heading ? { heading: c.heading } : {}),
  };
}

const rungOf = (r: Rung): Rung => ({
  rung: r.rung,
  ...(r.fallback !== undefined ? { fallback: r.fallback } : {}),
});

/**
 * The escalations and proposed redlines of a report, in clause order (each clause's positions in
 * playbook order), then the required clauses found nowhere. Empty for a report with no review
 * against a playbook.
 */
export function playbookHolds(report: Pick<Report, 'clauses' | 'playbookReview'>): PlaybookHolds {
  const escalations: EscalatedFinding[] = [];
  const redlines: HeldRedline[] = [];
  for (const c of report.clauses) {
    for (const p of c.positions ?? []) {
      const clause = heldClause(c);
      if (p.escalation) {
        escalations.push({
          id: p.id,
          escalation: p.escalation,
          topic: p.topic,
          category: p.category,
          importance: p.importance,
          question: p.question,
          clause,
          rung: rungOf(p),
          quotes: p.quotes,
          rationale: p.reason,
          analysts: p.analysts,
        });
      }
      if (p.redline) {
        const { decision: _decision, ...redline } = p.redline;
        redlines.push({
          ...redline,
          findingId: p.id,
          question: p.question,
          rung: rungOf(p),
          clause: { ...clause, text: c.text },
        });
      }
    }
  }
  for (const m of report.playbookReview?.missing ?? []) {
    escalations.push({
      id: m.id,
      escalation: m.escalation,
      topic: m.topic,
      category: m.category,
      importance: m.importance,
      question: m.question,
      quotes: [],
      rationale: m.placement.afterClause
        ? `No clause addresses it. ${m.placement.note} (after ${m.placement.afterClause})`
        : `No clause addresses it. ${m.placement.note}`,
      language: m.language,
      analysts: [],
    });
  }
  return { escalations, redlines };
}

/** The approver groups some held escalation waits for, sorted, each once (`administrators` left out: they see every job). */
export function approverGroupsOf(escalations: readonly Pick<EscalatedFinding, 'escalation'>[]): string[] {
  return [...new Set(escalations.map((e) => e.escalation.group))]
    .filter((g) => g !== ADMINISTRATORS_GROUP)
    .sort();
}

/**
 * Who may decide what a review holds: the job's own findings and redlines are its reviewer's
 * (the owner, or an administrator); an escalated finding is its approver group's (a member, or
 * an administrator).
 */
export interface DecisionRights {
  /** The job's owner or an administrator: decides the findings at the gate's risk and the redlines. */
  readonly reviewer: boolean;
  /** Whether the caller decides what is escalated to `group`: a member of it, or an administrator. */
  approves(group: string): boolean;
  /**
   * True when the caller owns the job and the stack does not let owners decide their own
   * escalations: an escalation exists so that someone other than the submitter accepts the
   * risk, so its approver group's members and the administrators are refused on a job they own.
   */
  readonly ownJob?: boolean;
}

/**
 * The rights of a caller: the job's reviewer (its owner) or not, an administrator or not, and the
 * user pool groups they are in. `ownJob` when they own the job and the stack keeps owners from
 * deciding its escalations: then they approve no group's.
 */
export function decisionRights(
  reviewer: boolean,
  administrator: boolean,
  groups: readonly string[] = [],
  ownJob = false,
): DecisionRights {
  return {
    reviewer: reviewer || administrator,
    approves: (group) => !ownJob && (administrator || groups.includes(group)),
    ...(ownJob ? { ownJob } : {}),
  };
}
