import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { fenceCondition, type Lease } from './claims.js';
import { isConditionFailure } from './errors.js';
import type { Job } from './jobs.js';
import { CALL_PREFIX, callSk, checkpointSk, chunkCallPrefix, JOB_SK, jobPk } from './keys.js';
import { queryAll } from './query-all.js';
import { transactWrite } from './transact.js';

/** One Update of a transaction. */
type Update = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['Update']>;

/**
 * Where a call is. `done` and `failed` are final and are reused on every later delivery
 * (a DLQ redrive included); `retryable` is called again by the next claimant.
 */
export type CallStatus = 'in-flight' | 'done' | 'failed' | 'retryable';

/** Why a final failure happened. */
export type CallFailureKind = 'permanent' | 'validation' | 'budget' | 'transient-exhausted';

/** One call-ledger entry: a (chunk, clause, analyst) call. */
export interface LedgerEntry {
  readonly jobId: string;
  readonly chunk: number;
  readonly clauseId: string;
  readonly analystId: string;
  readonly status: CallStatus;
  /** Hash of model, prompt version and parameters: a changed prompt is a different call. */
  readonly idempotencyKey: string;
  readonly modelId?: string;
  /** Model calls made for this entry (each tier-1 retry and the repair retry count). */
  readonly attempts: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /** Settled cost of every answered attempt, micro-dollars. */
  readonly cost?: number;
  /** The validated answer, JSON. */
  readonly result?: string;
  readonly failureKind?: CallFailureKind;
  readonly errorClass?: string;
  readonly lastError?: string;
  readonly reservedAt?: number;
  readonly finishedAt?: string;
}

/** Identity of a call inside its job. */
export interface CallRef {
  readonly jobId: string;
  readonly chunk: number;
  readonly clauseId: string;
  readonly analystId: string;
  readonly idempotencyKey: string;
}

/** Outcome of asking to start a call. */
export type Reservation =
  | { ok: true; estimate: number; reservedAt: number; owner: string }
  | { ok: false; reason: RefusalReason };

/**
 * Why a reservation was refused:
 * - `cancelled`, `not-running`: the job stopped; no call starts any more;
 * - `budget`: the call cannot fit under the ceiling even once every call in flight settles;
 * - `contended`: the room is held by reservations of calls in flight, which settle to their
 *   (smaller) actual cost; asking again shortly may succeed;
 * - `final`: the entry is already done or failed (another holder finished it): reuse it;
 * - `lease-lost`: the caller no longer holds the chunk.
 */
export type RefusalReason = 'cancelled' | 'not-running' | 'budget' | 'contended' | 'final' | 'lease-lost';

/** A reservation being settled: its estimate, and the holder it was made for. */
export interface HeldReservation {
  readonly estimate: number;
  readonly owner: string;
}

/** The call ledger and the job's cost accounting, moved together. */
export class CallLedger {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** All ledger entries of one chunk, keyed by sort key. One Query instead of one read per call. */
  async forChunk(jobId: string, chunk: number): Promise<Map<string, LedgerEntry>> {
    return this.query(jobId, chunkCallPrefix(chunk));
  }

  /** All ledger entries of a job. */
  async forJob(jobId: string): Promise<LedgerEntry[]> {
    return [...(await this.query(jobId, CALL_PREFIX)).values()];
  }

  private async query(jobId: string, prefix: string): Promise<Map<string, LedgerEntry>> {
    const items = await queryAll<LedgerEntry & { sk: string }>(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': jobPk(jobId), ':prefix': prefix },
      ConsistentRead: true,
    });
    return new Map(items.map((item) => [item.sk, item]));
  }

  /**
   * Starts one model call attempt, atomically: the caller still holds its lease (fencing),
   * the job is running and not cancelled, the worst-case cost fits under the ceiling
   * (`costCommitted <= limit - estimate`, since conditions cannot add), and the entry is not
   * already final. Nothing is reserved unless all of it holds.
   */
  async reserve(
    call: CallRef,
    lease: Lease,
    estimate: number,
    job: Pick<Job, 'costLimit'>,
  ): Promise<Reservation> {
    const reservedAt = this.now();
    const pk = jobPk(call.jobId);
    const owner = `${lease.workerId}:${lease.fence}`;
    const fence = fenceCondition(lease);
    try {
      await transactWrite(this.db, {
        TransactItems: [
          {
            ConditionCheck: {
              TableName: this.tableName,
              Key: { pk, sk: checkpointSk(lease.chunk, lease.stage) },
              ConditionExpression: fence.condition,
              ExpressionAttributeValues: fence.values,
            },
          },
          {
            Update: {
              TableName: this.tableName,
              Key: { pk, sk: JOB_SK },
              UpdateExpression:
                'SET costCommitted = costCommitted + :est, costReserved = costReserved + :est',
              ConditionExpression:
                '#status = :running AND attribute_not_exists(budgetExceededAt) AND costCommitted <= :room',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':est': estimate,
                ':running': 'running',
                ':room': job.costLimit - estimate,
              },
            },
          },
          {
            Update: {
              TableName: this.tableName,
              Key: { pk, sk: callSk(call.chunk, call.clauseId, call.analystId) },
              UpdateExpression:
                'SET jobId = :job, chunk = :chunk, clauseId = :clause, analystId = :analyst, idempotencyKey = :key, #status = :inflight, reservedAt = :at, reservation = :est, ownerFence = :fence ADD attempts :one',
              // A final entry is reused, unless its prompt or model changed: that is another call.
              ConditionExpression:
                'attribute_not_exists(#status) OR NOT (#status IN (:done, :failed)) OR idempotencyKey <> :key',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':job': call.jobId,
                ':chunk': call.chunk,
                ':clause': call.clauseId,
                ':analyst': call.analystId,
                ':key': call.idempotencyKey,
                ':inflight': 'in-flight',
                ':at': reservedAt,
                ':est': estimate,
                ':fence': owner,
                ':one': 1,
                ':done': 'done',
                ':failed': 'failed',
              },
            },
          },
        ],
      });
      return { ok: true, estimate, reservedAt, owner };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { ok: false, reason: await this.whyRefused(call, estimate, job, error) };
    }
  }

  private async whyRefused(
    call: CallRef,
    estimate: number,
    job: Pick<Job, 'costLimit'>,
    error: unknown,
  ): Promise<RefusalReason> {
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
    const failedAt = reasons?.findIndex((r) => r.Code === 'ConditionalCheckFailed');
    if (failedAt === 0) return 'lease-lost';
    if (failedAt === 2) return 'final';
    const current = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk = :sk',
        ExpressionAttributeValues: { ':pk': jobPk(call.jobId), ':sk': JOB_SK },
        ConsistentRead: true,
      }),
    );
    const j = current.Items?.[0] as Job | undefined;
    if (!j || j.status === 'cancelled') return 'cancelled';
    if (j.status !== 'running') return 'not-running';
    if (j.budgetExceededAt || j.costSpent + estimate > job.costLimit) {
      await this.markBudgetExceeded(call.jobId);
      return 'budget';
    }
    // The job item refused a running job whose settled spend leaves room: reservations of
    // calls in flight hold it.
    if (failedAt === 1) return 'contended';
    return 'lease-lost';
  }

  /** Stops every later reservation of the job: the ceiling has been reached. */
  async markBudgetExceeded(jobId: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: jobPk(jobId), sk: JOB_SK },
          UpdateExpression: 'SET budgetExceededAt = :at',
          ConditionExpression: 'attribute_not_exists(budgetExceededAt)',
          ExpressionAttributeValues: { ':at': new Date(this.now()).toISOString() },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /**
   * Settles an answered attempt: the reservation is replaced by the actual cost, and the
   * entry records it. `final` carries the entry's end state when this attempt ends the call.
   */
  async settleAnswered(
    call: CallRef,
    reservation: HeldReservation,
    usage: { modelId: string; inputTokens: number; outputTokens: number; cost: number },
    final?:
      | { status: 'done'; result: string }
      | { status: 'failed'; failureKind: CallFailureKind; errorClass: string; lastError: string },
  ): Promise<void> {
    const pk = jobPk(call.jobId);
    const at = new Date(this.now()).toISOString();
    // Tokens and cost accumulate over attempts: a repair retry is billed too.
    const entrySets = [
      'modelId = :model',
      'inputTokens = if_not_exists(inputTokens, :zero) + :in',
      'outputTokens = if_not_exists(outputTokens, :zero) + :out',
      'cost = if_not_exists(cost, :zero) + :cost',
    ];
    const values: Record<string, unknown> = {
      ':model': usage.modelId,
      ':in': usage.inputTokens,
      ':out': usage.outputTokens,
      ':cost': usage.cost,
      ':zero': 0,
      ':owner': reservation.owner,
    };
    const names: Record<string, string> = {};
    if (final) {
      names['#status'] = 'status';
      entrySets.push('#status = :status', 'finishedAt = :at');
      values[':status'] = final.status;
      values[':at'] = at;
      if (final.status === 'done') {
        names['#result'] = 'result';
        entrySets.push('#result = :result');
        values[':result'] = final.result;
      } else {
        entrySets.push('failureKind = :kind', 'errorClass = :class', 'lastError = :err');
        values[':kind'] = final.failureKind;
        values[':class'] = final.errorClass;
        values[':err'] = final.lastError.slice(0, 1000);
      }
    }
    const entryUpdate = `SET ${entrySets.join(', ')}`;
    await this.settle(
      {
        TableName: this.tableName,
        Key: { pk, sk: JOB_SK },
        UpdateExpression:
          'SET costCommitted = costCommitted + :delta, costReserved = costReserved - :est, costSpent = costSpent + :cost',
        ExpressionAttributeValues: {
          ':delta': usage.cost - reservation.estimate,
          ':est': reservation.estimate,
          ':cost': usage.cost,
        },
      },
      {
        TableName: this.tableName,
        Key: { pk, sk: callSk(call.chunk, call.clauseId, call.analystId) },
        UpdateExpression: entryUpdate,
        ConditionExpression: 'ownerFence = :owner',
        ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
      },
    );
  }

  /**
   * Moves the money and records the entry in one transaction. If a later holder of the
   * chunk has re-reserved the entry since (this holder's lease ran out), the entry is
   * theirs and is left alone, but the money this attempt reserved and spent still settles.
   */
  private async settle(money: Update | undefined, entry: Update): Promise<void> {
    const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [{ Update: entry }];
    if (money) items.unshift({ Update: money });
    try {
      await transactWrite(this.db, { TransactItems: items });
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      if (money) await transactWrite(this.db, { TransactItems: [{ Update: money }] });
    }
  }

  /**
   * Settles an attempt that got no answer (nothing billed): the reservation is released, and
   * the entry records the error, final or retryable.
   */
  async settleUnanswered(
    call: CallRef,
    held: HeldReservation | { readonly owner: string },
    outcome: {
      status: 'failed' | 'retryable';
      failureKind?: CallFailureKind;
      errorClass: string;
      lastError: string;
    },
  ): Promise<void> {
    const pk = jobPk(call.jobId);
    const reservation = 'estimate' in held ? held : undefined;
    const entry: Update = {
      TableName: this.tableName,
      Key: { pk, sk: callSk(call.chunk, call.clauseId, call.analystId) },
      UpdateExpression:
        'SET jobId = :job, chunk = :chunk, clauseId = :clause, analystId = :analyst, idempotencyKey = :key, #status = :status, errorClass = :class, lastError = :err, finishedAt = :at, attempts = if_not_exists(attempts, :zero), ownerFence = :owner' +
        (outcome.failureKind ? ', failureKind = :kind' : ''),
      // With a reservation, the entry must still be this holder's. Without one (the call did
      // not start), the caller holds the chunk: any in-flight entry is its own or a dead
      // holder's, and only a final one must not be overwritten.
      ConditionExpression: reservation
        ? 'ownerFence = :owner'
        : 'attribute_not_exists(#status) OR NOT (#status IN (:done, :failed))',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':job': call.jobId,
        ':chunk': call.chunk,
        ':clause': call.clauseId,
        ':analyst': call.analystId,
        ':key': call.idempotencyKey,
        ':status': outcome.status,
        ':class': outcome.errorClass,
        ':err': outcome.lastError.slice(0, 1000),
        ':at': new Date(this.now()).toISOString(),
        ':zero': 0,
        ':owner': held.owner,
        ...(reservation ? {} : { ':done': 'done', ':failed': 'failed' }),
        ...(outcome.failureKind ? { ':kind': outcome.failureKind } : {}),
      },
    };
    const money: Update | undefined = reservation
      ? {
          TableName: this.tableName,
          Key: { pk, sk: JOB_SK },
          UpdateExpression: 'SET costCommitted = costCommitted - :est, costReserved = costReserved - :est',
          ExpressionAttributeValues: { ':est': reservation.estimate },
        }
      : undefined;
    await this.settle(money, entry);
  }
}
