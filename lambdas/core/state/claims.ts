import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type CallCounts,
  type Checkpoint,
  type ErrorClass,
  LIVE_STATUSES,
  LIVE_VALUES,
} from './checkpoint.js';
import { isConditionFailure, isWriteRefused, LeaseLostError } from './errors.js';
import { CHECKPOINT_PREFIX, checkpointSk, JOB_SK, jobPk, STAGES, type Stage } from './keys.js';
import { queryAll } from './query-all.js';
import { refusable, transactWrite } from './transact.js';

/** Actions one TransactWriteItems request may hold. */
const TRANSACTION_ITEMS = 100;

export type {
  CallCounts,
  Checkpoint,
  CheckpointStatus,
  ErrorClass,
  UnstartedCall,
  UnstartedReason,
} from './checkpoint.js';

/** A held claim. Every write made under it is fenced by `fence`. */
export interface Lease {
  readonly jobId: string;
  readonly chunk: number;
  readonly stage: Stage;
  readonly workerId: string;
  readonly fence: number;
  readonly attempts: number;
  expiresAt: number;
}

/** Outcome of a claim attempt. */
export type ClaimResult =
  | { won: true; lease: Lease; checkpoint: Checkpoint }
  | { won: false; checkpoint: Checkpoint | undefined };

/** The owner a ledger entry or an allotment records for a holder of a lease. */
export const leaseOwner = (lease: Pick<Lease, 'workerId' | 'fence'>) => `${lease.workerId}:${lease.fence}`;

/**
 * The fencing condition every write under a lease carries: the stage is still claimed by
 * this worker with this token, so a worker whose lease ran out commits nothing.
 */
export function fenceCondition(lease: Lease): { condition: string; values: Record<string, unknown> } {
  return {
    condition: 'claimedBy = :me AND fence = :fence',
    values: { ':me': lease.workerId, ':fence': lease.fence },
  };
}

/** Chunk-stage checkpoints with claims, leases and fencing. */
export class Claims {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Creates every chunk's pending checkpoints, each only if absent. A fresh job's go in
   * transactions of up to 100 puts (TransactWriteItems' limit:
   * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html),
   * sent together, so a long contract costs a few requests instead of one per checkpoint. A
   * transaction refused because some already exist (a resumed intake) is done again one
   * conditional put at a time, so a started chunk is never reset.
   */
  async createAll(jobId: string, chunkCount: number): Promise<void> {
    const items: Record<string, unknown>[] = [];
    for (let chunk = 0; chunk < chunkCount; chunk++) {
      for (const stage of STAGES) {
        items.push({
          pk: jobPk(jobId),
          sk: checkpointSk(chunk, stage),
          jobId,
          chunk,
          stage,
          status: 'pending',
          fence: 0,
          attempts: 0,
        });
      }
    }
    const absent = 'attribute_not_exists(pk)';
    const put = async (Item: Record<string, unknown>) => {
      try {
        await this.db.send(new PutCommand({ TableName: this.tableName, Item, ConditionExpression: absent }));
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    };
    const groups: Record<string, unknown>[][] = [];
    for (let i = 0; i < items.length; i += TRANSACTION_ITEMS)
      groups.push(items.slice(i, i + TRANSACTION_ITEMS));
    await Promise.all(
      groups.map(async (group) => {
        try {
          await transactWrite(this.db, {
            TransactItems: group.map((Item) => ({
              Put: { TableName: this.tableName, Item, ConditionExpression: absent },
            })),
          });
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
          for (let i = 0; i < group.length; i += 25) await Promise.all(group.slice(i, i + 25).map(put));
        }
      }),
    );
  }

  /** One checkpoint, strongly consistent. */
  async get(jobId: string, chunk: number, stage: Stage): Promise<Checkpoint | undefined> {
    const r = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: jobPk(jobId), sk: checkpointSk(chunk, stage) },
        ConsistentRead: true,
      }),
    );
    return r.Item as Checkpoint | undefined;
  }

  /** Every checkpoint of a job, in chunk then stage order. */
  async list(jobId: string): Promise<Checkpoint[]> {
    return queryAll<Checkpoint>(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': jobPk(jobId), ':prefix': CHECKPOINT_PREFIX },
      ConsistentRead: true,
    });
  }

  /**
   * Claims a chunk-stage: `attribute_not_exists(claimedBy) OR claimExpiresAt < :now`, and
   * only while the stage is still live. The winner gets a lease with a fresh fencing token.
   */
  async claim(
    jobId: string,
    chunk: number,
    stage: Stage,
    workerId: string,
    leaseMs: number,
  ): Promise<ClaimResult> {
    const now = this.now();
    try {
      const r = await refusable(jobId, 'checkpoint', (returnOnRefusal) =>
        this.db.send(
          new UpdateCommand({
            ...returnOnRefusal,
            TableName: this.tableName,
            Key: { pk: jobPk(jobId), sk: checkpointSk(chunk, stage) },
            UpdateExpression:
              'SET claimedBy = :me, claimExpiresAt = :exp, #status = :running, startedAt = if_not_exists(startedAt, :at) ADD fence :one, attempts :one',
            ConditionExpression: `attribute_exists(pk) AND (attribute_not_exists(claimedBy) OR claimExpiresAt < :now) AND #status IN (${LIVE_STATUSES})`,
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':me': workerId,
              ':exp': now + leaseMs,
              ':now': now,
              ':one': 1,
              ':at': new Date(now).toISOString(),
              ...LIVE_VALUES,
            },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      const item = r.Attributes as Checkpoint;
      return {
        won: true,
        checkpoint: item,
        lease: {
          jobId,
          chunk,
          stage,
          workerId,
          fence: item.fence,
          attempts: item.attempts,
          expiresAt: now + leaseMs,
        },
      };
    } catch (error) {
      if (!isWriteRefused(error)) throw error;
      // The checkpoint as it stood, sent with the refusal: held, finished, or not there.
      return { won: false, checkpoint: error.item as Checkpoint | undefined };
    }
  }

  /** One UpdateItem of the lease's checkpoint under the lease ({@link underLease}). */
  private fencedUpdate(
    lease: Lease,
    update: string,
    values: Record<string, unknown>,
    names?: Record<string, string>,
  ): Promise<void> {
    const f = fenceCondition(lease);
    return this.underLease(lease, () =>
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: jobPk(lease.jobId), sk: checkpointSk(lease.chunk, lease.stage) },
          UpdateExpression: update,
          ConditionExpression: f.condition,
          ...(names ? { ExpressionAttributeNames: names } : {}),
          ExpressionAttributeValues: { ...f.values, ...values },
        }),
      ),
    );
  }

  /**
   * A write under the lease, conditional on it (`fenceCondition`): a refusal means another
   * worker holds the stage now, and becomes LeaseLostError.
   */
  private async underLease(lease: Lease, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (isConditionFailure(error))
        throw new LeaseLostError(lease.jobId, lease.chunk, lease.stage, { cause: error });
      throw error;
    }
  }

  /**
   * Extends the lease, recording the stage's call counts so far when given; throws
   * LeaseLostError when another worker has taken the stage over.
   */
  async heartbeat(lease: Lease, leaseMs: number, progress?: CallCounts): Promise<void> {
    const exp = this.now() + leaseMs;
    // The stage's call counts so far ride along, so progress shows without a write per call.
    await this.fencedUpdate(lease, `SET claimExpiresAt = :exp${progress ? ', calls = :calls' : ''}`, {
      ':exp': exp,
      ...(progress ? { ':calls': { ...progress } } : {}),
    });
    lease.expiresAt = exp;
  }

  /**
   * Records the stage's call counts so far under the lease, so progress moves between
   * heartbeats; throws LeaseLostError when another worker has taken the stage over.
   */
  async recordCounts(lease: Lease, counts: CallCounts): Promise<void> {
    await this.fencedUpdate(lease, 'SET calls = :calls', { ':calls': { ...counts } });
  }

  /** Finishes a stage that is not the chunk's last (the chunk counter is untouched). */
  async completeStage(
    lease: Lease,
    fields: Pick<Checkpoint, 'calls' | 'unstarted'> & { result?: string } = {},
  ): Promise<void> {
    await this.fencedUpdate(
      lease,
      `SET #status = :done, finishedAt = :at, calls = :calls, #result = :result${fields.unstarted ? ', unstarted = :unstarted' : ''} REMOVE claimedBy, claimExpiresAt, lastError, errorClass`,
      {
        ':done': 'done',
        ':at': new Date(this.now()).toISOString(),
        ':calls': fields.calls ?? null,
        ':result': fields.result ?? null,
        ...(fields.unstarted ? { ':unstarted': fields.unstarted } : {}),
      },
      { '#status': 'status', '#result': 'result' },
    );
  }

  /**
   * Ends the chunk: its stage becomes `done` (or `cancelled`, with where it stopped) and the
   * job's counters move in the same transaction, so a chunk is counted exactly once.
   */
  async finishChunk(
    lease: Lease,
    outcome:
      | ({ status: 'done'; result?: string } & Pick<Checkpoint, 'outcomes'>)
      | ({ status: 'cancelled'; stoppedAt: string } & Pick<Checkpoint, 'calls' | 'unstarted'>),
  ): Promise<void> {
    const f = fenceCondition(lease);
    const at = new Date(this.now()).toISOString();
    const done = outcome.status === 'done';
    const extra =
      outcome.status === 'cancelled'
        ? { calls: outcome.calls, unstarted: outcome.unstarted }
        : { outcomes: outcome.outcomes };
    const extraSets = Object.entries(extra)
      .filter(([, v]) => v !== undefined)
      .map(([k]) => `, ${k} = :${k}`)
      .join('');
    const extraValues = Object.fromEntries(
      Object.entries(extra)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [`:${k}`, v]),
    );
    await this.underLease(lease, () =>
      transactWrite(this.db, {
        TransactItems: [
          {
            Update: {
              TableName: this.tableName,
              Key: { pk: jobPk(lease.jobId), sk: checkpointSk(lease.chunk, lease.stage) },
              UpdateExpression: `SET #status = :status, finishedAt = :at, ${done ? '#result = :result' : 'stoppedAt = :stopped'}${extraSets} REMOVE claimedBy, claimExpiresAt`,
              ConditionExpression: f.condition,
              ExpressionAttributeNames: { '#status': 'status', ...(done ? { '#result': 'result' } : {}) },
              ExpressionAttributeValues: {
                ...f.values,
                ':status': outcome.status,
                ':at': at,
                ...(done ? { ':result': outcome.result ?? null } : { ':stopped': outcome.stoppedAt }),
                ...extraValues,
              },
            },
          },
          {
            Update: {
              TableName: this.tableName,
              Key: { pk: jobPk(lease.jobId), sk: JOB_SK },
              UpdateExpression: `ADD chunksTerminal :one${done ? ', chunksDone :one' : ''} SET updatedAt = :at`,
              ExpressionAttributeValues: { ':one': 1, ':at': at },
            },
          },
        ],
      }),
    );
  }

  /**
   * Gives the stage back after a failed attempt, recording why: the message returns after
   * its visibility backoff and the next claimant starts from the checkpoint.
   */
  async release(lease: Lease, failure: { lastError: string; errorClass: ErrorClass }): Promise<void> {
    await this.fencedUpdate(
      lease,
      'SET #status = :retrying, lastError = :err, errorClass = :class, failedAt = :at REMOVE claimedBy, claimExpiresAt',
      {
        ':retrying': 'retrying',
        ':err': failure.lastError.slice(0, 1000),
        ':class': failure.errorClass,
        ':at': new Date(this.now()).toISOString(),
      },
      { '#status': 'status' },
    );
  }

  /**
   * Gives a stage's lease up without a failure: the job was paused. The stage goes back to
   * `pending` with its checkpoint kept, no attempt is held against it, and the resume sends
   * its message again.
   */
  async setAside(lease: Lease): Promise<void> {
    await this.fencedUpdate(
      lease,
      'SET #status = :pending, pausedAt = :at REMOVE claimedBy, claimExpiresAt',
      { ':pending': 'pending', ':at': new Date(this.now()).toISOString() },
      { '#status': 'status' },
    );
  }
}
