import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { abandonedReturn } from './abandoned.js';
import type { LedgerEntry } from './call-ledger.js';
import { type Checkpoint, fenceCondition, type Lease, leaseOwner } from './claims.js';
import { isWriteRefused, LeaseLostError } from './errors.js';
import type { Job } from './job.js';
import { checkpointSk, JOB_SK, jobPk } from './keys.js';
import { transactLabelled } from './transact.js';

/**
 * One move of a chunk's money, from the chunk lease's point of view:
 * - `spent`: cost its calls settled since the last move, now accounted to the job;
 * - `release`: unused allotment handed back;
 * - `take`: new allotment asked for (only this part is checked against the ceiling).
 */
export interface AllotmentMove {
  readonly spent: number;
  readonly release: number;
  readonly take: number;
}

/** Outcome of a move that asked for money. */
export type MoveResult = { readonly ok: true } | { readonly ok: false; readonly job: Job | undefined };

/**
 * The job's budget moves in allotments, so that the job item is written per chunk, not per
 * call. A chunk lease takes an allotment from the job in one conditional update, its calls
 * reserve against it in memory, and what is left returns when the lease ends. The checkpoint
 * records the allotment its holder has (`allotment`, `allotmentOwner`) in the same
 * transaction, so that a lease taken over from a dead holder can return that holder's
 * allotment, less what the holder may have spent (see {@link Allotments.recover}).
 *
 * Job item: `costCommitted` = `costSpent` + `costReserved`, where `costReserved` is the sum of
 * the allotments held. The ceiling condition is `costCommitted <= limit - take`.
 */
export class Allotments {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Moves money between the lease's allotment and the job in one transaction: the checkpoint
   * write is fenced to the lease, and the job write is conditional on the job running, the
   * ceiling not reached and room for `take`. Returns `{ ok: false, job }` when the job refused,
   * with the job as DynamoDB returned it with the refusal (so the caller can tell a cancel from
   * a full budget without a read); throws
   * LeaseLostError when the lease is gone.
   */
  async move(lease: Lease, move: AllotmentMove, job: Pick<Job, 'costLimit'>): Promise<MoveResult> {
    const delta = move.take - move.release - move.spent;
    if (move.take === 0 && move.release === 0 && move.spent === 0) return { ok: true };
    const pk = jobPk(lease.jobId);
    const fence = fenceCondition(lease);
    const at = new Date(this.now()).toISOString();
    const asks = move.take > 0;
    try {
      await transactLabelled(this.db, lease.jobId, [
        {
          label: 'checkpoint',
          item: {
            Update: {
              TableName: this.tableName,
              Key: { pk, sk: checkpointSk(lease.chunk, lease.stage) },
              UpdateExpression:
                'SET allotment = if_not_exists(allotment, :zero) + :delta, allotmentOwner = :owner, spentAccounted = if_not_exists(spentAccounted, :zero) + :spent',
              ConditionExpression: fence.condition,
              ExpressionAttributeValues: {
                ...fence.values,
                ':zero': 0,
                ':delta': delta,
                ':spent': move.spent,
                ':owner': leaseOwner(lease),
              },
            },
          },
        },
        {
          label: 'job',
          item: {
            Update: {
              TableName: this.tableName,
              Key: { pk, sk: JOB_SK },
              UpdateExpression:
                'SET costCommitted = costCommitted + :committed, costReserved = costReserved + :delta, costSpent = costSpent + :spent, updatedAt = :at',
              ...(asks
                ? {
                    ConditionExpression:
                      '#status = :running AND attribute_not_exists(budgetExceededAt) AND costCommitted <= :room',
                    ExpressionAttributeNames: { '#status': 'status' },
                  }
                : {}),
              ExpressionAttributeValues: {
                ':committed': move.take - move.release,
                ':delta': delta,
                ':spent': move.spent,
                ':at': at,
                ...(asks
                  ? { ':running': 'running', ':room': job.costLimit - (move.take - move.release) }
                  : {}),
              },
            },
          },
        },
      ]);
      return { ok: true };
    } catch (error) {
      if (!isWriteRefused(error)) throw error;
      if (error.label === 'checkpoint') {
        throw new LeaseLostError(lease.jobId, lease.chunk, lease.stage, { cause: error });
      }
      // The job as it stood when it refused: the caller tells a cancel from a full budget.
      return { ok: false, job: error.item as Job | undefined };
    }
  }

  /**
   * Returns the allotment a dead holder left on the checkpoint, once the new holder has the
   * lease: what the dead holder may have spent is its settled cost not yet accounted (the
   * ledger's cost total over the checkpoint's `spentAccounted`) plus, for every intent it left
   * in flight, that intent's reservation (see {@link abandonedReturn}). The rest returns to the
   * job. Returns the amount counted as spent.
   */
  async recover(
    lease: Lease,
    checkpoint: Pick<Checkpoint, 'allotment' | 'allotmentOwner' | 'spentAccounted'>,
    entries: Iterable<LedgerEntry>,
  ): Promise<number> {
    if (checkpoint.allotmentOwner === leaseOwner(lease)) return 0;
    const back = abandonedReturn(checkpoint, entries);
    if (!back) return 0;
    const pk = jobPk(lease.jobId);
    const fence = fenceCondition(lease);
    try {
      await transactLabelled(this.db, lease.jobId, [
        {
          label: 'checkpoint',
          item: {
            Update: {
              TableName: this.tableName,
              Key: { pk, sk: checkpointSk(lease.chunk, lease.stage) },
              UpdateExpression: `SET ${back.checkpointSet} REMOVE ${back.checkpointRemove}`,
              ConditionExpression: `${fence.condition} AND ${back.checkpointCondition}`,
              ExpressionAttributeValues: { ...fence.values, ...back.checkpointValues },
            },
          },
        },
        {
          label: 'job',
          item: {
            Update: {
              TableName: this.tableName,
              Key: { pk, sk: JOB_SK },
              UpdateExpression: `SET ${back.jobSet}, updatedAt = :at`,
              ExpressionAttributeValues: { ...back.jobValues, ':at': new Date(this.now()).toISOString() },
            },
          },
        },
      ]);
      return back.spent;
    } catch (error) {
      if (!isWriteRefused(error)) throw error;
      throw new LeaseLostError(lease.jobId, lease.chunk, lease.stage, { cause: error });
    }
  }
}
