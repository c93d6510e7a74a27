import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, isWriteRefused, JobNotFoundError } from './errors.js';
import { type Job, type JobPlan, type JobStatus, jobFromItem, type NewJob, refusedJob } from './job.js';
import { JOB_SK, jobPk, ownerGsiPk, ownerGsiSk } from './keys.js';
import { sendReleasingChange } from './owner-slots.js';
import { statusChange, statusIndex } from './status-change.js';
import { conditionHeld, refusable } from './transact.js';

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
    return r.Item && jobFromItem(r.Item as Job);
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
      return { created: false, job: refusedJob(job.jobId, error.item) };
    }
  }

  /**
   * Intake is done: records the plan and moves the job to `running`, so workers may start. A
   * job cancelled while intake read it keeps `cancelled` but still gets its plan, so that its
   * report accounts for every planned call (as cancelled). Returns the status the job has.
   */
  async recordPlan(jobId: string, plan: JobPlan): Promise<JobStatus> {
    try {
      await this.markRunning(jobId, plan);
      return 'running';
    } catch (error) {
      if (!isWriteRefused(error)) throw error;
      // Only a job cancelled while intake read it still takes its plan; the refusal says.
      const { status } = refusedJob(jobId, error.item);
      if (status !== 'cancelled') return status;
    }
    try {
      await refusable(jobId, 'job', (returnOnRefusal) =>
        this.db.send(
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
            ...returnOnRefusal,
          }),
        ),
      );
      return 'cancelled';
    } catch (error) {
      // The plan was recorded already, or the job moved on: the refusal carries its status.
      if (!isWriteRefused(error)) throw error;
      return refusedJob(jobId, error.item).status;
    }
  }

  /**
   * Intake is done: chunk messages are out, workers may start.
   * @throws WriteRefusedError (label `job`, with the job as it stood) when the job had left `intake`
   */
  async markRunning(jobId: string, plan: JobPlan) {
    const { chunkCount, clauseCount, callsPlanned, sha256, bytes, format, quote } = plan;
    const at = new Date(this.now()).toISOString();
    const set = { chunkCount, clauseCount, callsPlanned, sha256, bytes, format, quote };
    await refusable(jobId, 'job', (returnOnRefusal) =>
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: jobPk(jobId), sk: JOB_SK },
          ...statusChange(jobId, ['intake'], 'running', at, { set }),
          ...returnOnRefusal,
        }),
      ),
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
      return { cancelled: false, job: refusedJob(jobId, error.item) };
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
    return conditionHeld(() =>
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
    return conditionHeld(() =>
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
  }
}
