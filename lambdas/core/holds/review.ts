import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendFinalize } from '../finalize-queue.js';
import type { RedlineDecision, RedlineDecisionRecord } from '../playbooks/index.js';
import type { Report } from '../report-types.js';
import type { Job, ReviewGate } from '../state/job.js';
import { storesOf } from '../stores.js';
import { type Decision, latestDecisions, ReviewTrail } from './decisions.js';
import { HoldStateError } from './errors.js';
import { type GatedFinding, gatedFindings, significantFindings } from './findings.js';
import {
  type DecisionRights,
  type EscalatedFinding,
  type HeldRedline,
  playbookHolds,
} from './playbook-holds.js';
import { latestRedlineDecisions, RedlineTrail, redlineDecisionOf } from './redline-trail.js';

/** What reviews read and write. */
export interface ReviewDeps {
  readonly db: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  readonly tableName: string;
  readonly resultsBucket: string;
  /** Where reports go (`reports/`); a job's held findings are kept beside its report. */
  readonly resultsPrefix: string;
  readonly finalizeQueueUrl: string;
  readonly now?: () => number;
}

/**
 * What is kept of a review while it waits: the gate and the findings at its risk it holds, and
 * in a review against a playbook the escalated findings (each for its approver group) and the
 * proposed redlines.
 */
export interface HeldFindings {
  readonly gate: ReviewGate;
  readonly findings: readonly GatedFinding[];
  readonly escalations?: readonly EscalatedFinding[];
  readonly redlines?: readonly HeldRedline[];
}

/** How many held items have no decision yet: findings, escalations and redlines. */
export function undecidedCount(
  held: HeldFindings,
  trail: readonly Pick<Decision, 'findingId'>[],
  redlineTrail: readonly Pick<RedlineDecisionRecord, 'redlineId'>[],
): number {
  const decided = new Set(trail.map((d) => d.findingId));
  const decidedRedlines = new Set(redlineTrail.map((r) => r.redlineId));
  return (
    held.findings.filter((f) => !decided.has(f.id)).length +
    (held.escalations ?? []).filter((e) => !decided.has(e.id)).length +
    (held.redlines ?? []).filter((r) => !decidedRedlines.has(r.id)).length
  );
}

/** How many items a review holds. */
export const heldCount = (held: HeldFindings) =>
  held.findings.length + (held.escalations?.length ?? 0) + (held.redlines?.length ?? 0);

/** Where a job's held findings are kept while its review is open. */
export const findingsKey = (prefix: string, jobId: string) => `${prefix}${jobId}/findings.json`;

/** Stores the findings a gate holds, before the job goes to `awaiting_review`. */
export async function storeHeldFindings(
  deps: Pick<ReviewDeps, 's3' | 'resultsBucket' | 'resultsPrefix'>,
  jobId: string,
  held: HeldFindings,
): Promise<void> {
  await deps.s3.send(
    new PutObjectCommand({
      Bucket: deps.resultsBucket,
      Key: findingsKey(deps.resultsPrefix, jobId),
      Body: JSON.stringify(held),
      ContentType: 'application/json',
    }),
  );
}

/** The findings held for a job's review. */
export async function readHeldFindings(
  deps: Pick<ReviewDeps, 's3' | 'resultsBucket' | 'resultsPrefix'>,
  jobId: string,
): Promise<HeldFindings> {
  const r = await deps.s3.send(
    new GetObjectCommand({ Bucket: deps.resultsBucket, Key: findingsKey(deps.resultsPrefix, jobId) }),
  );
  return JSON.parse((await r.Body?.transformToString()) ?? '{}') as HeldFindings;
}

/** A decision as the listings show it. */
type ShownDecision = Pick<Decision, 'verdict' | 'score' | 'by' | 'bySub' | 'byName' | 'at' | 'note'>;

/**
 * A finding as `findings` lists it: what the panel found, whether the gate holds it, the decision
 * in force, and whether the caller may decide it.
 */
export type ListedFinding = GatedFinding & {
  readonly gated: boolean;
  readonly decision?: ShownDecision;
  readonly mayDecide: boolean;
};

/** An escalated finding as `findings` lists it: for its approver group to decide. */
export type ListedEscalation = EscalatedFinding & {
  readonly decision?: ShownDecision;
  readonly mayDecide: boolean;
};

/** A proposed redline as `findings` lists it, with the decision in force (`proposed`: none yet). */
export type ListedRedline = HeldRedline & {
  readonly decision: RedlineDecision;
  readonly mayDecide: boolean;
};

/** What `findings` answers. */
export interface FindingsView {
  readonly jobId: string;
  readonly status: Job['status'];
  readonly gate: ReviewGate;
  readonly reviewDeadline?: string;
  readonly findings: readonly ListedFinding[];
  /** Findings a playbook escalates, each held for its approver group (empty without a playbook). */
  readonly escalations: readonly ListedEscalation[];
  /** Proposed redlines (empty without a playbook). */
  readonly redlines: readonly ListedRedline[];
  /** Held findings, escalations and redlines with no decision yet. */
  readonly undecided: number;
  /**
   * True when the caller submitted the job and the stack keeps owners from deciding its
   * escalations: another member of the group, or another administrator, decides them.
   */
  readonly ownJob?: true;
}

/** What a job's review holds, or once its report is written, what the report has to show. */
async function listedItems(job: Job, deps: ReviewDeps) {
  const gate = job.gate ?? 'none';
  if (job.reviewStartedAt) {
    const held = await readHeldFindings(deps, job.jobId);
    return {
      held,
      findings: held.findings.map((finding) => ({ finding, gated: true })),
      escalations: held.escalations ?? [],
      redlines: held.redlines ?? [],
    };
  }
  if (job.reportKey) {
    const r = await deps.s3.send(new GetObjectCommand({ Bucket: deps.resultsBucket, Key: job.reportKey }));
    const report = JSON.parse((await r.Body?.transformToString()) ?? '{}') as Report;
    const gatedIds = new Set(gatedFindings(report, gate === 'none' ? 'high' : gate).map((f) => f.id));
    const { escalations, redlines } = playbookHolds(report);
    return {
      findings: significantFindings(report).map((finding) => ({ finding, gated: gatedIds.has(finding.id) })),
      escalations,
      redlines,
    };
  }
  throw new HoldStateError(
    `job ${job.jobId} is ${job.status}: its findings are listed once a review gate holds them or its report is written`,
    job.jobId,
    job.status,
  );
}

const shown = (d: Decision | undefined): { decision?: ShownDecision } =>
  d
    ? {
        decision: {
          verdict: d.verdict,
          score: d.score,
          by: d.by,
          bySub: d.bySub,
          byName: d.byName,
          at: d.at,
          note: d.note,
        },
      }
    : {};

/**
 * A job's findings: the held ones while its review is open, or, once its report is written,
 * every clause category the panel scored significant or severe (those a `high` gate would
 * hold are marked gated); beside them, in a review against a playbook, its escalated findings
 * and proposed redlines. `rights` says what the caller may decide. `gatedOnly` keeps the gated
 * findings.
 * @throws HoldStateError while the job has neither an open review nor a report
 */
export async function listFindings(
  job: Job,
  deps: ReviewDeps,
  rights: DecisionRights,
  gatedOnly = false,
): Promise<FindingsView> {
  const items = await listedItems(job, deps);
  const [trail, redlineTrail] = job.reviewStartedAt
    ? await Promise.all([
        new ReviewTrail(deps.db, deps.tableName).list(job.jobId),
        new RedlineTrail(deps.db, deps.tableName).list(job.jobId),
      ])
    : [[], []];
  const latest = latestDecisions(trail);
  const latestRedlines = latestRedlineDecisions(redlineTrail);
  const open = isOpen(job);
  const findings = items.findings
    .filter((l) => !gatedOnly || l.gated)
    .map(({ finding, gated }) => ({
      ...finding,
      gated,
      ...shown(latest.get(finding.id)),
      mayDecide: open && gated && rights.reviewer,
    }));
  const escalations = items.escalations.map((e) => ({
    ...e,
    ...shown(latest.get(e.id)),
    mayDecide: open && rights.approves(e.escalation.group),
  }));
  const redlines = items.redlines.map((r) => ({
    ...r,
    decision: redlineDecisionOf(r.clause.text, latestRedlines.get(r.id)),
    mayDecide: open && rights.reviewer,
  }));
  return {
    jobId: job.jobId,
    status: job.status,
    gate: job.gate ?? 'none',
    ...(job.reviewDeadline ? { reviewDeadline: new Date(job.reviewDeadline).toISOString() } : {}),
    findings,
    escalations,
    redlines,
    undecided: 'held' in items && items.held ? undecidedCount(items.held, trail, redlineTrail) : 0,
    ...(rights.ownJob ? { ownJob: true as const } : {}),
  };
}

/** Whether the job's review takes decisions. */
function isOpen(job: Job): boolean {
  return job.status === 'awaiting_review' && !job.reviewCompletedAt && !job.reviewExpiredAt;
}

/** @throws HoldStateError unless the job's review is open */
export function checkOpen(job: Job): void {
  if (isOpen(job)) return;
  const why =
    job.status === 'awaiting_review'
      ? `its review closed at ${job.reviewCompletedAt ?? job.reviewExpiredAt}`
      : `it is ${job.status}, not awaiting review`;
  throw new HoldStateError(`job ${job.jobId} takes no decisions: ${why}`, job.jobId, job.status);
}

/**
 * Closes the review once nothing it holds waits for a decision, and sends finalize; the trails
 * are read again after this request's decisions were appended, so of two requests deciding the
 * last two items at once, the later one sees both.
 */
export async function closeIfDecided(
  job: Job,
  held: HeldFindings,
  deps: ReviewDeps,
): Promise<{ undecided: number; reviewClosed: boolean }> {
  const [trail, redlineTrail] = await Promise.all([
    new ReviewTrail(deps.db, deps.tableName).list(job.jobId),
    new RedlineTrail(deps.db, deps.tableName).list(job.jobId),
  ]);
  const undecided = undecidedCount(held, trail, redlineTrail);
  let reviewClosed = false;
  if (undecided === 0) {
    reviewClosed = await storesOf(deps).holds.closeReview(job.jobId, 'completed');
    if (reviewClosed) await sendFinalize(deps, job.jobId);
  }
  return { undecided, reviewClosed };
}
