/**
 * The shapes of a review against a playbook, as report.json carries them (docs/report-schema.md,
 * "playbookReview"): per clause, the rung each position it addresses reaches, with the quotes and
 * reason behind it, the number measured where the position has one, and for anything below the
 * standard a proposed redline of the clause's own text; per document, the required clauses
 * found nowhere; and the escalations the rungs call for.
 *
 * A redline's decision is kept in the job's review trail, like a finding's (append-only, the
 * latest decision in force); the report shows the one in force on each redline, and report.docx
 * writes every redline not rejected as tracked changes.
 */

import type { RedlineEdit } from '../../text/redline-edits.js';
import type { Rung } from '../../text/rung.js';
import type { CategoryId } from '../analysts/categories.js';
import type { ContractType } from '../records/job-terms.js';
import type { UnplacedRedline } from '../records/redline-placement.js';
import type { Importance, Unit } from './schema.js';

export type { FallbackIndex, Rung, RungKind } from '../../text/rung.js';
export type { UnplacedReason, UnplacedRedline } from '../records/redline-placement.js';

/** A passage of the clause the rung rests on, located as findings' quotes are. */
export interface PositionQuote {
  /** `text.slice(start, end)` of the job's normalised text. */
  readonly quote: string;
  /** Offsets into the job's normalised text (not the clause's). */
  readonly start: number;
  readonly end: number;
}

/**
 * The number a clause states for a position's measure (a notice period, a cap as a multiple of
 * the fees), in the position's unit, as the analyst read it. Absent when the position has no
 * measure or the clause states no number for it (an uncapped liability).
 */
export interface Measured {
  readonly value: number;
  readonly unit: Unit;
  /** The ISO 4217 currency of a `money` measure. */
  readonly currency?: string;
}

/** Who must decide a finding before the report stands, and why. */
export interface Escalation {
  /**
   * The Cognito group whose members (or the stack's administrators) may decide it: the
   * fallback's `approver`; for `not-acceptable`, the position's `exceptionApprover`; for a
   * missing required clause, its `approver`; {@link ADMINISTRATORS_GROUP} when the playbook
   * names none.
   */
  readonly group: string;
  readonly reason: 'fallback-approver' | 'not-acceptable' | 'required-clause-missing';
}

/**
 * How an escalation was decided once a review gate held it: `approved` (the approver accepts the
 * clause as it stands, or the contract without the required clause), `rejected` (they do not:
 * it must change), or `unreviewed` (the review closed without their decision). Absent from a job
 * whose review did not hold it (no gate).
 */
export interface EscalationReview {
  readonly decision: 'approved' | 'rejected' | 'unreviewed';
  readonly by?: string;
  readonly bySub?: string;
  readonly byName?: string;
  readonly at?: string;
  readonly note?: string;
}

/** An escalation as `playbookReview.escalations` lists it: the finding it is for, and its decision once held. */
export interface EscalationEntry extends Escalation {
  readonly findingId: string;
  readonly review?: EscalationReview;
}

/** The group that decides what a playbook names no approver for: the stack's administrators. */
export const ADMINISTRATORS_GROUP = 'administrators';

/** What a reviewer did with a redline; `proposed`: nothing yet. */
export type RedlineStatus = 'proposed' | 'accepted' | 'rejected' | 'edited';

/**
 * The decision in force on a redline, as the report shows it: the latest of the trail's
 * {@link RedlineDecisionRecord}s for it, or `proposed` when there is none.
 */
export interface RedlineDecision {
  readonly status: RedlineStatus;
  /** `edited` only: the reviewer's edits, which replace the proposed ones (offsets in the clause text). */
  readonly edits?: readonly RedlineEdit[];
  /** `edited` only: the clause's text once the reviewer's edits are applied. */
  readonly text?: string;
  /** Who decided (an IAM ARN, or `cognito-identity:<id>`), as the trail keeps it; absent while proposed. */
  readonly by?: string;
  /** The user pool's permanent id (`sub`) of the deciding person, when they signed in through it. */
  readonly bySub?: string;
  /** The deciding person's email or user name, when they signed in through the user pool. */
  readonly byName?: string;
  /** When (ISO); absent while proposed. */
  readonly at?: string;
  readonly note?: string;
}

/**
 * One reviewer decision on a redline, as the job's review trail keeps it (beside the findings'
 * decisions; a later one on the same redline supersedes an earlier one, none is changed).
 */
export interface RedlineDecisionRecord {
  /** The redline's {@link ProposedRedline.id}. */
  readonly redlineId: string;
  readonly status: Exclude<RedlineStatus, 'proposed'>;
  /** `edited` only: the reviewer's edits of the clause's text. */
  readonly edits?: readonly RedlineEdit[];
  readonly by: string;
  /** The user pool's permanent id (`sub`) of the deciding person, when they signed in through it. */
  readonly bySub?: string;
  /** The name the user pool vouched for (a verified email, or the user name); never an unverified address. */
  readonly byName?: string;
  readonly at: string;
  readonly note?: string;
}

/**
 * Where a redline's inserted language came from: `playbook`, the target rung's language (in the
 * contract's own names and terms), a number the rung's threshold gives, or nothing inserted at
 * all; `model`, anything else, drafted by the model and to be read as such.
 */
export type RedlineSource = 'playbook' | 'model';

/**
 * How a redline changes its clause: `in-place`, the clause's own words (a number replaced, a
 * phrase struck or changed, a short carve-out added); `appended`, language of a sentence or more
 * added to the clause with nothing of it deleted, the last resort when no smaller edit reaches
 * the rung.
 */
export type RedlineShape = 'in-place' | 'appended';

/**
 * The smallest edit of a clause's own text that brings it to the best acceptable rung: spans of
 * the clause deleted and text inserted, as the DOCX writer writes tracked changes. Every edit's
 * deleted span is the clause's text at those offsets (checked as quotes are), and the edits do
 * not overlap.
 */
export interface ProposedRedline {
  /** `<clauseId>/redline/<topic>`: unique in the report, stable across a redelivered chunk. */
  readonly id: string;
  readonly clauseId: string;
  readonly topic: string;
  /** Offsets are UTF-16 indexes into the clause's `text` (not the normalised text), in order. */
  readonly edits: readonly RedlineEdit[];
  /** The rung the clause reaches once the edits are made. */
  readonly target: Rung & { readonly rung: 'standard' | 'fallback' };
  /** The playbook's language for that rung, in the contract's names and terms: what the inserted text draws on. */
  readonly language: string;
  /** Where the inserted language came from. */
  readonly source: RedlineSource;
  readonly shape: RedlineShape;
  /**
   * Capitalised terms of the inserted text the contract does not use, and what they were written
   * as instead (its own term for the same thing, or plain words).
   */
  readonly rewritten?: readonly { readonly from: string; readonly to: string }[];
  /** The clause's text with the edits made: what accepting every change of the redline gives. */
  readonly text: string;
  readonly decision: RedlineDecision;
}

/**
 * How one clause stands against one position of the playbook it addresses (its rung is never
 * `not-addressed`: a clause that does not address a position has no finding for it).
 */
export interface PositionFinding extends Rung {
  /** `<clauseId>/playbook/<topic>`: what an escalation's decision names. */
  readonly id: string;
  readonly topic: string;
  readonly category: CategoryId;
  readonly importance: Importance;
  /** The position's question, for a reader. */
  readonly question: string;
  /** The passages the rung rests on: at least one. */
  readonly quotes: readonly PositionQuote[];
  /** Why the clause reaches this rung, in plain words. */
  readonly reason: string;
  readonly measured?: Measured;
  /** For a rung below the standard: the edit that would bring the clause up. */
  readonly redline?: ProposedRedline;
  /**
   * The id of the redline that answers this position in another clause: one redline per position
   * per document, on the clause where the smallest edit reaches the rung.
   */
  readonly sharedRedline?: string;
  /** For a rung that needs an approver. */
  readonly escalation?: Escalation;
  /** The analysts whose answers the finding rests on, sorted. */
  readonly analysts: readonly string[];
}

/** Where a missing required clause would go. */
export interface Placement {
  /** The clause it would follow: the last clause of the playbook's `placement.after` category. */
  readonly afterClauseId?: string;
  /** That clause's number and heading, for a reader (`"9.2 Indemnity"`). */
  readonly afterClause?: string;
  /** The playbook's words on where it goes. */
  readonly note: string;
}

/** A topic the playbook requires that no clause of the contract addresses. */
export interface RequiredClauseFinding {
  /** `document/playbook/<topic>`. */
  readonly id: string;
  readonly topic: string;
  readonly category: CategoryId;
  readonly importance: Importance;
  readonly question: string;
  /** The model language to insert. */
  readonly language: string;
  readonly placement: Placement;
  readonly escalation: Escalation;
  /**
   * Clauses no analyst covering the category answered for (failed, skipped, or their chunk did
   * not finish): the topic may be in one of them. Absent when every clause was assessed.
   */
  readonly unassessedClauses?: number;
}

/** A position of the playbook over the whole contract: every clause that addresses it, and the worst rung. */
export interface PositionSummary extends Rung {
  readonly topic: string;
  readonly category: CategoryId;
  readonly importance: Importance;
  readonly question: string;
  /** The clauses that address it, each with the rung it reaches, in document order. */
  readonly clauses: readonly (Rung & { readonly clauseId: string })[];
}

/** Why a proposed redline was not put to the reviewer. */
export type WithheldReason =
  /** Its inserted text names a party role the contract has no party for. */
  | 'foreign-party'
  /**
   * It would append the standard's language to a clause that already reaches a fallback: a
   * rung the team accepts, which a reader keeps rather than bolt the standard onto.
   */
  | 'appended-to-acceptable'
  /**
   * It would append the playbook's language to a contract of a type the playbook does not cover:
   * words written for another kind of deal, which a reader of this one would not keep. An edit
   * of the clause's own words (a number, a phrase) is still proposed.
   */
  | 'appended-to-uncovered-type';

/** A redline an analyst proposed that the review withheld, and why. */
export interface WithheldRedline {
  readonly id: string;
  readonly clauseId: string;
  readonly topic: string;
  readonly reason: WithheldReason;
  readonly detail: string;
}

/** A clause with redlines written: what accepting every one of its tracked changes makes of it. */
export interface RedlinedClause {
  readonly clauseId: string;
  /** The redlines written in it, in the order their changes go where they meet. */
  readonly redlines: readonly string[];
  /** The clause's text with every edit of those redlines made. */
  readonly text: string;
}

/** What report.docx made of the redlines. */
export interface RedlinesWritten {
  /** Redlines written as tracked changes. */
  readonly placed: readonly string[];
  /** Redlines that could not be placed in the document, and why. */
  readonly notPlaced: readonly UnplacedRedline[];
  /**
   * Each clause with a redline written: the redlines written in it and its text once every
   * change is accepted (where two redlines insert at one point, the first listed goes first).
   */
  readonly clauses: readonly RedlinedClause[];
  /** Required clauses the contract lacks, inserted as paragraphs of their own, by finding id. */
  readonly inserted?: readonly string[];
}

/** The review against a playbook: report.json's `playbookReview`. */
export interface PlaybookReview {
  /**
   * The contract type the review took the playbook's topics for, and where it came from: the
   * submitter's `contractType`, detected from the contract's title, or the playbook's only
   * type; the kind read and whether the playbook covers it. Absent: no type was known, and every
   * topic applied.
   */
  readonly contractType?: ContractType;
  /** Every position that applied, in playbook order (the rung is `not-addressed` where no clause deals with it). */
  readonly positions: readonly PositionSummary[];
  /** Required clauses found nowhere in the contract. */
  readonly missing: readonly RequiredClauseFinding[];
  /** Every finding that needs an approver, clause and document findings alike, by finding id. */
  readonly escalations: readonly EscalationEntry[];
  /** Redlines the analysts proposed that the review withheld, with why. */
  readonly withheld?: readonly WithheldRedline[];
  /** Present once report.docx was written. */
  readonly docx?: RedlinesWritten;
}

/** A position finding's id. */
export const positionFindingId = (clauseId: string, topic: string) => `${clauseId}/playbook/${topic}`;
/** A missing required clause's finding id. */
export const requiredClauseFindingId = (topic: string) => `document/playbook/${topic}`;
/** A proposed redline's id. */
export const redlineId = (clauseId: string, topic: string) => `${clauseId}/redline/${topic}`;
