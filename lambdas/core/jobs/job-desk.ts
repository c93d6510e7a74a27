import { randomBytes } from 'node:crypto';
import { GetObjectCommand, ListObjectVersionsCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Lane } from '../clause.js';
import { REPORT_CONTENT_TYPES, type ReportKind } from '../finalize/report-files.js';
import { cancelJob } from '../holds/pause.js';
import { jobIdFor } from '../intake/job-id.js';
import { isVersionUpload } from '../intake/negotiation-round.js';
import { SUBMITTED_BY_METADATA } from '../intake/submitter.js';
import type { PlaybookStore } from '../playbooks/index.js';
import type { Job } from '../state/job.js';
import type { Jobs } from '../state/jobs.js';
import { storesOf } from '../stores.js';
import { InvalidJobRequestError, isJobNotFoundError, JobConflictError, JobNotFoundError } from './errors.js';
import { type JobView, jobView, queuedView, type ReportLinks } from './job-view.js';
import type { QuoteDeps } from './quote-request.js';
import { attachmentDisposition, reportFilename } from './report-download.js';
import {
  parseRequest,
  pinPlaybook,
  readSubmission,
  type SubmittedOptions,
  submitRequestSchema,
  submittedOptions,
} from './submission.js';

/** What the job requests need; a quote's defaults, models and limits are intake's. */
export interface JobDeskDeps extends QuoteDeps {
  readonly db: DynamoDBDocumentClient;
  /** Signs the uploads (presigned POST policies) and the report URLs. */
  readonly s3: S3Client;
  readonly tableName: string;
  readonly intakeBucket: string;
  /** Key prefix whose uploads start a review (`incoming/`). */
  readonly intakePrefix: string;
  readonly resultsBucket: string;
  readonly uploadUrlSeconds: number;
  readonly reportUrlSeconds: number;
  /** Largest document intake reads, in bytes: every upload's policy refuses a larger body. */
  readonly maxDocumentBytes: number;
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
}

/**
 * Who is asking, as the entry point identified them: the name their jobs record, and the rule
 * that says which jobs they may act on. Absent: nobody known, who may act on no job.
 */
export interface Actor {
  /** The owner name to sign into an upload and to record as who paused or cancelled. */
  readonly name: string;
  mayActOn(job: Pick<Job, 'owner'>): boolean;
  /**
   * Whether they may see (not act on) a job they may not act on: a member of a group the job's
   * open review waits for (`approverGroups`) sees its status and findings, and decides what is
   * escalated to their group; once the review closes, only the trail keeps what they decided.
   * @default nobody
   */
  maySee?(job: ApproverView): Promise<boolean>;
}

/** What of a job says whether an approver may see it. */
export type ApproverView = Pick<Job, 'approverGroups' | 'status' | 'reviewCompletedAt' | 'reviewExpiredAt'>;

/**
 * What a request does with a job: `act` (cancel, pause, resume) is for its owner and the
 * administrators; `see` (status, findings, report, decisions) for them and the members of a
 * group its review waits for.
 */
export type JobAccess = 'act' | 'see';

/** A job id: what `jobIdFor` derives from bucket, key and version. */
export const JOB_ID = /^j-[0-9a-f]{20}$/;
/** A submission id: what POST /jobs hands out and every other route accepts in place of a job id. */
export const SUBMISSION_ID = /^s-[0-9a-f]{20}$/;

/**
 * What a submission answers: where to upload the document. The upload is an S3 presigned POST
 * (a browser-based upload, https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-UsingHTTPPOST.html):
 * a multipart form of `fields` as given, then the document as the field `file`. Its signed
 * policy fixes the key, every field (the owner and options among them: a changed or added field
 * is refused) and the body's length (`content-length-range` up to `maxBytes`), so S3 refuses a
 * larger document before intake ever sees it.
 */
export interface Submission {
  readonly submissionId: string;
  readonly bucket: string;
  readonly key: string;
  /** The options the job will run with (the request's, or the defaults). */
  readonly options: SubmittedOptions;
  readonly upload: UploadForm;
  /**
   * With `againstFilename`: where our version goes (`<submission>/against/<name>`), to upload
   * before the document; intake compares the document with it and makes no job of it.
   */
  readonly against?: { readonly key: string; readonly upload: UploadForm };
}

/** A presigned POST upload: the form S3 accepts until `expiresAt`. */
export interface UploadForm {
  readonly method: 'POST';
  readonly url: string;
  /** The form's fields, sent as they are and before the document: the policy names each. */
  readonly fields: Readonly<Record<string, string>>;
  /** Largest document the policy accepts, in bytes (intake's document limit). */
  readonly maxBytes: number;
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

/**
 * The job requests, without HTTP: submit (a presigned upload), status, cancel and report links.
 * Every operation accepts a job id (`j-…`) or the submission id (`s-…`) submit returned.
 *
 * A submission's upload goes to `<intake prefix><submission id>/<filename>`; the job id is
 * derived from that key and the version S3 gives the upload, so the job of a submission is
 * found by listing the versions under that prefix (the newest upload wins).
 */
export class JobDesk {
  private readonly jobs: Jobs;
  private readonly now: () => number;
  /** The stack's playbooks, which a submission's playbook is looked up in. */
  readonly playbooks: PlaybookStore;

  constructor(private readonly deps: JobDeskDeps) {
    this.now = deps.now ?? Date.now;
    this.jobs = storesOf(deps).jobs;
    this.playbooks = storesOf(deps).playbooks;
  }

  /**
   * Validates a submission and returns the presigned upload. The actor's name is signed into
   * the upload as its submitter, so the job intake creates belongs to them.
   * @throws InvalidJobRequestError
   */
  async submit(body: unknown, actor?: Actor): Promise<Submission> {
    const request = parseRequest(submitRequestSchema, body, 'submission');
    const { metadata, options, playbook } = await pinPlaybook(
      readSubmission(request, this.deps),
      this.deps.playbooks ?? this.playbooks,
    );
    if (request.against) await this.answered(request.against, actor);
    if (actor) metadata[SUBMITTED_BY_METADATA] = actor.name;
    const submissionId = this.deps.newSubmissionId?.() ?? `s-${randomBytes(10).toString('hex')}`;
    const key = `${this.deps.intakePrefix}${submissionId}/${request.filename}`;
    const versionKey = request.againstFilename
      ? `${this.deps.intakePrefix}${submissionId}/against/${request.againstFilename}`
      : undefined;
    return {
      submissionId,
      bucket: this.deps.intakeBucket,
      key,
      options: submittedOptions(options, playbook),
      upload: await this.presign(key, metadata),
      ...(versionKey ? { against: { key: versionKey, upload: await this.presign(versionKey, {}) } } : {}),
    };
  }

  /** A presigned POST of one object: its key, every field and the body's length fixed by the policy. */
  private async presign(key: string, metadata: Readonly<Record<string, string>>): Promise<UploadForm> {
    const maxBytes = this.deps.maxDocumentBytes;
    const { url, fields } = await createPresignedPost(this.deps.s3, {
      Bucket: this.deps.intakeBucket,
      Key: key,
      // Each field becomes an exact-match condition of the policy. The key is named as one too,
      // whatever the SDK would make of it: one form, one object, one job.
      Fields: Object.fromEntries(Object.entries(metadata).map(([k, v]) => [`x-amz-meta-${k}`, v])),
      Conditions: [{ key }, ['content-length-range', 0, maxBytes]],
      Expires: this.deps.uploadUrlSeconds,
    });
    const expiresAt = new Date(this.now() + this.deps.uploadUrlSeconds * 1000).toISOString();
    return { method: 'POST', url, fields, maxBytes, expiresAt };
  }

  /**
   * Checks that the job a submission answers is one the caller may act on, with a document to
   * compare with (not rejected, not purged).
   * @throws InvalidJobRequestError naming why not
   */
  private async answered(jobId: string, actor: Actor | undefined): Promise<void> {
    let job: Job | undefined;
    try {
      job = await this.job(jobId, actor);
    } catch (error) {
      if (!isJobNotFoundError(error)) throw error;
    }
    const why = !job
      ? `no job ${jobId} of yours`
      : job.purgedAt
        ? `job ${jobId} was purged`
        : job.status === 'rejected'
          ? `job ${jobId} was rejected and has no document`
          : undefined;
    if (why) {
      const issue = `against: ${why} to compare the document with`;
      throw new InvalidJobRequestError(`invalid submission: ${issue}`, [issue]);
    }
  }

  /** Status and progress. @throws InvalidJobRequestError, JobNotFoundError */
  async status(id: string, actor?: Actor): Promise<JobView> {
    const r = await this.resolve(id, actor, 'see');
    if (r.kind === 'queued') return queuedView({ ...r, bucket: this.deps.intakeBucket });
    return jobView(r.job, r.submissionId);
  }

  /**
   * Cancels a job that has not ended: no new model call starts after this returns.
   * @throws JobConflictError when the job already ended or intake has not created it yet.
   */
  async cancel(id: string, actor?: Actor): Promise<JobView> {
    const job = await this.job(id, actor);
    const reason = actor ? `cancelled by ${actor.name}` : 'cancelled by request';
    const result = await cancelJob(job.jobId, reason, this.deps);
    if (!result.cancelled) {
      throw new JobConflictError(
        `job ${job.jobId} already ended with status '${result.job.status}'; there is nothing to cancel`,
        job.jobId,
        result.job.status,
      );
    }
    return this.status(job.jobId, actor);
  }

  /**
   * Presigned GET URLs of report.json, report.html and report.docx, each answered as an
   * attachment with its own content type (report-download.ts).
   * @throws JobConflictError while the job has no report (not finalized yet, or rejected).
   */
  async report(id: string, actor?: Actor): Promise<ReportLinks> {
    const job = await this.job(id, actor, 'its report is written when it ends', 'see');
    if (!job.finalizedAt || !job.reportKey || !job.htmlReportKey) {
      const why = job.purgedAt
        ? `was purged at ${job.purgedAt}: its document, work files and report are deleted`
        : job.status === 'rejected'
          ? `was rejected (${job.reason ?? 'no reason recorded'}); a rejected document gets no report`
          : `is ${job.status} and not finalized yet; its report is written when it ends`;
      throw new JobConflictError(`job ${job.jobId} ${why}`, job.jobId, job.status);
    }
    const sign = (key: string, kind: ReportKind) =>
      getSignedUrl(
        this.deps.s3,
        new GetObjectCommand({
          Bucket: this.deps.resultsBucket,
          Key: key,
          ResponseContentDisposition: attachmentDisposition(reportFilename(job.key, job.jobId, kind)),
          ResponseContentType: REPORT_CONTENT_TYPES[kind],
        }),
        { expiresIn: this.deps.reportUrlSeconds },
      );
    const [jsonUrl, htmlUrl, docxUrl] = await Promise.all([
      sign(job.reportKey, 'json'),
      sign(job.htmlReportKey, 'html'),
      job.docxReportKey ? sign(job.docxReportKey, 'docx') : undefined,
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
   * @throws JobConflictError while the id names an upload intake has not read yet
   */
  async job(
    id: string,
    actor?: Actor,
    whenQueued = 'try again in a few seconds',
    access: JobAccess = 'act',
  ): Promise<Job> {
    const r = await this.resolve(id, actor, access);
    if (r.kind === 'queued') {
      throw new JobConflictError(
        `job ${r.jobId} is still queued for intake; ${whenQueued}`,
        r.jobId,
        'queued',
      );
    }
    return r.job;
  }

  /**
   * The job or queued submission an id names. A job the actor may not act on (nor, for `see`,
   * see) is answered exactly as a missing one. A queued submission has no job yet to own: its id, 80 random
   * bits handed to the submitter alone, is what admits the caller until intake records the job.
   */
  private async resolve(id: string, actor: Actor | undefined, access: JobAccess = 'act'): Promise<Resolved> {
    const may = async (job: Job) =>
      actor !== undefined &&
      (actor.mayActOn(job) || (access === 'see' && (await actor.maySee?.(job)) === true));
    if (JOB_ID.test(id)) {
      const job = await this.jobs.find(id);
      if (!job || !(await may(job))) throw new JobNotFoundError(id);
      return { kind: 'job', job };
    }
    if (!SUBMISSION_ID.test(id)) {
      throw new InvalidJobRequestError(
        `'${id}' is not a job id (j- and 20 hex digits) or a submission id (s- and 20 hex digits)`,
      );
    }
    const prefix = `${this.deps.intakePrefix}${id}/`;
    const listed = await this.deps.s3.send(
      new ListObjectVersionsCommand({ Bucket: this.deps.intakeBucket, Prefix: prefix, MaxKeys: 100 }),
    );
    // Our version uploaded beside the document (`against/NAME`) is compared with, never a job.
    const latest = (listed.Versions ?? [])
      .filter((v) => v.Key && v.IsLatest !== false && !isVersionUpload(v.Key))
      .sort((a, b) => (b.LastModified?.getTime() ?? 0) - (a.LastModified?.getTime() ?? 0))[0];
    const unknown = () =>
      new JobNotFoundError(
        id,
        `no upload for submission '${id}' yet: POST the document to the upload URL POST /jobs returned, ` +
          'with the fields it listed, before the upload expires',
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
    if (job && !(await may(job))) throw unknown();
    if (job) return { kind: 'job', job, submissionId: id };
    return { kind: 'queued', jobId, submissionId: id, key: latest.Key, ...(versionId ? { versionId } : {}) };
  }
}
