/**
 * What a job is: its statuses and the job item's fields, apart from the reads and writes of
 * jobs.ts so that a module needing only the shape imports no DynamoDB code.
 */
import type { PanelModels } from '../analysts/panel-models.js';
import type { DocumentFormat } from '../documents/formats.js';
import type { Lane } from '../lanes-and-limits.js';
import type { ContractType, JobParties, JobPlaybook, NotAskedAnalyst } from '../records/job-terms.js';
import { JobNotFoundError } from './errors.js';
import type { JobRejection } from './job-rejections.js';

/**
 * Where a job is. `intake` → `running` → one of the terminal statuses; `queued` between intake
 * and running while its owner has as many jobs running as it may (owner-slots.ts). A running
 * job may be `paused` and resumed; a job with a review gate waits in `awaiting_review` between
 * its last chunk and its report.
 */
export type JobStatus =
  | 'intake'
  | 'queued'
  | 'running'
  | 'paused'
  | 'awaiting_review'
  | 'completed'
  | 'incomplete'
  | 'cancelled'
  | 'budget_exceeded'
  | 'rejected';

/** Statuses a job never leaves (finalize may still write the report of a cancelled job). */
export const TERMINAL_STATUSES: readonly JobStatus[] = [
  'completed',
  'incomplete',
  'cancelled',
  'budget_exceeded',
  'rejected',
];

/**
 * True for a job a person paused that has not gone on: `paused`, or `queued` after a resume that
 * found its owner with no slot free (`pausedAt` is kept until a slot starts it). Its chunks in
 * flight stop as for a pause, not a cancel: their calls are made once it goes on.
 */
export function isPaused(job: Pick<Job, 'status' | 'pausedAt'> | undefined): boolean {
  return job?.status === 'paused' || (job?.status === 'queued' && job.pausedAt !== undefined);
}

/**
 * True while a job's review waits for decisions: `awaiting_review`, neither closed by its last
 * decision nor run out of time. The members of an approver group see a job only then.
 */
export function reviewOpen(
  job: Pick<Job, 'status' | 'reviewCompletedAt' | 'reviewExpiredAt'> | undefined,
): boolean {
  return job?.status === 'awaiting_review' && !job.reviewCompletedAt && !job.reviewExpiredAt;
}

/** Which findings hold a job for a reviewer before its report is final. */
export type ReviewGate = 'none' | 'critical' | 'high';

/** Review gates a job may name, strictest first. */
export const REVIEW_GATES: readonly ReviewGate[] = ['none', 'critical', 'high'];

/** How long a review may take when the job names no other. */
export const DEFAULT_REVIEW_HOURS = 72;

/**
 * The shortest review an upload may ask for, unless the stack sets its own floor
 * (`-c minReviewHours`): an escalation must reach its approvers, not expire before they look.
 */
export const DEFAULT_MIN_REVIEW_HOURS = 1;

/** A job's cost quote, micro-dollars, as intake computed it (intake/quote.ts) before any call. */
export interface CostQuote {
  readonly expectedMicros: number;
  readonly worstCaseMicros: number;
  /**
   * With a playbook that leaves analysts out: the calls they are not asked (clauses × those
   * analysts) and what those calls would have been expected to cost. Not in the figures above.
   */
  readonly notAsked?: { readonly calls: number; readonly expectedMicros: number };
  /**
   * The pairs of clause and analyst the relevance screen leaves out, and what those calls would
   * have been expected to cost. Not in the figures above.
   */
  readonly screened?: { readonly calls: number; readonly expectedMicros: number };
  /**
   * Compute beside the model calls, on each lane (Lambda workers for realtime, Fargate tasks for
   * batch): the model calls cost the same on both. Not in the figures above.
   */
  readonly compute?: { readonly realtime: number; readonly batch: number };
}

/** The job item. Money is integer micro-dollars; `*At` fields are ISO strings, deadlines epoch ms. */
export interface Job {
  readonly jobId: string;
  readonly status: JobStatus;
  readonly lane: Lane;
  readonly bucket: string;
  readonly key: string;
  readonly versionId?: string;
  readonly etag?: string;
  readonly sha256?: string;
  readonly bytes?: number;
  /** The format intake read the document as (the registry's id). */
  readonly format?: DocumentFormat;
  readonly analysts: readonly string[];
  /**
   * Who submitted the job: the API caller's ARN, or for a direct S3 upload the uploader's
   * principal id as the S3 event gives it (`AWS:AIDA…`, `AWS:AROA…:session`). Absent on jobs
   * from before owners were recorded, which only administrators may then act on.
   */
  readonly owner?: string;
  /** The cost quote intake computed before any call (absent on jobs from before quotes). */
  readonly quote?: CostQuote;
  /** The models the job's calls use, fixed at intake (absent on jobs from before models were recorded). */
  readonly models?: PanelModels;
  /** The playbook the job is reviewed against, resolved at intake; absent: the generic review. */
  readonly playbook?: JobPlaybook;
  /** The contract type whose playbook topics apply, and where it came from; absent: every topic. */
  readonly contractType?: ContractType;
  /**
   * Analysts of the selection the playbook gave nothing to judge, not asked about any clause
   * (`analysts` no longer lists them); absent when every selected analyst is asked.
   */
  readonly notAsked?: readonly NotAskedAnalyst[];
  readonly chunkCount: number;
  readonly clauseCount: number;
  /** Pairs of clause and analyst of the panel: asked, or screened. */
  readonly callsPlanned: number;
  /** Planned pairs the relevance screen does not ask (absent: none). */
  readonly callsScreened?: number;
  /** Chunks in a terminal state (done, cancelled or dead). */
  readonly chunksTerminal: number;
  readonly chunksDone: number;
  readonly ceilingMicros: number;
  /** Spent plus the allotments chunks hold: what the ceiling is checked against. */
  readonly costCommitted: number;
  /** Allotments held by chunk leases and not yet returned. */
  readonly costReserved: number;
  /** Cost accounted as spent: settled calls, and calls of dead holders at their worst case. */
  readonly costSpent: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly deadline: number;
  readonly reason?: string;
  /** Machine-readable cause of a `rejected` job: a document's rejection reason or a job's. */
  readonly rejection?: JobRejection;
  readonly cancelledAt?: string;
  /** When the job found its owner's slots taken and waited as `queued` (ISO). */
  readonly queuedAt?: string;
  /** The job holds one of its owner's slots (owner-slots.ts): set as it starts, removed as it stops. */
  readonly holdsSlot?: boolean;
  /**
   * The owner's daily spend cap (micro-dollars) intake admitted the job against; absent: none.
   * A start from the queue counts against it too (owner-spend.ts).
   */
  readonly spendCap?: number;
  /** The job takes no slot when it starts: intake admitted it against a spend cap alone. */
  readonly slotless?: boolean;
  /** The UTC day (`yyyy-mm-dd`) whose spending the job counts on, from its start. */
  readonly spendDay?: string;
  /** What the job counted on its day as it started: the most it may spend (`spendBoundOf`). */
  readonly spendBound?: number;
  /** When its count was replaced by what it spent (`spendSettled`, the ledger's figure at its end). */
  readonly spendSettledAt?: string;
  readonly spendSettled?: number;
  /** Why a queued job waits, with the figures (its owner's day spent, say); removed as it starts. */
  readonly waitingFor?: string;
  /** Set when a chunk found no room left under the ceiling; no allotment is taken after it. */
  readonly budgetExceededAt?: string;
  /** Every chunk message has been sent; a repeated S3 event is then a no-op. */
  readonly fanoutCompletedAt?: string;
  readonly finalizeEnqueuedAt?: string;
  /** When the sweeper last sent finalize again for a job that stayed unfinalized (ISO). */
  readonly finalizeResentAt?: string;
  readonly finalizedAt?: string;
  readonly reportKey?: string;
  readonly htmlReportKey?: string;
  /** report.docx: the contract with a comment on each clause at medium risk or above. */
  readonly docxReportKey?: string;
  /** When `clause-review purge` deleted the job's document, work files, report and other items. */
  readonly purgedAt?: string;
  /** What that purge deleted: object versions and delete markers, and state-table items. */
  readonly purge?: { readonly objects: number; readonly items: number };
  /** When the job was last paused (ISO); removed on resume. */
  readonly pausedAt?: string;
  /** Who paused it (an ARN, or `request`). */
  readonly pausedBy?: string;
  /** Milliseconds the job has spent paused, over every pause; its deadline moved by as much. */
  readonly pausedMs?: number;
  /** Findings at or above this risk wait for a reviewer (absent or `none`: no gate). */
  readonly gate?: ReviewGate;
  /** How long a review may take before the report is written without it. */
  readonly reviewHours?: number;
  /** Set when the job went to `awaiting_review`, with the review deadline (epoch ms) and the findings gated. */
  readonly reviewStartedAt?: string;
  readonly reviewDeadline?: number;
  /** What the review holds: findings at the gate's risk, escalated findings and proposed redlines. */
  readonly gatedFindings?: number;
  /** The groups an escalated finding of the review waits for: their members see the job and decide those. */
  readonly approverGroups?: readonly string[];
  /** The contract's parties, and whose side a review against a playbook takes. */
  readonly parties?: JobParties;
  /** Every gated finding has a decision: finalize writes the report. */
  readonly reviewCompletedAt?: string;
  /** The review deadline passed: the report is written with undecided findings `unreviewed`. */
  readonly reviewExpiredAt?: string;
}

/** What intake records of a document once it has read it: the job's plan, with its quote. */
export type JobPlan = Pick<
  Job,
  'chunkCount' | 'clauseCount' | 'callsPlanned' | 'sha256' | 'bytes' | 'format'
> &
  Partial<Pick<Job, 'quote'>>;

/** What intake knows when it creates a job. */
export type NewJob = Pick<
  Job,
  'jobId' | 'lane' | 'bucket' | 'key' | 'analysts' | 'ceilingMicros' | 'deadline'
> &
  Partial<Pick<Job, 'versionId' | 'etag' | 'sha256' | 'bytes' | 'format' | 'models' | 'owner' | 'gate'>> &
  Partial<Pick<Job, 'reviewHours' | 'playbook' | 'contractType'>>;

/**
 * A job item as read from the table. An item written before the ceiling had one name holds it
 * as `costLimit`; it is read as `ceilingMicros`, so that jobs in flight across the deploy that
 * renamed it keep their ceiling (read for one release).
 */
export function jobFromItem<T extends object | undefined>(item: T): T {
  if (!item || !('costLimit' in item) || 'ceilingMicros' in item) return item;
  const { costLimit, ...rest } = item as T & { costLimit: unknown };
  return { ...rest, ceilingMicros: costLimit } as unknown as T;
}

/**
 * The job a refused write sent back (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`), so no
 * read follows a refusal; a refusal with no item means there is no such job.
 * @throws JobNotFoundError when there is none
 */
export function refusedJob(jobId: string, item: object | undefined): Job {
  if (!item) throw new JobNotFoundError(jobId);
  return jobFromItem(item as Job);
}
