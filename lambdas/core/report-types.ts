/**
 * The report's JSON shape (report.json, schema version 1). docs/report-schema.md explains
 * every field; money is integer micro-dollars, offsets index the normalised text. The shapes of
 * a review against a playbook are in core/playbooks/review-types.ts.
 */

import type { PlaybookReview, PositionFinding, RedlineDecisionRecord } from './playbooks/review-types.js';
import type { JobParties } from './playbooks/reviewed-for.js';
import type { Negotiation } from './records/negotiation.js';

export type {
  Escalation,
  EscalationEntry,
  EscalationReview,
  Measured,
  PlaybookReview,
  PositionFinding,
  PositionQuote,
  PositionSummary,
  ProposedRedline,
  RedlineDecision,
  RedlineDecisionRecord,
  RedlinesWritten,
  RequiredClauseFinding,
  Rung,
  RungKind,
} from './playbooks/review-types.js';
export type {
  ChangeVerdict,
  CounterProposal,
  Negotiation,
  NegotiationChange,
  NegotiationComment,
  NegotiationDocx,
  RungShift,
} from './records/negotiation.js';

/** Risk of a clause, from its category scores. */
export type Risk = 'none' | 'low' | 'medium' | 'high' | 'critical';

/** A finding as the report shows it. */
export interface ReportFinding {
  readonly category: string;
  readonly score: number | null;
  readonly quote: string;
  readonly start: number;
  readonly end: number;
  readonly rationale: string;
  readonly analysts: readonly string[];
  /** The reviewer's decision on the finding's category, when the job had a review gate that held it. */
  readonly review?: FindingReview;
}

/** How a gated finding was reviewed. `unreviewed`: the review deadline passed without a decision. */
export interface FindingReview {
  readonly findingId: string;
  readonly decision: 'approved' | 'overridden' | 'rejected' | 'unreviewed';
  /** The panel's score of the category. */
  readonly modelScore: number;
  /** The score the report uses: the panel's, the reviewer's override, or 0 when rejected. */
  readonly decidedScore: number;
  readonly by?: string;
  /** The user pool's permanent id of the deciding person, when they signed in through it. */
  readonly bySub?: string;
  /** The name the user pool vouched for when they decided (a verified email, or the user name). */
  readonly byName?: string;
  readonly at?: string;
  readonly note?: string;
}

/** A reviewer's decision as the trail keeps it. */
export interface ReportDecision {
  readonly findingId: string;
  readonly verdict: 'approve' | 'override' | 'reject';
  readonly score?: number;
  readonly by: string;
  /** The user pool's permanent id of the deciding person, when they signed in through it. */
  readonly bySub?: string;
  /** The name the user pool vouched for when they decided (a verified email, or the user name). */
  readonly byName?: string;
  readonly at: string;
  readonly note?: string;
}

/** The review of a gated job: which findings were held, what was decided, and the whole trail. */
export interface ReportReview {
  readonly gate: 'critical' | 'high';
  readonly startedAt: string;
  readonly deadline: string;
  /** `decided`: every gated finding has a decision; `expired`: the deadline passed first; `cancelled`: the job was. */
  readonly outcome: 'decided' | 'expired' | 'cancelled';
  readonly closedAt?: string;
  readonly findings: readonly FindingReview[];
  /** Every decision in the order made, superseded ones included: findings and escalations alike. */
  readonly trail: readonly ReportDecision[];
  /** Every decision on a proposed redline in the order made, superseded ones included; absent when none was made. */
  readonly redlineTrail?: readonly RedlineDecisionRecord[];
}

/** One clause and what the panel found in it. */
export interface ReportClause {
  readonly id: string;
  readonly index: number;
  readonly chunk: number;
  readonly label?: string;
  readonly heading?: string;
  readonly start: number;
  readonly end: number;
  readonly text: string;
  /** `analysed`: every analyst answered; `partial`: some failed; `not-analysed`: the chunk did not finish. */
  readonly status: 'analysed' | 'partial' | 'not-analysed';
  readonly risk: Risk | null;
  readonly maxScore: number | null;
  /** Category id → 0–3, or null when no analyst found the category addressed. */
  readonly scores: Readonly<Record<string, number | null>>;
  readonly findings: readonly ReportFinding[];
  readonly analystsAnswered: readonly string[];
  readonly analystsFailed: readonly string[];
  /** The analysts of the selection not asked about the clause, each with why; absent when all were. */
  readonly screened?: readonly ReportScreenedPair[];
  /**
   * In a review against a playbook: each position of the playbook the clause addresses, with the
   * rung it reaches and, below the standard, the proposed redline. Absent without a playbook.
   */
  readonly positions?: readonly PositionFinding[];
  /**
   * On a clause a reviewer decided on: the panel's own risk, highest score and scores, before
   * the decisions (`risk`, `maxScore` and `scores` above are the decided ones).
   */
  readonly model?: {
    readonly risk: Risk | null;
    readonly maxScore: number | null;
    readonly scores: Readonly<Record<string, number | null>>;
  };
}

/** A stage of a chunk as the checkpoint recorded it. */
export interface ReportStage {
  readonly status: string;
  readonly attempts: number;
  readonly startedAt?: string;
  readonly finishedAt?: string;
  readonly lastError?: string;
  readonly errorClass?: string;
  readonly stoppedAt?: string;
}

/** A chunk: its clauses and where each stage ended. */
export interface ReportChunk {
  readonly chunk: number;
  readonly clauseIds: readonly string[];
  readonly stages: Readonly<Record<string, ReportStage>>;
}

/** A call that did not produce an answer. */
export interface ReportFailedCall {
  readonly chunk: number;
  readonly clauseId: string;
  readonly analystId: string;
  readonly failureKind: string;
  readonly errorClass: string;
  readonly lastError: string;
  readonly attempts: number;
}

/** Why a pair of clause and analyst was not asked: the relevance screen found none of the analyst's categories likely in the clause. */
export type ScreenReason = 'screen';

/** An analyst not asked about one clause, and why. */
export interface ReportScreenedPair {
  readonly analystId: string;
  readonly reason: ScreenReason;
  /** The highest probability the screen gave the analyst's categories (each below its threshold). */
  readonly probability: number;
}

/** The calls the screen did not ask of one analyst (`coverage.screened`). */
export interface ReportScreened {
  readonly analystId: string;
  readonly reason: ScreenReason;
  readonly calls: number;
  /** Why, in words. */
  readonly detail: string;
}

/**
 * Calls the job did not ask, on purpose, per analyst: every clause's call to an analyst the
 * playbook gives nothing to judge (`playbook`). Not counted in `callsPlanned`.
 */
export interface ReportNotAsked {
  readonly analystId: string;
  readonly reason: 'playbook';
  readonly calls: number;
  /** Why, in words: the playbook, the contract type, the analyst's categories. */
  readonly detail: string;
}

/** The whole report. */
export interface Report {
  readonly schemaVersion: 1;
  readonly job: {
    readonly jobId: string;
    readonly status: 'completed' | 'incomplete' | 'cancelled' | 'budget_exceeded';
    readonly reason?: string;
    readonly lane: string;
    readonly analysts: readonly string[];
    readonly document: {
      readonly bucket: string;
      readonly key: string;
      readonly versionId?: string;
      readonly sha256?: string;
      readonly bytes?: number;
      readonly format?: string;
    };
    /**
     * The playbook the contract was reviewed against: name, version, the sha256 of its canonical
     * JSON and its title. Absent: the generic review against the risk categories alone.
     */
    readonly playbook?: {
      readonly name: string;
      readonly version: number;
      readonly sha256: string;
      readonly title: string;
    };
    /**
     * The contract's parties as its preamble names them, and, in a review against a playbook,
     * the party it was reviewed for (`us`, by the contract's own name for it) and how that was
     * chosen; `problem` when they could not be read.
     */
    readonly parties?: JobParties;
  };
  readonly categories: readonly { readonly id: string; readonly name: string }[];
  readonly analystPanel: readonly {
    readonly id: string;
    readonly name: string;
    readonly categories: readonly string[];
  }[];
  readonly summary: {
    readonly clauses: number;
    readonly clausesAnalysed: number;
    readonly riskCounts: Readonly<Record<Risk, number>>;
    /** Category id → clauses scoring 2 or more. */
    readonly categoriesFlagged: Readonly<Record<string, number>>;
  };
  readonly clauses: readonly ReportClause[];
  readonly chunks: readonly ReportChunk[];
  readonly coverage: {
    readonly callsPlanned: number;
    readonly callsDone: number;
    readonly callsReused: number;
    readonly callsFailed: number;
    readonly callsSkippedBudget: number;
    /** Not started because the job was cancelled. */
    readonly callsCancelled: number;
    /**
     * Planned pairs the relevance screen did not ask. Done + failed + skipped + cancelled +
     * screened + not run = planned.
     */
    readonly callsScreened: number;
    readonly callsNotRun: number;
    /** The screened calls per analyst; absent when none were. */
    readonly screened?: readonly ReportScreened[];
    /** Calls left out on purpose (not planned): present when some were. */
    readonly callsNotAsked?: number;
    /** Who was not asked and why; present with `callsNotAsked`. */
    readonly notAsked?: readonly ReportNotAsked[];
    readonly modelAttempts: number;
    readonly tier1Retries: number;
    readonly redeliveries: number;
    readonly failedCalls: readonly ReportFailedCall[];
    /** Chunks that did not finish, with where they stopped. */
    readonly unfinishedChunks: readonly {
      readonly chunk: number;
      readonly stage: string;
      readonly status: string;
      readonly detail?: string;
    }[];
  };
  readonly cost: {
    readonly ceilingMicros: number;
    readonly spentMicros: number;
    readonly reservedMicros: number;
    readonly committedMicros: number;
    /** Tokens billed over every answered attempt; cached input is not in `inputTokens`. */
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly cacheReadInputTokens: number;
    readonly cacheWriteInputTokens: number;
    /** What intake quoted before any call, to hold against `spentMicros`. */
    readonly quote?: { readonly expectedMicros: number; readonly worstCaseMicros: number };
  };
  readonly timings: {
    readonly createdAt: string;
    readonly cancelledAt?: string;
    readonly finalizedAt: string;
    readonly durationMs: number;
  };
  /** Present when the job had a review gate that held findings for a reviewer. */
  readonly review?: ReportReview;
  /** The review against the job's playbook (`job.playbook`): positions, missing clauses, escalations. */
  readonly playbookReview?: PlaybookReview;
  /** The other side's changes and comments, each judged and answered; absent when the document has none. */
  readonly negotiation?: Negotiation;
  /** Present when answers came from the local Bedrock stand-in rather than a real model. */
  readonly notice?: string;
}
