import { randomBytes } from 'node:crypto';
import {
  GetObjectCommand,
  ListObjectVersionsCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { z } from 'zod';
import { ANALYST_IDS } from '../core/analysts/index.js';
import { LANES } from '../core/contracts.js';
import { REVIEW_GATES } from '../core/holds/findings.js';
import { cancelJob } from '../core/holds/pause.js';
import { jobIdFor } from '../core/intake/job-id.js';
import { isJobOptionError, MAX_REVIEW_HOURS, readJobOptions } from '../core/intake/job-options.js';
import { SUBMITTED_BY_METADATA } from '../core/intake/submitter.js';
import type { Lane } from '../core/model.js';
import { type Job, type JobStatus, Jobs, type ReviewGate } from '../core/state/jobs.js';
import { mayActOn, ownerOf, type Principal } from './access.js';
import { BadRequestError, JobStateConflictError, JobUnknownError } from './errors.js';
import type { PersonLabels } from './people.js';

/** What the status API needs. */
export interface JobsApiDeps {
  readonly db: DynamoDBDocumentClient;
  /**
   * Signs the upload and report URLs. Its checksum calculation should be `WHEN_REQUIRED`, or
   * the SDK signs a checksum of an empty body into the upload URL.
   */
  readonly s3: S3Client;
  readonly tableName: string;
  readonly intakeBucket: string;
  /** Key prefix whose uploads start a review (`incoming/`). */
  readonly intakePrefix: string;
  readonly resultsBucket: string;
  readonly defaultLane: Lane;
  /** Micro-dollars. */
  readonly defaultCostLimit: number;
  readonly uploadUrlSeconds: number;
  readonly reportUrlSeconds: number;
  /** Principals who may act on every job (IAM ARNs; a role covers its sessions). @default none */
  readonly administrators?: readonly string[];
  /** Where resume sends a job's unfinished chunks, and a closed review its finalize. */
  readonly sqs: SQSClient;
  readonly laneQueueUrls: Readonly<Record<Lane, string>>;
  readonly finalizeQueueUrl: string;
  /** Prefix of the reports in the results bucket (`reports/`): held findings are kept beside them. */
  readonly resultsPrefix: string;
  readonly now?: () => number;
  /** Random submission ids; injectable for tests. */
  readonly newSubmissionId?: () => string;
  /**
   * Names the person behind a caller for the decision trail (the user pool's email or user
   * name). @default none: the trail names the principal only
   */
  readonly people?: PersonLabels;
}

/** A job id: what `jobIdFor` derives from bucket, key and version. */
export const JOB_ID = /^j-[0-9a-f]{20}$/;
/** A submission id: what POST /jobs hands out and every other route accepts in place of a job id. */
export const SUBMISSION_ID = /^s-[0-9a-f]{20}$/;

/** The body of POST /jobs. */
export const submitRequestSchema = z
  .object({
    /** Name of the document; its extension tells intake the format. */
    filename: z
      .string()
      .min(1)
      .max(200)
      .refine((s) => !/[/\\\p{Cc}]/u.test(s) && s !== '.' && s !== '..', {
        message: 'must be a plain file name without slashes or control characters',
      }),
    lane: z.enum(LANES).optional(),
    /** Cost ceiling in dollars. */
    costCeilingUsd: z.number().positive().max(100_000).optional(),
    /**
     * Analyst ids, each checked on its own: they travel to intake as one comma-separated
     * metadata value, so an id holding a comma must not turn into two.
     */
    analysts: z
      .array(
        z.string().refine((id) => ANALYST_IDS.includes(id), {
          error: (issue) =>
            `unknown analyst id ${JSON.stringify(issue.input)}; known: ${ANALYST_IDS.join(', ')}`,
        }),
      )
      .min(1)
      .max(50)
      .optional(),
    /** Run even when the ceiling is below the quote's expected cost, up to the ceiling. */
    allowPartial: z.boolean().optional(),
    /** Findings at or above this risk wait for a reviewer before the report is final. */
    gate: z.enum(REVIEW_GATES as [ReviewGate, ...ReviewGate[]]).optional(),
    /** How long the review may take before the report is written without it. */
    reviewHours: z.number().positive().max(MAX_REVIEW_HOURS).optional(),
  })
  .strict();

/** A validated POST /jobs body. */
export type SubmitRequest = z.output<typeof submitRequestSchema>;

/** What POST /jobs answers. */
export interface Submission {
  readonly submissionId: string;
  readonly bucket: string;
  readonly key: string;
  /** The options the job will run with (the request's, or the defaults). */
  readonly options: {
    readonly lane: Lane;
    readonly costCeilingUsd: number;
    readonly analysts: string[];
    readonly gate: ReviewGate;
  };
  readonly upload: {
    readonly method: 'PUT';
    readonly url: string;
    /** Headers the upload must carry: they are signed into the URL. */
    readonly headers: Readonly<Record<string, string>>;
    readonly expiresAt: string;
  };
}

/** API-level status: a job's status, or `queued` while its upload waits for intake. */
export type ApiJobStatus = JobStatus | 'queued';

/** What GET /jobs/{id} answers. */
export interface JobView {
  readonly jobId: string;
  readonly submissionId?: string;
  readonly status: ApiJobStatus;
  /** True once the job has ended and nothing about it changes any more. */
  readonly finished: boolean;
  readonly reportReady: boolean;
  readonly lane?: Lane;
  readonly document: { readonly bucket: string; readonly key: string; readonly versionId?: string };
  readonly progress: {
    readonly chunksTerminal: number;
    readonly chunksDone: number;
    readonly chunksTotal: number;
    readonly clauses: number;
    readonly callsPlanned: number;
  };
  readonly cost: {
    readonly spentMicros: number;
    readonly reservedMicros: number;
    readonly ceilingMicros: number;
    readonly spentUsd: number;
    readonly ceilingUsd: number;
    /** What intake quoted before any call, once it has read the document. */
    readonly quote?: { readonly expectedUsd: number; readonly worstCaseUsd: number };
  };
  readonly reason?: string;
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
    readonly gatedFindings?: number;
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

/** What an id names: a job, or an uploaded submission intake has not turned into a job yet. */
type Resolved =
  | { readonly kind: 'job'; readonly job: Job; readonly submissionId?: string }
  | {
      readonly kind: 'queued';
      readonly jobId: string;
      readonly submissionId: string;
      readonly key: string;
      readonly versionId?: string;
    };

const usd = (micros: number) => Math.round(micros) / 1_000_000;

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function reviewView(job: Job): NonNullable<JobView['review']> {
  const fields = {
    startedAt: job.reviewStartedAt,
    deadline: iso(job.reviewDeadline),
    gatedFindings: job.gatedFindings,
    completedAt: job.reviewCompletedAt,
    expiredAt: job.reviewExpiredAt,
  };
  return {
    gate: job.gate ?? 'none',
    ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
  };
}

function zodIssues(error: z.ZodError): string[] {
  return error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message));
}

/**
 * The status API without HTTP: submit (a presigned upload), status, cancel and report links.
 * Every operation accepts a job id (`j-…`) or the submission id (`s-…`) POST /jobs returned.
 *
 * A submission's upload goes to `<intake prefix><submission id>/<filename>`; the job id is
 * derived from that key and the version S3 gives the upload, so the API finds the job of a
 * submission by listing the versions under that prefix (the newest upload wins).
 */
export class JobsApi {
  private readonly jobs: Jobs;
  private readonly now: () => number;

  constructor(private readonly deps: JobsApiDeps) {
    this.now = deps.now ?? Date.now;
    this.jobs = new Jobs(deps.db, deps.tableName, this.now);
  }

  /**
   * Validates a POST /jobs body and returns the presigned upload. The caller's ARN is signed
   * into the upload as its submitter, so the job intake creates belongs to the caller.
   * @throws BadRequestError
   */
  async submit(body: unknown, caller?: Principal): Promise<Submission> {
    const parsed = submitRequestSchema.safeParse(body);
    if (!parsed.success) {
      const issues = zodIssues(parsed.error);
      throw new BadRequestError(`invalid submission: ${issues.join('; ')}`, issues);
    }
    const request = parsed.data;
    const metadata: Record<string, string> = {
      lane: request.lane ?? this.deps.defaultLane,
      'cost-ceiling-usd': String(request.costCeilingUsd ?? usd(this.deps.defaultCostLimit)),
    };
    if (request.analysts) metadata.analysts = request.analysts.join(',');
    if (request.allowPartial) metadata['allow-partial'] = 'true';
    if (request.gate) metadata.gate = request.gate;
    if (request.reviewHours !== undefined) metadata['review-hours'] = String(request.reviewHours);
    let options: ReturnType<typeof readJobOptions>;
    try {
      // The same reading intake applies to the metadata, so what is accepted here runs there.
      options = readJobOptions(
        metadata,
        {},
        { lane: this.deps.defaultLane, costLimit: this.deps.defaultCostLimit },
      );
    } catch (error) {
      if (isJobOptionError(error)) throw new BadRequestError(`invalid submission: ${error.message}`);
      throw error;
    }
    metadata.analysts = options.analysts.join(',');
    if (caller) metadata[SUBMITTED_BY_METADATA] = ownerOf(caller);
    const submissionId = this.deps.newSubmissionId?.() ?? `s-${randomBytes(10).toString('hex')}`;
    const key = `${this.deps.intakePrefix}${submissionId}/${request.filename}`;
    const headers = Object.fromEntries(Object.entries(metadata).map(([k, v]) => [`x-amz-meta-${k}`, v]));
    const url = await getSignedUrl(
      this.deps.s3,
      new PutObjectCommand({ Bucket: this.deps.intakeBucket, Key: key, Metadata: metadata }),
      {
        expiresIn: this.deps.uploadUrlSeconds,
        // Kept as signed headers rather than query parameters: the upload must send exactly these.
        unhoistableHeaders: new Set(Object.keys(headers)),
      },
    );
    return {
      submissionId,
      bucket: this.deps.intakeBucket,
      key,
      options: {
        lane: options.lane,
        costCeilingUsd: usd(options.costLimit),
        analysts: [...options.analysts],
        gate: options.gate,
      },
      upload: {
        method: 'PUT',
        url,
        headers,
        expiresAt: new Date(this.now() + this.deps.uploadUrlSeconds * 1000).toISOString(),
      },
    };
  }

  /** Status and progress. @throws BadRequestError, JobUnknownError */
  async status(id: string, caller?: Principal): Promise<JobView> {
    const r = await this.resolve(id, caller);
    if (r.kind === 'queued') {
      return {
        jobId: r.jobId,
        submissionId: r.submissionId,
        status: 'queued',
        finished: false,
        reportReady: false,
        document: {
          bucket: this.deps.intakeBucket,
          key: r.key,
          ...(r.versionId ? { versionId: r.versionId } : {}),
        },
        progress: { chunksTerminal: 0, chunksDone: 0, chunksTotal: 0, clauses: 0, callsPlanned: 0 },
        cost: { spentMicros: 0, reservedMicros: 0, ceilingMicros: 0, spentUsd: 0, ceilingUsd: 0 },
        reason: 'uploaded; waiting for intake to read the document',
      };
    }
    const { job } = r;
    return {
      jobId: job.jobId,
      ...(r.submissionId ? { submissionId: r.submissionId } : {}),
      status: job.status,
      finished: job.finalizedAt !== undefined,
      reportReady: job.reportKey !== undefined && job.htmlReportKey !== undefined,
      lane: job.lane,
      document: {
        bucket: job.bucket,
        key: job.key,
        ...(job.versionId ? { versionId: job.versionId } : {}),
      },
      progress: {
        chunksTerminal: job.chunksTerminal,
        chunksDone: job.chunksDone,
        chunksTotal: job.chunkCount,
        clauses: job.clauseCount,
        callsPlanned: job.callsPlanned,
      },
      cost: {
        spentMicros: job.costSpent,
        reservedMicros: job.costReserved,
        ceilingMicros: job.costLimit,
        spentUsd: usd(job.costSpent),
        ceilingUsd: usd(job.costLimit),
        ...(job.quote
          ? {
              quote: {
                expectedUsd: usd(job.quote.expectedMicros),
                worstCaseUsd: usd(job.quote.worstCaseMicros),
              },
            }
          : {}),
      },
      ...(job.reason ? { reason: job.reason } : {}),
      createdAt: job.createdAt,
      updatedAt: job.updatedAt,
      ...(job.cancelledAt ? { cancelledAt: job.cancelledAt } : {}),
      ...(job.finalizedAt ? { finalizedAt: job.finalizedAt } : {}),
      ...(job.purgedAt ? { purgedAt: job.purgedAt } : {}),
      ...(job.pausedAt
        ? { pausedAt: job.pausedAt, ...(job.pausedBy ? { pausedBy: job.pausedBy } : {}) }
        : {}),
      ...(job.gate && job.gate !== 'none' ? { review: reviewView(job) } : {}),
    };
  }

  /**
   * Cancels a job that has not ended: no new model call starts after this returns.
   * @throws JobStateConflictError when the job already ended or intake has not created it yet.
   */
  async cancel(id: string, caller?: Principal): Promise<JobView> {
    const job = await this.job(id, caller);
    const by = caller ? ownerOf(caller) : undefined;
    const result = await cancelJob(job.jobId, by ? `cancelled by ${by}` : 'cancelled by request', this.deps);
    if (!result.cancelled) {
      throw new JobStateConflictError(
        `job ${job.jobId} already ended with status '${result.job.status}'; there is nothing to cancel`,
        job.jobId,
        result.job.status,
      );
    }
    return this.status(job.jobId, caller);
  }

  /**
   * Presigned GET URLs of report.json, report.html and report.docx.
   * @throws JobStateConflictError while the job has no report (not finalized yet, or rejected).
   */
  async report(id: string, caller?: Principal): Promise<ReportLinks> {
    const r = await this.resolve(id, caller);
    if (r.kind === 'queued') {
      throw new JobStateConflictError(
        `job ${r.jobId} is still queued for intake; its report is written when it ends`,
        r.jobId,
        'queued',
      );
    }
    const { job } = r;
    if (!job.finalizedAt || !job.reportKey || !job.htmlReportKey) {
      const why = job.purgedAt
        ? `was purged at ${job.purgedAt}: its document, work files and report are deleted`
        : job.status === 'rejected'
          ? `was rejected (${job.reason ?? 'no reason recorded'}); a rejected document gets no report`
          : `is ${job.status} and not finalized yet; its report is written when it ends`;
      throw new JobStateConflictError(`job ${job.jobId} ${why}`, job.jobId, job.status);
    }
    const sign = (key: string) =>
      getSignedUrl(this.deps.s3, new GetObjectCommand({ Bucket: this.deps.resultsBucket, Key: key }), {
        expiresIn: this.deps.reportUrlSeconds,
      });
    const [jsonUrl, htmlUrl, docxUrl] = await Promise.all([
      sign(job.reportKey),
      sign(job.htmlReportKey),
      job.docxReportKey ? sign(job.docxReportKey) : undefined,
    ]);
    return {
      jobId: job.jobId,
      status: job.status,
      json: { key: job.reportKey, url: jsonUrl },
      html: { key: job.htmlReportKey, url: htmlUrl },
      ...(job.docxReportKey && docxUrl ? { docx: { key: job.docxReportKey, url: docxUrl } } : {}),
      expiresAt: new Date(this.now() + this.deps.reportUrlSeconds * 1000).toISOString(),
    };
  }

  /**
   * The job an id names, for operations that need one (pause, resume, findings, decide).
   * @throws JobStateConflictError while the id names an upload intake has not read yet
   */
  async job(id: string, caller?: Principal): Promise<Job> {
    const r = await this.resolve(id, caller);
    if (r.kind === 'queued') {
      throw new JobStateConflictError(
        `job ${r.jobId} is still queued for intake; try again in a few seconds`,
        r.jobId,
        'queued',
      );
    }
    return r.job;
  }

  /**
   * The job or queued submission an id names. A job the caller may not act on is answered
   * exactly as a missing one. A queued submission has no job yet to own: its id, 80 random
   * bits handed to the submitter alone, is what admits the caller until intake records the job.
   */
  private async resolve(id: string, caller: Principal | undefined): Promise<Resolved> {
    const admins = this.deps.administrators ?? [];
    if (JOB_ID.test(id)) {
      const job = await this.jobs.find(id);
      if (!job || !mayActOn(job, caller, admins)) throw new JobUnknownError(id);
      return { kind: 'job', job };
    }
    if (!SUBMISSION_ID.test(id)) {
      throw new BadRequestError(
        `'${id}' is not a job id (j- and 20 hex digits) or a submission id (s- and 20 hex digits)`,
      );
    }
    const prefix = `${this.deps.intakePrefix}${id}/`;
    const listed = await this.deps.s3.send(
      new ListObjectVersionsCommand({ Bucket: this.deps.intakeBucket, Prefix: prefix, MaxKeys: 100 }),
    );
    const latest = (listed.Versions ?? [])
      .filter((v) => v.Key && v.IsLatest !== false)
      .sort((a, b) => (b.LastModified?.getTime() ?? 0) - (a.LastModified?.getTime() ?? 0))[0];
    const unknown = () =>
      new JobUnknownError(
        id,
        `no upload for submission '${id}' yet: PUT the document to the upload URL POST /jobs returned, ` +
          'with the headers it listed, before the URL expires',
      );
    if (!latest?.Key) throw unknown();
    const versionId = latest.VersionId && latest.VersionId !== 'null' ? latest.VersionId : undefined;
    const jobId = jobIdFor({
      bucket: this.deps.intakeBucket,
      key: latest.Key,
      ...(versionId ? { versionId } : {}),
      ...(latest.ETag ? { etag: latest.ETag } : {}),
    });
    const job = await this.jobs.find(jobId);
    if (job && !mayActOn(job, caller, admins)) throw unknown();
    if (job) return { kind: 'job', job, submissionId: id };
    return { kind: 'queued', jobId, submissionId: id, key: latest.Key, ...(versionId ? { versionId } : {}) };
  }
}
