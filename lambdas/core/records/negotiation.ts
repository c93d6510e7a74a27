/**
 * The other side's turn as report.json carries it (`negotiation`, docs/report-schema.md): each of
 * their changes with who made it, the clause it falls in, what it does to our position and our
 * answer; each of their comments with the reply we propose; and what report.docx made of it.
 */
import type { RedlineEdit } from '../../text/redline-edits.js';
import type { Rung } from '../../text/rung.js';
import type { RevisionSource } from '../documents/index.js';
import type { UnplacedRedline } from './redline-placement.js';

/**
 * What we answer a change: `accept` (no worse for us, or no worse than a fallback the playbook
 * accepts with nothing better to offer), `reject` (worse, below what we accept: our text should
 * stand), `counter` (worse, but a fallback would do: its language proposed as the smallest edit of
 * their text). `not-judged`: it could not be weighed (outside the clauses, or a side of it not
 * analysed).
 */
export type ChangeVerdict = 'accept' | 'reject' | 'counter' | 'not-judged';

/** How one position of the playbook stands in the clause before and after the change. */
export interface RungShift {
  readonly topic: string;
  readonly question: string;
  readonly before: Rung;
  readonly after: Rung;
}

/** A category whose score the change raised. */
export interface RiskRise {
  readonly category: string;
  readonly before: number | null;
  readonly after: number;
}

/** Our counter-proposal: a fallback's language as the smallest edit of their text. */
export interface CounterProposal {
  /** `<changeId>/counter`: what report.docx names it by. */
  readonly id: string;
  readonly clauseId: string;
  readonly topic: string;
  /** The fallback offered (1 to 3, in the position's order). */
  readonly target: Rung & { readonly rung: 'fallback' };
  /** The fallback's position and language, as the playbook gives them. */
  readonly position: string;
  readonly language: string;
  /** Edits of the clause's text as it reads now (UTF-16 offsets into the clause's `text`). */
  readonly edits: readonly RedlineEdit[];
  /** The clause with the edits made: what accepting our change on top of theirs gives. */
  readonly text: string;
  /** The group that must approve the fallback, when the playbook names one. */
  readonly approver?: string;
}

/** One change of theirs (an insertion and the deletion it replaces are one), judged and answered. */
export interface NegotiationChange {
  /** `n1`, `n2`… in the order of the document. */
  readonly id: string;
  /** The revisions it is made of (`t1`, `t2`… tracked, `v1`… compared). */
  readonly revisions: readonly string[];
  readonly source: RevisionSource;
  readonly kind: 'insertion' | 'deletion' | 'replacement' | 'move' | 'formatting';
  readonly author: string;
  readonly date?: string;
  /** The text they inserted, and the text they deleted. */
  readonly inserted?: string;
  readonly deleted?: string;
  /** The package part, for a change outside the body. */
  readonly part?: string;
  /** Its span in the normalised text (a point for a deletion); absent outside the body. */
  readonly start?: number;
  readonly end?: number;
  readonly clauseIds: readonly string[];
  readonly verdict: ChangeVerdict;
  /** Why, in plain words. */
  readonly reason: string;
  /** The positions whose rung differs before and after (a review against a playbook). */
  readonly shifts?: readonly RungShift[];
  /** The clause's risk before and after, and the categories the change raised. */
  readonly risk?: {
    readonly before: string | null;
    readonly after: string | null;
    readonly rose: readonly RiskRise[];
  };
  /** Passages the verdict rests on, in the clause as it read before and as it reads now. */
  readonly quotes?: { readonly before: readonly string[]; readonly after: readonly string[] };
  /** `reject`: the clause as it read before, which we ask to stand. */
  readonly restore?: string;
  /** `counter`: our proposal (on the first change of the clause; the others name it). */
  readonly counter?: CounterProposal;
  /** `counter` on a later change of a clause: the change carrying the clause's proposal. */
  readonly counterOn?: string;
  /** `accept` of a fallback that needs an approver: who. */
  readonly approver?: string;
  /** Our answer, as the reply comment in report.docx says it. */
  readonly answer: string;
}

/** One comment of theirs, with the reply we propose. */
export interface NegotiationComment {
  /** The comment's id in the document. */
  readonly id: string;
  readonly author: string;
  readonly date?: string;
  readonly text: string;
  readonly clauseIds: readonly string[];
  /** Their changes in the same clauses, whose verdicts the reply draws on. */
  readonly changes: readonly string[];
  readonly reply: string;
}

/** What report.docx made of the answers. */
export interface NegotiationDocx {
  /** Reply comments written: one under each change placed, one threaded under each comment. */
  readonly replies: number;
  readonly threaded: number;
  /** Counter-proposals written as our tracked changes, and those that could not be. */
  readonly counters: { readonly placed: readonly string[]; readonly notPlaced: readonly UnplacedRedline[] };
}

/** The other side's turn: report.json's `negotiation`. */
export interface Negotiation {
  /** Where their changes were read: tracked in the upload, compared with our version, or both. */
  readonly source: 'tracked' | 'compared' | 'both';
  /** The version a clean copy was compared with. */
  readonly against?: { readonly jobId?: string; readonly sha256?: string };
  /** Who made the changes and comments, in order of first appearance. */
  readonly authors: readonly string[];
  readonly summary: {
    readonly changes: number;
    readonly accept: number;
    readonly reject: number;
    readonly counter: number;
    readonly notJudged: number;
    readonly comments: number;
  };
  readonly changes: readonly NegotiationChange[];
  readonly comments: readonly NegotiationComment[];
  /** Clauses judged as they read before (each one more clause's calls, priced and counted in coverage). */
  readonly clausesBefore: number;
  /** Changes past the document's bound, not read. */
  readonly omitted?: number;
  readonly docx?: NegotiationDocx;
}
