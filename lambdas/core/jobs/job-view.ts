/** What a job looks like to the person who asked for it: GET /jobs/{id} and the report links. */

import type { Lane } from '../clause.js';
import type { ContractType, JobParties, JobPlaybook, NotAskedAnalyst } from '../playbooks/index.js';
import type { Job, JobStatus, ReviewGate } from '../state/job.js';
import type { JobRejection } from '../state/job-rejections.js';
import { usd } from './submission.js';

/** What GET /jobs/{id} answers. */
export interface JobView {
  readonly jobId: string;
  readonly submissionId?: string;
  /** The job's status; `queued` also while its upload waits for intake. */
  readonly status: JobStatus;
  /** True once the job has ended and nothing about it changes any more. */
  readonly finished: boolean;
  readonly reportReady: boolean;
  readonly lane?: Lane;
  readonly document: {
    readonly bucket: string;
    readonly key: string;
    readonly versionId?: string;
    /** The upload's length, once intake has read it or refused it by its length. */
    readonly bytes?: number;
  };
  /** The playbook the job is reviewed against (name, version, hash, title); absent: the generic review. */
  readonly playbook?: JobPlaybook;
  /** With a playbook: the contract type whose topics apply, and where it came from. */
  readonly contractType?: ContractType;
  /** With a playbook: the analysts it gave nothing to judge, not asked, and why. */
  readonly notAsked?: readonly NotAskedAnalyst[];
  /**
   * Once intake has read the contract: its parties as the preamble names them and, with a
   * playbook, the one the review is for and how it was chosen (or why none could be).
   */
  readonly parties?: JobParties;
  readonly progress: {
    readonly chunksTerminal: number;
    readonly chunksDone: number;
    readonly chunksTotal: number;
    readonly clauses: number;
    /** Pairs of clause and analyst of the selection; those screened are not asked. */
    readonly callsPlanned: number;
    /** Planned pairs the relevance screen does not ask. */
    readonly callsScreened: number;
  };
  readonly cost: {
    readonly spentMicros: number;
    readonly reservedMicros: number;
    readonly ceilingMicros: number;
    readonly spentUsd: number;
    readonly ceilingUsd: number;
    /** What intake quoted before any call, once it has read the document. */
    readonly quote?: {
      readonly expectedUsd: number;
      readonly worstCaseUsd: number;
      /** The calls a playbook left out (clauses × analysts not asked) and what they would have cost. */
      readonly notAsked?: { readonly calls: number; readonly expectedUsd: number };
      /** The pairs the relevance screen leaves out and what those calls would have cost. */
      readonly screened?: { readonly calls: number; readonly expectedUsd: number };
      /** Compute beside the model calls on each lane, which cost the same on both. */
      readonly computeUsd?: { readonly realtime: number; readonly batch: number };
    };
  };
  readonly reason?: string;
  /** While queued: why it waits, with the figures (its owner's running jobs, or its owner's day). */
  readonly waitingFor?: string;
  /** Why a rejected job was refused, as a stable code (`too-large`, `too-complex`, …). */
  readonly rejection?: JobRejection;
  readonly createdAt?: string;
  readonly updatedAt?: string;
  readonly cancelledAt?: string;
  readonly finalizedAt?: string;
  /** When the job's document, work files and report were deleted (`clause-review purge`). */
  readonly purgedAt?: string;
  /** While paused: since when, and by whom. */
  readonly pausedAt?: string;
  readonly pausedBy?: string;
  /** A job with a review gate: the gate, and once findings are held, the review's progress. */
  readonly review?: {
    readonly gate: ReviewGate;
    readonly startedAt?: string;
    readonly deadline?: string;
    /** What the review holds: findings at the gate's risk, escalated findings and proposed redlines. */
    readonly gatedFindings?: number;
    /** The approver groups escalated findings wait for (a playbook's). */
    readonly approverGroups?: readonly string[];
    readonly completedAt?: string;
    readonly expiredAt?: string;
  };
}

/** What GET /jobs/{id}/report answers. */
export interface ReportLinks {
  readonly jobId: string;
  readonly status: JobStatus;
  readonly json: { readonly key: string; readonly url: string };
  readonly html: { readonly key: string; readonly url: string };
  /** report.docx (absent for jobs finalized before it was written). */
  readonly docx?: { readonly key: string; readonly url: string };
  readonly expiresAt: string;
}

/** An upload intake has not read yet. */
export interface QueuedUpload {
  readonly jobId: string;
  readonly submissionId: string;
  readonly bucket: string;
  readonly key: string;
  readonly versionId?: string;
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function reviewView(job: Job): NonNullable<JobView['review']> {
  const fields = {
    startedAt: job.reviewStartedAt,
    deadline: iso(job.reviewDeadline),
    gatedFindings: job.gatedFindings,
    approverGroups: job.approverGroups,
    completedAt: job.reviewCompletedAt,
    expiredAt: job.reviewExpiredAt,
  };
  return {
    gate: job.gate ?? 'none',
    ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
  };
}

/** The view of an upload waiting for intake: nothing planned, nothing spent. */
export function queuedView(upload: QueuedUpload): JobView {
  return {
    jobId: upload.jobId,
    submissionId: upload.submissionId,
    status: 'queued',
    finished: false,
    reportReady: false,
    document: {
      bucket: upload.bucket,
      key: upload.key,
      ...(upload.versionId ? { versionId: upload.versionId } : {}),
    },
    progress: {
      chunksTerminal: 0,
      chunksDone: 0,
      chunksTotal: 0,
      clauses: 0,
      callsPlanned: 0,
      callsScreened: 0,
    },
    cost: { spentMicros: 0, reservedMicros: 0, ceilingMicros: 0, spentUsd: 0, ceilingUsd: 0 },
    reason: 'uploaded; waiting for intake to read the document',
  };
}

/** Calls and what they would have cost, in dollars. */
const callsView = (c: { readonly calls: number; readonly expectedMicros: number }) => ({
  calls: c.calls,
  expectedUsd: usd(c.expectedMicros),
});

/** A quote's compute per lane, in dollars. */
export const computeView = (c: { readonly realtime: number; readonly batch: number }) => ({
  realtime: usd(c.realtime),
  batch: usd(c.batch),
});

function costView(job: Job): JobView['cost'] {
  return {
    spentMicros: job.costSpent,
    reservedMicros: job.costReserved,
    ceilingMicros: job.ceilingMicros,
    spentUsd: usd(job.costSpent),
    ceilingUsd: usd(job.ceilingMicros),
    ...(job.quote
      ? {
          quote: {
            expectedUsd: usd(job.quote.expectedMicros),
            worstCaseUsd: usd(job.quote.worstCaseMicros),
            ...(job.quote.notAsked ? { notAsked: callsView(job.quote.notAsked) } : {}),
            ...(job.quote.screened ? { screened: callsView(job.quote.screened) } : {}),
            ...(job.quote.compute ? { computeUsd: computeView(job.quote.compute) } : {}),
          },
        }
      : {}),
  };
}

/** The view of a job, with the submission id it was asked for by, if any. */
export function jobView(job: Job, submissionId?: string): JobView {
  return {
    jobId: job.jobId,
    ...(submissionId ? { submissionId } : {}),
    status: job.status,
    finished: job.finalizedAt !== undefined,
    reportReady: job.reportKey !== undefined && job.htmlReportKey !== undefined,
    lane: job.lane,
    document: {
      bucket: job.bucket,
      key: job.key,
      ...(job.versionId ? { versionId: job.versionId } : {}),
      ...(job.bytes !== undefined ? { bytes: job.bytes } : {}),
    },
    ...(job.playbook ? { playbook: job.playbook } : {}),
    ...(job.contractType ? { contractType: job.contractType } : {}),
    ...(job.notAsked ? { notAsked: job.notAsked } : {}),
    ...(job.parties ? { parties: job.parties } : {}),
    progress: {
      chunksTerminal: job.chunksTerminal,
      chunksDone: job.chunksDone,
      chunksTotal: job.chunkCount,
      clauses: job.clauseCount,
      callsPlanned: job.callsPlanned,
      callsScreened: job.callsScreened ?? 0,
    },
    cost: costView(job),
    ...(job.reason ? { reason: job.reason } : {}),
    ...(job.status === 'queued' && job.waitingFor ? { waitingFor: job.waitingFor } : {}),
    ...(job.rejection ? { rejection: job.rejection } : {}),
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    ...(job.cancelledAt ? { cancelledAt: job.cancelledAt } : {}),
    ...(job.finalizedAt ? { finalizedAt: job.finalizedAt } : {}),
    ...(job.purgedAt ? { purgedAt: job.purgedAt } : {}),
    ...(job.pausedAt ? { pausedAt: job.pausedAt, ...(job.pausedBy ? { pausedBy: job.pausedBy } : {}) } : {}),
    ...((job.gate && job.gate !== 'none') || job.reviewStartedAt ? { review: reviewView(job) } : {}),
  };
}
