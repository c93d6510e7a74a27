import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PanelModels } from '../analysts/panel-models.js';
import type { Lane } from '../contracts.js';
import type { DocumentFormat } from '../documents/formats.js';
import type { CostQuote } from '../intake/quote.js';
import type { JobRejection } from '../intake/rejections.js';
import type { ContractType, JobPlaybook, NotAskedAnalyst } from '../playbooks/index.js';
import { isConditionFailure, isWriteRefused, JobNotFoundError } from './errors.js';
import { JOB_SK, jobPk, ownerGsiPk, ownerGsiSk } from './keys.js';
import { sendReleasingChange } from './owner-slots.js';
import { statusChange, statusIndex } from './status-change.js';
import { refusable, retryConflicts } from './transact.js';

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

/** Which findings hold a job for a reviewer before its report is final. */
export type ReviewGate = 'none' | 'critical' | 'high';

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
  /** Analysts the playbook gave nothing to judge, not asked (`analysts` omits them); absent: none. */
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
  readonly costLimit: number;
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
  /** Every gated finding has a decision: finalize writes the report. */
  readonly reviewCompletedAt?: string;
  /** The review deadline passed: the report is written with undecided findings `unreviewed`. */
  readonly reviewExpiredAt?: string;
}

/** What intake knows when it creates a job. */
export type NewJob = Pick<Job, 'jobId' | 'lane' | 'bucket' | 'key' | 'analysts' | 'costLimit' | 'deadline'> &
  Partial<Pick<Job, 'versionId' | 'etag' | 'sha256' | 'bytes' | 'format' | 'models' | 'owner' | 'gate'>> &
  Partial<Pick<Job, 'reviewHours' | 'playbook' | 'contractType'>>;

/** The owner index's keys, written once with the job: the owner and creation time never change. */
function ownerIndex(owner: string | undefined, at: string, jobId: string) {
  return owner ? { gsi2pk: ownerGsiPk(owner), gsi2sk: ownerGsiSk(at, jobId) } : {};
}

/** Reads and writes job items. */
export class Jobs {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The job, or undefined. Strongly consistent: status checks must see a cancel at once. */
  async find(jobId: string): Promise<Job | undefined> {
    const r = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: jobPk(jobId), sk: JOB_SK },
        ConsistentRead: true,
      }),
    );
    return r.Item as Job | undefined;
  }

  /**
   * Only what decides whether a call may start: the status and whether the ceiling was
   * reached. Strongly consistent, and small: every call start reads it.
   */
  async gate(jobId: string): Promise<Pick<Job, 'status' | 'budgetExceededAt' | 'pausedAt'> | undefined> {
    const r = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: jobPk(jobId), sk: JOB_SK },
        ConsistentRead: true,
        ProjectionExpression: '#status, budgetExceededAt, pausedAt',
        ExpressionAttributeNames: { '#status': 'status' },
      }),
    );
    return r.Item as Pick<Job, 'status' | 'budgetExceededAt' | 'pausedAt'> | undefined;
  }

  /** The job; throws JobNotFoundError when it does not exist. */
  async get(jobId: string): Promise<Job> {
    const job = await this.find(jobId);
    if (!job) throw new JobNotFoundError(jobId);
    return job;
  }

  /**
   * Creates the job in status `intake` unless it exists. Returns the existing job when it
   * does, so a repeated S3 event can tell "already done" from "interrupted half-way".
   */
  async createIfAbsent(job: NewJob): Promise<{ created: boolean; job: Job }> {
    const at = new Date(this.now()).toISOString();
    const item: Job = {
      ...job,
      status: 'intake',
      chunkCount: 0,
      clauseCount: 0,
      callsPlanned: 0,
      chunksTerminal: 0,
      chunksDone: 0,
      costCommitted: 0,
      costReserved: 0,
      costSpent: 0,
      createdAt: at,
      updatedAt: at,
    };
    try {
      await refusable(job.jobId, 'job', (returnOnRefusal) =>
        this.db.send(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              pk: jobPk(job.jobId),
              sk: JOB_SK,
              ...item,
              ...statusIndex('intake', at, job.jobId),
              ...ownerIndex(job.owner, at, job.jobId),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
            ...returnOnRefusal,
          }),
        ),
      );
      return { created: true, job: item };
    } catch (error) {
      if (!isWriteRefused(error)) throw error;
      // The job that is there already, sent with the refusal.
      return { created: false, job: existing(job.jobId, error.item) };
    }
  }

  /**
   * Intake is done: records the plan and moves the job to `running`, so workers may start. A
   * job cancelled while intake read it keeps `cancelled` but still gets its plan, so that its
   * report accounts for every planned call (as cancelled). Returns the status the job has.
   */
  async recordPlan(
    jobId: string,
    plan: Pick<Job, 'chunkCount' | 'clauseCount' | 'callsPlanned' | 'sha256' | 'bytes' | 'format'> &
      Partial<Pick<Job, 'quote'>>,
  ): Promise<JobStatus> {
    try {
      await this.markRunning(jobId, plan);
      return 'running';
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: jobPk(jobId), sk: JOB_SK },
          UpdateExpression: `SET chunkCount = :chunks, clauseCount = :clauses, callsPlanned = :calls, sha256 = :sha, bytes = :bytes, #format = :format${plan.quote ? ', quote = :quote' : ''}`,
          ConditionExpression: '#status = :cancelled AND chunkCount = :zero',
          ExpressionAttributeNames: { '#status': 'status', '#format': 'format' },
          ExpressionAttributeValues: {
            ':cancelled': 'cancelled',
            ':zero': 0,
            ':sha': plan.sha256,
            ':bytes': plan.bytes,
            ':format': plan.format,
            ':chunks': plan.chunkCount,
            ':clauses': plan.clauseCount,
            ':calls': plan.callsPlanned,
            ...(plan.quote ? { ':quote': plan.quote } : {}),
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    return (await this.get(jobId)).status;
  }

  /** Intake is done: chunk messages are out, workers may start. */
  async markRunning(
    jobId: string,
    plan: Pick<Job, 'chunkCount' | 'clauseCount' | 'callsPlanned' | 'sha256' | 'bytes' | 'format'> &
      Partial<Pick<Job, 'quote'>>,
  ) {
    const at = new Date(this.now()).toISOString();
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: jobPk(jobId), sk: JOB_SK },
        ...statusChange(jobId, ['intake'], 'running', at, {
          set: {
            chunkCount: plan.chunkCount,
            clauseCount: plan.clauseCount,
            callsPlanned: plan.callsPlanned,
            sha256: plan.sha256,
            bytes: plan.bytes,
            format: plan.format,
            quote: plan.quote,
          },
        }),
      }),
    );
  }

  /** Records that every chunk message is out. */
  async markFannedOut(jobId: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: jobPk(jobId), sk: JOB_SK },
        UpdateExpression: 'SET fanoutCompletedAt = if_not_exists(fanoutCompletedAt, :at)',
        ExpressionAttributeValues: { ':at': new Date(this.now()).toISOString() },
      }),
    );
  }

  /** Records a rejection at intake (bad input); the reason is what a person reads. */
  async markRejected(
    jobId: string,
    reason: string,
    facts: Partial<Pick<Job, 'sha256' | 'bytes' | 'format' | 'rejection' | 'quote'>> = {},
  ) {
    if (await this.finish(jobId, 'rejected', { reason, ...facts }, ['intake'])) return;
    // Cancelled while intake read the document, before any plan: no chunk will run and no
    // finalize will come, so the refusal is recorded on the cancelled job, which ends here.
    await this.finish(jobId, 'cancelled', { reason, ...facts }, ['cancelled'], {
      condition: 'chunkCount = :zero',
      values: { ':zero': 0 },
    });
  }

  /**
   * Cancels a job that has not ended (intake, queued, running, paused or awaiting review): a
   * conditional status flip, so it is recorded exactly once and only for a job that can still
   * stop; a job holding one of its owner's slots gives it back in the same transaction. Returns
   * false when the job had already ended. `job` is the job as the cancel left it or found it.
   */
  async cancel(
    jobId: string,
    reason = 'cancelled by request',
  ): Promise<{ cancelled: boolean; job: Job; gaveBackSlot?: true }> {
    const at = new Date(this.now()).toISOString();
    const from: JobStatus[] = ['intake', 'queued', 'running', 'paused', 'awaiting_review'];
    try {
      const change = statusChange(jobId, from, 'cancelled', at, { set: { reason }, stamp: ['cancelledAt'] });
      const { job, gaveBackSlot } = await sendReleasingChange(this.db, this.tableName, jobId, change);
      return { cancelled: true, job, ...(gaveBackSlot ? { gaveBackSlot } : {}) };
    } catch (error) {
      if (!isWriteRefused(error)) throw error;
      // The job as it stood, sent with the refusal: already ended, or not there at all.
      return { cancelled: false, job: existing(jobId, error.item) };
    }
  }

  /**
   * Stops every later allotment of the job: its ceiling has been reached. Recorded once; the
   * chunks still running stop starting calls at their next status read.
   */
  async markBudgetExceeded(jobId: string): Promise<void> {
    await this.stampOnce(jobId, 'budgetExceededAt', 'attribute_exists(pk)');
  }

  /**
   * Sets `field` to now unless it is set already, and only while `condition` holds (with
   * `touch`, `updatedAt` too). Returns false when it was set already or the condition failed
   * (the loser of a race, or a repeat).
   */
  async stampOnce(
    jobId: string,
    field: string,
    condition: string,
    values: Record<string, unknown> = {},
    touch = false,
  ): Promise<boolean> {
    try {
      await retryConflicts(() =>
        this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { pk: jobPk(jobId), sk: JOB_SK },
            UpdateExpression: `SET ${field} = :at${touch ? ', updatedAt = :at' : ''}`,
            ConditionExpression: `attribute_not_exists(${field}) AND ${condition}`,
            ...(condition.includes('#status') ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
            ExpressionAttributeValues: { ':at': new Date(this.now()).toISOString(), ...values },
          }),
        ),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * Claims the right to enqueue finalize: succeeds once, for the caller that finds every
   * chunk terminal first. The loser of a race (or a repeat) gets false.
   */
  async claimFinalize(jobId: string): Promise<boolean> {
    // A paused job finalizes when it is resumed, not while a person holds it.
    return this.stampOnce(
      jobId,
      'finalizeEnqueuedAt',
      'chunksTerminal >= chunkCount AND #status IN (:running, :cancelled)',
      { ':running': 'running', ':cancelled': 'cancelled' },
    );
  }

  /**
   * Moves a job to a terminal status once. `from` lists the statuses it may leave; a job
   * cancelled while running keeps `cancelled` and only gains its report keys.
   */
  async finish(
    jobId: string,
    status: JobStatus,
    fields: Partial<
      Pick<
        Job,
        | 'reason'
        | 'reportKey'
        | 'htmlReportKey'
        | 'docxReportKey'
        | 'sha256'
        | 'bytes'
        | 'format'
        | 'rejection'
        | 'quote'
      >
    >,
    from: readonly JobStatus[] = ['running', 'intake'],
    also:
      | { readonly condition: string; readonly values: Readonly<Record<string, unknown>> }
      | undefined = undefined,
  ): Promise<boolean> {
    const change = statusChange(jobId, from, status, new Date(this.now()).toISOString(), {
      set: fields,
      stamp: ['finalizedAt'],
      condition: `attribute_not_exists(finalizedAt)${also ? ` AND ${also.condition}` : ''}`,
      ...(also ? { values: also.values } : {}),
    });
    try {
      // A job holding one of its owner's slots gives it back in the same transaction.
      await sendReleasingChange(this.db, this.tableName, jobId, change);
      return true;
    } catch (error) {
      if (isConditionFailure(error) || isWriteRefused(error)) return false;
      throw error;
    }
  }

  /**
   * Records that finalize is being sent again for a job that was claimed for finalize but
   * never finalized (its message was lost or dead-lettered). Conditioned on the stamp the
   * caller saw, so concurrent sweepers send it once per period. Returns false otherwise.
   */
  async recordFinalizeResend(jobId: string, seen: string | undefined): Promise<boolean> {
    try {
      await retryConflicts(() =>
        this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { pk: jobPk(jobId), sk: JOB_SK },
            UpdateExpression: 'SET finalizeResentAt = :at',
            ConditionExpression: `attribute_exists(finalizeEnqueuedAt) AND attribute_not_exists(finalizedAt) AND ${
              seen === undefined ? 'attribute_not_exists(finalizeResentAt)' : 'finalizeResentAt = :seen'
            }`,
            ExpressionAttributeValues: {
              ':at': new Date(this.now()).toISOString(),
              ...(seen === undefined ? {} : { ':seen': seen }),
            },
          }),
        ),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

/** The job a refusal sent back; a refusal with no item means there is no such job. */
function existing(jobId: string, item: Record<string, unknown> | undefined): Job {
  if (!item) throw new JobNotFoundError(jobId);
  return item as unknown as Job;
}
