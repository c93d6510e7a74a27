import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type AbandonedSpend, abandonedReturn } from './abandoned.js';
import type { LedgerEntry } from './call-ledger.js';
import { type Checkpoint, fenceCondition, type Lease, leaseOwner } from './claims.js';
import { AllotmentOverdrawnError, isWriteRefused, LeaseLostError } from './errors.js';
import { type Job, jobFromItem } from './job.js';
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

/** The checkpoint's and the job's halves of one fenced money transaction. */
interface MoneyWrite {
  readonly checkpoint: {
    readonly update: string;
    readonly condition?: string;
    readonly values: Record<string, unknown>;
  };
  readonly job: {
    readonly update: string;
    readonly condition?: string;
    readonly names?: Record<string, string>;
    readonly values: Record<string, unknown>;
  };
}

/**
 * The job's budget moves in allotments, so that the job item is written per chunk, not per
 * call. A chunk lease takes an allotment from the job in one conditional update, its calls
 * reserve against it in memory, and what is left returns when the lease ends. The checkpoint
 * records the allotment its holder has (`allotment`, `allotmentOwner`) in the same
 * transaction, so that a lease taken over from a dead holder can return that holder's
 * allotment, less what the holder may have spent (see {@link Allotments.recover}).
 *
 * Job item: `costCommitted` = `costSpent` + `costReserved`, where `costReserved` is the sum of
 * the allotments held. The ceiling condition is `costCommitted <= limit - take`. No move takes
 * a checkpoint's allotment below zero: that write is refused ({@link AllotmentOverdrawnError}).
 */
export class Allotments {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Moves money between the lease's allotment and the job in one transaction: the checkpoint
   * write is fenced to the lease and, when the allotment shrinks, conditional on it holding
   * that much; the job write is conditional on the job running, the ceiling not reached and
   * room for `take`. Returns `{ ok: false, job }` when the job refused, with the job as
   * DynamoDB returned it with the refusal (so the caller can tell a cancel from a full budget
   * without a read); throws LeaseLostError when the lease is gone, and
   * AllotmentOverdrawnError when the lease is held but the allotment is short of the move.
   */
  async move(lease: Lease, move: AllotmentMove, job: Pick<Job, 'ceilingMicros'>): Promise<MoveResult> {
    const delta = move.take - move.release - move.spent;
    if (move.take === 0 && move.release === 0 && move.spent === 0) return { ok: true };
    const asks = move.take > 0;
    const shrinks = delta < 0;
    try {
      await this.write(lease, {
        checkpoint: {
          update:
            'SET allotment = if_not_exists(allotment, :zero) + :delta, allotmentOwner = :owner, spentAccounted = if_not_exists(spentAccounted, :zero) + :spent',
          ...(shrinks ? { condition: 'allotment >= :shrink' } : {}),
          values: {
            ':zero': 0,
            ':delta': delta,
            ':spent': move.spent,
            ':owner': leaseOwner(lease),
            ...(shrinks ? { ':shrink': -delta } : {}),
          },
        },
        job: {
          update:
            'SET costCommitted = costCommitted + :committed, costReserved = costReserved + :delta, costSpent = costSpent + :spent',
          ...(asks
            ? {
                condition:
                  '#status = :running AND attribute_not_exists(budgetExceededAt) AND costCommitted <= :room',
                names: { '#status': 'status' },
              }
            : {}),
          values: {
            ':committed': move.take - move.release,
            ':delta': delta,
            ':spent': move.spent,
            ...(asks
              ? { ':running': 'running', ':room': job.ceilingMicros - (move.take - move.release) }
              : {}),
          },
        },
      });
      return { ok: true };
    } catch (error) {
      // The job as it stood when it refused: the caller tells a cancel from a full budget.
      if (isWriteRefused(error) && error.label === 'job')
        return { ok: false, job: error.item && jobFromItem(error.item as unknown as Job) };
      throw error;
    }
  }

  /**
   * Settles the allotment a gone holder left on the checkpoint, once the new holder has the
   * lease: what the gone holder may have spent is its settled cost not yet accounted (the
   * ledger's cost total over the checkpoint's `spentAccounted`) plus, for every intent it left
   * in flight, that intent's reservation (see {@link abandonedReturn}). The rest returns to the
   * job; an allotment left below zero is brought back to zero. Returns what was counted spent.
   */
  async recover(
    lease: Lease,
    checkpoint: Pick<Checkpoint, 'allotment' | 'allotmentOwner' | 'spentAccounted'>,
    entries: Iterable<LedgerEntry>,
  ): Promise<AbandonedSpend> {
    if (checkpoint.allotmentOwner === leaseOwner(lease)) return { spent: 0, unknown: 0 };
    const back = abandonedReturn(checkpoint, entries);
    if (!back) return { spent: 0, unknown: 0 };
    try {
      await this.write(lease, {
        checkpoint: {
          update: `SET ${back.checkpointSet} REMOVE ${back.checkpointRemove}`,
          condition: back.checkpointCondition,
          values: back.checkpointValues,
        },
        job: { update: `SET ${back.jobSet}`, values: back.jobValues },
      });
      return { spent: back.spent, unknown: back.unknown };
    } catch (error) {
      // Under a held lease the allotment read at claim time cannot have changed.
      if (isWriteRefused(error))
        throw new LeaseLostError(lease.jobId, lease.chunk, lease.stage, { cause: error });
      throw error;
    }
  }

  /**
   * The one money transaction: the checkpoint's half fenced to the lease (and to its own
   * condition), the job's half stamped. A refused checkpoint half is a lost lease, unless the
   * checkpoint as it stood is still this lease's: then its own condition refused it, and for a
   * move that is an overdraw.
   */
  private async write(lease: Lease, w: MoneyWrite): Promise<void> {
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
              UpdateExpression: w.checkpoint.update,
              ConditionExpression: [fence.condition, w.checkpoint.condition].filter(Boolean).join(' AND '),
              ExpressionAttributeValues: { ...fence.values, ...w.checkpoint.values },
            },
          },
        },
        {
          label: 'job',
          item: {
            Update: {
              TableName: this.tableName,
              Key: { pk, sk: JOB_SK },
              UpdateExpression: `${w.job.update}, updatedAt = :at`,
              ...(w.job.condition ? { ConditionExpression: w.job.condition } : {}),
              ...(w.job.names ? { ExpressionAttributeNames: w.job.names } : {}),
              ExpressionAttributeValues: { ...w.job.values, ':at': new Date(this.now()).toISOString() },
            },
          },
        },
      ]);
    } catch (error) {
      if (!isWriteRefused(error) || error.label !== 'checkpoint') throw error;
      const stood = error.item as Partial<Checkpoint> | undefined;
      const shrink = w.checkpoint.values[':shrink'];
      if (stood?.claimedBy === lease.workerId && stood.fence === lease.fence && typeof shrink === 'number') {
        throw new AllotmentOverdrawnError(
          lease.jobId,
          lease.chunk,
          lease.stage,
          stood.allotment ?? 0,
          shrink,
          {
            cause: error,
          },
        );
      }
      throw new LeaseLostError(lease.jobId, lease.chunk, lease.stage, { cause: error });
    }
  }
}
