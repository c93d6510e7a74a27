import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { applyReview } from '../holds/apply.js';
import { ReviewTrail } from '../holds/decisions.js';
import { gatedFindings } from '../holds/findings.js';
import { approverGroupsOf, playbookHolds } from '../holds/playbook-holds.js';
import { RedlineTrail } from '../holds/redline-trail.js';
import { type HeldFindings, heldCount, readHeldFindings, storeHeldFindings } from '../holds/review.js';
import { startQueued } from '../intake/admission.js';
import { documentKey, type StoredDocument } from '../intake/intake.js';
import type { Lane } from '../lanes-and-limits.js';
import type { Playbook } from '../playbooks/index.js';
import type { Report } from '../report-types.js';
import { type CallLedger, type CallOutcome, outcomeOf } from '../state/call-ledger.js';
import type { Checkpoint } from '../state/checkpoint.js';
import type { Job } from '../state/job.js';
import { OwnerSpend } from '../state/owner-spend.js';
import { storesOf } from '../stores.js';
import { buildReport } from './build-report.js';
import { type DocxOutcome, reportDocx, withDocxOutcome } from './docx-output.js';
import { withNegotiationDocx } from './negotiation-report.js';
import { REPORT_CONTENT_TYPES } from './report-files.js';
import { renderReportHtml } from './report-html.js';

/** What finalize needs. */
export interface FinalizeDeps {
  readonly db: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly tableName: string;
  readonly resultsBucket: string;
  readonly resultsPrefix: string;
  /** Shown at the top of the report (the local runtime says its answers are heuristic). */
  readonly notice?: string;
  /**
   * The lane queues: a job that stops running gives back its owner's slot, and finalize starts
   * the owner's oldest queued job. @default none: the sweeper starts it
   */
  readonly starter?: { readonly sqs: SQSClient; readonly laneQueueUrls: Readonly<Record<Lane, string>> };
  readonly now?: () => number;
}

/**
 * Starts the owner's next queued job, once the status change of a job that held a slot gave it
 * back, or its spending settled for less than it counted on its owner's day.
 */
async function startNext(job: Job, deps: FinalizeDeps): Promise<void> {
  if (deps.starter && (job.holdsSlot || job.spendDay))
    await startQueued(job.owner, { ...deps, ...deps.starter });
}

/** Where a job's reports go. */
export function reportKeys(prefix: string, jobId: string): { json: string; html: string; docx: string } {
  return {
    json: `${prefix}${jobId}/report.json`,
    html: `${prefix}${jobId}/report.html`,
    docx: `${prefix}${jobId}/report.docx`,
  };
}

/**
 * Writes report.json, report.html and report.docx and moves the job to its terminal status. Idempotent:
 * a finalized job is left alone, and the report is rewritten identically if a previous
 * attempt died between writing it and recording the status.
 */
export async function finalizeJob(
  jobId: string,
  deps: FinalizeDeps,
): Promise<{
  finalized: boolean;
  report?: Report;
  keys?: { json: string; html: string; docx: string };
  /** How report.docx was made (in the upload, or a generated document), and its comments. */
  docx?: DocxOutcome;
  /** Findings a review gate holds: the job waits in `awaiting_review` and gets no report yet. */
  awaitingReview?: number;
}> {
  const now = deps.now ?? Date.now;
  const { jobs, claims, ledger: callLedger } = storesOf(deps);
  const job = await jobs.get(jobId);
  // Every chunk has ended: what the job spent is the ledger's figure from here on, in place of
  // what it counted on its owner's day as it started (once; a repeat, or a retry after the
  // report, settles nothing more).
  await new OwnerSpend(deps.db, deps.tableName, now).settle(job);
  if (job.finalizedAt) return { finalized: false };
  const stored = await deps.s3.send(
    new GetObjectCommand({ Bucket: deps.resultsBucket, Key: documentKey(jobId) }),
  );
  const doc = JSON.parse((await stored.Body?.transformToString()) ?? '{}') as StoredDocument;
  const checkpoints = await claims.list(jobId);
  const ledger = await callOutcomes(jobId, doc, checkpoints, callLedger);
  const finalizedAt = new Date(now()).toISOString();
  let report = buildReport(
    job,
    doc,
    checkpoints,
    ledger,
    finalizedAt,
    deps.notice,
    await playbookOf(job, deps),
  );
  const review = await reviewStep(job, report, deps);
  if (review.kind === 'hold') {
    await startNext(job, deps);
    return { finalized: false, awaitingReview: review.held };
  }
  if (review.kind === 'reviewed') report = review.report;
  const keys = reportKeys(deps.resultsPrefix, jobId);
  const docx = await reportDocx(deps.s3, job, doc, report);
  report = withNegotiationDocx(withDocxOutcome(report, docx.outcome), docx.outcome.negotiation);
  await Promise.all([
    deps.s3.send(
      new PutObjectCommand({
        Bucket: deps.resultsBucket,
        Key: keys.docx,
        Body: docx.bytes,
        ContentType: REPORT_CONTENT_TYPES.docx,
      }),
    ),
    deps.s3.send(
      new PutObjectCommand({
        Bucket: deps.resultsBucket,
        Key: keys.json,
        Body: JSON.stringify(report, null, 1),
        ContentType: REPORT_CONTENT_TYPES.json,
      }),
    ),
    deps.s3.send(
      new PutObjectCommand({
        Bucket: deps.resultsBucket,
        Key: keys.html,
        Body: renderReportHtml(report),
        ContentType: REPORT_CONTENT_TYPES.html,
      }),
    ),
  ]);
  const finished = await jobs.finish(
    jobId,
    report.job.status,
    {
      ...(report.job.reason ? { reason: report.job.reason } : {}),
      reportKey: keys.json,
      htmlReportKey: keys.html,
      docxReportKey: keys.docx,
    },
    job.status === 'cancelled' ? ['cancelled'] : ['running', 'awaiting_review'],
  );
  if (!finished && job.status !== 'cancelled') {
    // Cancelled between the read above and this write: the job's only finalize message is this
    // one (the cancel found finalize already enqueued), so the report is made again, as cancelled.
    const now = await jobs.find(jobId);
    if (now?.status === 'cancelled' && !now.finalizedAt) return finalizeJob(jobId, deps);
  }
  await startNext(job, deps);
  return { finalized: finished, report, keys, docx: docx.outcome };
}

/** The content of a job's playbook, as its content hash names it; undefined without a playbook. */
async function playbookOf(job: Job, deps: FinalizeDeps): Promise<Playbook | undefined> {
  if (!job.playbook) return undefined;
  return storesOf(deps).playbooks.forJob(job.playbook);
}

/** Chunk ledgers read at once for chunks whose checkpoints do not carry their outcomes. */
const LEDGER_READS = 8;

/**
 * Where every call of the job ended. A consolidated chunk's checkpoint carries its outcomes as
 * consolidate read them from the chunk's ledger, once every call of the chunk had ended (only
 * a lease holder writes a chunk's ledger, and none is left once it is done); the chunks that
 * ended otherwise (cancelled, unfinished) are read from the ledger here, one Query each. So a
 * long job's finalize reads its checkpoints instead of every ledger entry with its answer, a
 * strongly consistent read paged 1 MB at a time (Verizon's 8,382 entries: a dozen pages).
 */
async function callOutcomes(
  jobId: string,
  doc: StoredDocument,
  checkpoints: readonly Checkpoint[],
  ledger: CallLedger,
): Promise<CallOutcome[]> {
  const recorded = new Map<number, CallOutcome[]>();
  for (const cp of checkpoints) {
    if (cp.stage === 'consolidate' && cp.status === 'done' && cp.outcomes) {
      recorded.set(cp.chunk, JSON.parse(cp.outcomes) as CallOutcome[]);
    }
  }
  const unread = doc.chunks.map((c) => c.index).filter((chunk) => !recorded.has(chunk));
  for (let i = 0; i < unread.length; i += LEDGER_READS) {
    await Promise.all(
      unread.slice(i, i + LEDGER_READS).map(async (chunk) => {
        recorded.set(chunk, [...(await ledger.forChunk(jobId, chunk)).values()].map(outcomeOf));
      }),
    );
  }
  return [...recorded.values()].flat();
}

/** What the review gate makes of a job about to be reported. */
type ReviewStep =
  | { readonly kind: 'none' }
  /** Held for a reviewer (`held` findings), or a stray finalize while the review is open: no report yet. */
  | { readonly kind: 'hold'; readonly held: number }
  | { readonly kind: 'reviewed'; readonly report: Report };

/**
 * A running job whose gate holds findings goes to `awaiting_review` instead of its report: the
 * findings at the gate's risk and, in a review against a playbook, every escalated finding (for
 * its approver group) and every proposed redline. One whose review has closed (decided, expired
 * or cancelled) gets its report with the decisions applied.
 */
async function reviewStep(job: Job, report: Report, deps: FinalizeDeps): Promise<ReviewStep> {
  if (job.reviewStartedAt) {
    const open = job.status === 'awaiting_review' && !job.reviewCompletedAt && !job.reviewExpiredAt;
    if (open) return { kind: 'hold', held: job.gatedFindings ?? 0 };
    const [held, trail, redlineTrail] = await Promise.all([
      readHeldFindings(deps, job.jobId),
      new ReviewTrail(deps.db, deps.tableName).list(job.jobId),
      new RedlineTrail(deps.db, deps.tableName).list(job.jobId),
    ]);
    return { kind: 'reviewed', report: applyReview(report, job, held, trail, redlineTrail) };
  }
  const gate = job.gate ?? 'none';
  if (job.status !== 'running') return { kind: 'none' };
  const holds = playbookHolds(report);
  // A playbook's escalations wait for their approvers whatever the gate: the gate says which
  // risk findings the job's own reviewer decides, not whether a fallback needs its approver.
  const { escalations } = holds;
  const redlines = gate === 'none' ? [] : holds.redlines;
  const held: HeldFindings = {
    gate,
    findings: gate === 'none' ? [] : gatedFindings(report, gate),
    ...(escalations.length > 0 ? { escalations } : {}),
    ...(redlines.length > 0 ? { redlines } : {}),
  };
  const count = heldCount(held);
  if (count === 0) return { kind: 'none' };
  await storeHeldFindings(deps, job.jobId, held);
  const flip = await storesOf(deps).holds.awaitReview(job, count, approverGroupsOf(escalations));
  // Not changed: a repeated finalize found the review open already, or a cancel got there
  // first; that job's finalize is sent again by the sweeper and reports it as cancelled.
  return { kind: 'hold', held: flip.changed ? count : 0 };
}
