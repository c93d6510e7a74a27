/**
 * An owner's spending per day, against the stack's cap (`DAILY_SPEND_PER_OWNER_MICROS`): the
 * owner's item for the day (`OWNER#<owner>` / `SPEND#<yyyy-mm-dd>`, UTC) counts what the jobs
 * started that day may spend (`committed`, micro-dollars). A job starting (from intake or the
 * queue) adds the most it may spend, its {@link spendBoundOf}, in the same transaction that
 * moves it to `running`, on the condition that the day's figure stays within the cap; so of many
 * starters at once none takes the owner past it. When the job's chunks have all ended, finalize
 * replaces that bound with what the job spent by the ledger's figures (`costSpent`), once
 * ({@link OwnerSpend.settle}); what it did not spend is room for the owner's next job that day.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { money } from '../../text/money.js';
import { isWriteRefused } from './errors.js';
import type { Job } from './job.js';
import { JOB_SK, jobPk, ownerSlotsPk } from './keys.js';
import { type LabelledItem, transactLabelled } from './transact.js';

/** The day a start counts against: its UTC date. */
export function spendDayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The key of an owner's spending on one day. */
export function ownerSpendKey(owner: string, day: string) {
  return { pk: ownerSlotsPk(owner), sk: `SPEND#${day}` };
}

/** Days an owner's day item is kept past its day (the table's TTL deletes it). */
const KEEP_DAYS = 7;

/** When the table's TTL may delete a day's item (epoch seconds). */
const expiresOf = (day: string) =>
  Math.ceil(Date.parse(`${day}T00:00:00Z`) / 1000) + (KEEP_DAYS + 1) * 86_400;

/**
 * The most a job may spend: its ceiling, or its quote's worst case when that is lower (a job
 * stops at its ceiling, and cannot spend more than every planned call at its worst).
 */
export function spendBoundOf(job: Pick<Job, 'ceilingMicros' | 'quote'>): number {
  return Math.min(job.ceilingMicros, job.quote?.worstCaseMicros ?? job.ceilingMicros);
}

/** What a start adds to its owner's day: the day, the job's bound, and the cap it must stay within. */
export interface SpendCharge {
  readonly day: string;
  readonly bound: number;
  /** Micro-dollars a day the owner's jobs may commit. */
  readonly cap: number;
}

/**
 * The transaction item that adds a start's bound to its owner's day, refused when the day's
 * figure would pass the cap. The item keeps the cap it was last charged against, for messages.
 */
export function spendChargeItem(
  tableName: string,
  owner: string,
  charge: SpendCharge,
): LabelledItem<'spend'> {
  const expires = expiresOf(charge.day);
  return {
    label: 'spend',
    item: {
      Update: {
        TableName: tableName,
        Key: ownerSpendKey(owner, charge.day),
        UpdateExpression: 'ADD #committed :bound SET #cap = :cap, expiresAt = :expires',
        ConditionExpression: 'attribute_not_exists(#committed) OR #committed <= :room',
        ExpressionAttributeNames: { '#committed': 'committed', '#cap': 'cap' },
        ExpressionAttributeValues: {
          ':bound': charge.bound,
          ':cap': charge.cap,
          ':room': charge.cap - charge.bound,
          ':expires': expires,
        },
      },
    },
  };
}

/** The job item's fields a charged start records: which day it counts on, and for how much. */
export function chargedFields(charge: SpendCharge): Pick<Job, 'spendDay' | 'spendBound'> {
  return { spendDay: charge.day, spendBound: charge.bound };
}

/**
 * Why a job waits for its owner's day: the day's figure, the cap, and what the job may spend.
 *
 * @example
 * spendWait(31_900_000, 33_000_000, 2_400_000);
 * // "its owner's jobs started today may spend $31.90 of the $33.00 a day allowed; this one may spend up to $2.40"
 */
export function spendWait(committed: number, cap: number, bound: number): string {
  return (
    `its owner's jobs started today may spend ${money(committed)} of the ${money(cap)} a day allowed; ` +
    `this one may spend up to ${money(bound)}`
  );
}

/** An owner's spending by day: read it, and settle an ended job's share of it. */
export class OwnerSpend {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** What the owner's jobs started on `day` may spend, as the day's item counts it. */
  async committed(owner: string, day: string): Promise<number> {
    const r = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: ownerSpendKey(owner, day), ConsistentRead: true }),
    );
    return typeof r.Item?.committed === 'number' ? r.Item.committed : 0;
  }

  /**
   * Replaces a charged job's bound with what it spent by the ledger's figures (`costSpent`, read
   * once every chunk has ended), once: the job is stamped `spendSettledAt` in the same
   * transaction, so a finalize that runs twice settles once. A job never charged, or settled
   * already, is left alone, with no request. Returns whether this call settled it.
   */
  async settle(
    job: Pick<Job, 'jobId' | 'owner' | 'costSpent' | 'spendDay' | 'spendBound' | 'spendSettledAt'>,
  ): Promise<boolean> {
    const { jobId } = job;
    if (!job.owner || !job.spendDay || job.spendBound === undefined || job.spendSettledAt) return false;
    try {
      await transactLabelled(this.db, jobId, [
        {
          label: 'job',
          item: {
            Update: {
              TableName: this.tableName,
              Key: { pk: jobPk(jobId), sk: JOB_SK },
              UpdateExpression: 'SET spendSettledAt = :at, spendSettled = :spent',
              ConditionExpression: 'attribute_not_exists(spendSettledAt)',
              ExpressionAttributeValues: {
                ':at': new Date(this.now()).toISOString(),
                ':spent': job.costSpent,
              },
            },
          },
        },
        {
          label: 'spend',
          item: {
            Update: {
              TableName: this.tableName,
              Key: ownerSpendKey(job.owner, job.spendDay),
              UpdateExpression: 'ADD #committed :delta SET expiresAt = if_not_exists(expiresAt, :expires)',
              ExpressionAttributeNames: { '#committed': 'committed' },
              ExpressionAttributeValues: {
                ':delta': job.costSpent - job.spendBound,
                ':expires': expiresOf(job.spendDay),
              },
            },
          },
        },
      ]);
      return true;
    } catch (error) {
      if (isWriteRefused(error) && error.label === 'job') return false;
      throw error;
    }
  }
}
