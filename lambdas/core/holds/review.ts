import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Score } from '../analysts/tool-schema.js';
import { sendFinalize } from '../finalize/enqueue.js';
import type { Report } from '../finalize/report-types.js';
import { JobHolds } from '../state/job-holds.js';
import type { Job, ReviewGate } from '../state/jobs.js';
import { reviewOf } from './apply.js';
import { type Decision, ReviewTrail, type Verdict } from './decisions.js';
import { DecisionError, HoldStateError } from './errors.js';
import { type GatedFinding, gatedFindings, significantFindings } from './findings.js';

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

/** What is kept of a review while it waits: the gate and the findings it holds. */
export interface HeldFindings {
  readonly gate: ReviewGate;
  readonly findings: readonly GatedFinding[];
}

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

/** A finding as `findings` lists it: what the panel found, whether the gate holds it, and the decision in force. */
export type ListedFinding = GatedFinding & {
  readonly gated: boolean;
  readonly decision?: Pick<Decision, 'verdict' | 'score' | 'by' | 'bySub' | 'byName' | 'at' | 'note'>;
};

/** What `findings` answers. */
export interface FindingsView {
  readonly jobId: string;
  readonly status: Job['status'];
  readonly gate: ReviewGate;
  readonly reviewDeadline?: string;
  readonly findings: readonly ListedFinding[];
  /** Gated findings with no decision yet. */
  readonly undecided: number;
}

/**
 * A job's findings: the held ones while its review is open, or, once its report is written,
 * every clause category the panel scored significant or severe (those a `high` gate would
 * hold are marked gated). `gatedOnly` keeps the gated ones.
 * @throws HoldStateError while the job has neither an open review nor a report
 */
export async function listFindings(job: Job, deps: ReviewDeps, gatedOnly = false): Promise<FindingsView> {
  const gate = job.gate ?? 'none';
  let listed: { finding: GatedFinding; gated: boolean }[];
  if (job.reviewStartedAt) {
    const held = await readHeldFindings(deps, job.jobId);
    listed = held.findings.map((finding) => ({ finding, gated: true }));
  } else if (job.reportKey) {
    const r = await deps.s3.send(new GetObjectCommand({ Bucket: deps.resultsBucket, Key: job.reportKey }));
    const report = JSON.parse((await r.Body?.transformToString()) ?? '{}') as Report;
    const held = new Set(gatedFindings(report, gate === 'none' ? 'high' : gate).map((f) => f.id));
    listed = significantFindings(report).map((finding) => ({ finding, gated: held.has(finding.id) }));
  } else {
    throw new HoldStateError(
      `job ${job.jobId} is ${job.status}: its findings are listed once a review gate holds them or its report is written`,
      job.jobId,
      job.status,
    );
  }
  const trail = job.reviewStartedAt ? await new ReviewTrail(deps.db, deps.tableName).list(job.jobId) : [];
  const reviews = new Map(
    reviewOf(
      listed.map((l) => l.finding),
      trail,
    ).map((r) => [r.findingId, r]),
  );
  const latest = new Map(trail.map((d) => [d.findingId, d]));
  const findings = listed
    .filter((l) => !gatedOnly || l.gated)
    .map(({ finding, gated }) => {
      const d = latest.get(finding.id);
      return {
        ...finding,
        gated,
        ...(d
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
          : {}),
      };
    });
  return {
    jobId: job.jobId,
    status: job.status,
    gate,
    ...(job.reviewDeadline ? { reviewDeadline: new Date(job.reviewDeadline).toISOString() } : {}),
    findings,
    undecided: job.reviewStartedAt
      ? [...reviews.values()].filter((r) => r.decision === 'unreviewed').length
      : 0,
  };
}

/** A reviewer's request: one verdict on some findings, or on every gated finding still undecided. */
export interface DecisionRequest {
  readonly findings: readonly string[] | 'all-undecided';
  readonly verdict: Verdict;
  readonly score?: number;
  readonly note?: string;
}

/** What a decision request did. */
export interface DecisionOutcome {
  readonly recorded: readonly Decision[];
  /** Gated findings still without a decision. */
  readonly undecided: number;
  /** True when this request decided the last finding: the report is being written. */
  readonly reviewClosed: boolean;
}

/** Longest reviewer note kept. */
export const MAX_NOTE_CHARS = 2000;

/** The person behind a decision, when they signed in through the user pool. */
export interface DecidingPerson {
  /** The user pool's permanent id of them. */
  readonly sub?: string;
  /** The name the pool vouches for (a verified email, or the user name). */
  readonly name?: string;
}

/**
 * Records a reviewer's decisions on a job awaiting review, appended to its trail with the
 * deciding principal (and the person's `sub` and vouched-for name, when they signed in through
 * the user pool) and the time. When every gated finding has a decision, the review
 * closes (once, whoever gets there first) and finalize is sent.
 * @throws HoldStateError when the job is not awaiting review, or its review has closed
 * @throws DecisionError for an unknown finding, or a score missing, out of 0–3, or not asked for
 */
export async function decide(
  job: Job,
  request: DecisionRequest,
  by: string,
  deps: ReviewDeps,
  person: DecidingPerson = {},
): Promise<DecisionOutcome> {
  const now = deps.now ?? Date.now;
  if (job.status !== 'awaiting_review' || job.reviewCompletedAt || job.reviewExpiredAt) {
    const why =
      job.status === 'awaiting_review'
        ? `its review closed at ${job.reviewCompletedAt ?? job.reviewExpiredAt}`
        : `it is ${job.status}, not awaiting review`;
    throw new HoldStateError(`job ${job.jobId} takes no decisions: ${why}`, job.jobId, job.status);
  }
  const score = checkScore(job.jobId, request);
  const held = await readHeldFindings(deps, job.jobId);
  const trail = new ReviewTrail(deps.db, deps.tableName);
  const before = await trail.list(job.jobId);
  const ids = targetIds(job.jobId, request, held.findings, before);
  const at = new Date(now()).toISOString();
  const note = request.note?.slice(0, MAX_NOTE_CHARS);
  const recorded: Decision[] = ids.map((findingId) => ({
    findingId,
    verdict: request.verdict,
    ...(score !== undefined ? { score } : {}),
    by,
    ...(person.sub ? { bySub: person.sub } : {}),
    ...(person.name ? { byName: person.name } : {}),
    at,
    ...(note ? { note } : {}),
  }));
  await trail.append(job.jobId, recorded);
  const decided = new Set([...before, ...recorded].map((d) => d.findingId));
  const undecided = held.findings.filter((f) => !decided.has(f.id)).length;
  let reviewClosed = false;
  if (undecided === 0) {
    reviewClosed = await new JobHolds(deps.db, deps.tableName, now).closeReview(job.jobId, 'completed');
    if (reviewClosed) await sendFinalize(deps, job.jobId);
  }
  return { recorded, undecided, reviewClosed };
}

function checkScore(jobId: string, request: DecisionRequest): Score | undefined {
  if (request.verdict !== 'override') {
    if (request.score !== undefined)
      throw new DecisionError(`a score goes with 'override' only; '${request.verdict}' takes none`, jobId);
    return undefined;
  }
  const s = request.score;
  if (s === undefined || !Number.isInteger(s) || s < 0 || s > 3) {
    throw new DecisionError(
      `'override' needs a score from 0 (standard) to 3 (severe); got ${s === undefined ? 'none' : s}`,
      jobId,
    );
  }
  return s as Score;
}

function targetIds(
  jobId: string,
  request: DecisionRequest,
  held: readonly GatedFinding[],
  before: readonly Decision[],
): string[] {
  if (request.findings === 'all-undecided') {
    const decided = new Set(before.map((d) => d.findingId));
    return held.filter((f) => !decided.has(f.id)).map((f) => f.id);
  }
  const known = new Set(held.map((f) => f.id));
  const unknown = request.findings.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    const sample = held
      .slice(0, 5)
      .map((f) => f.id)
      .join(', ');
    throw new DecisionError(
      `no gated finding ${unknown.map((u) => `'${u}'`).join(', ')} on job ${jobId}; gated findings look like ` +
        `<clause>/<category> (${sample}${held.length > 5 ? ', …' : ''}): 'clause-review findings ${jobId} --gated' lists them`,
      jobId,
    );
  }
  if (request.findings.length === 0) throw new DecisionError('name at least one finding', jobId);
  return [...new Set(request.findings)];
}
