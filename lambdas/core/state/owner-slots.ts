/**
 * Admission control: how many of an owner's jobs run at once. An owner's item
 * (`OWNER#<owner>` / `SLOTS`) counts the jobs that hold one of its slots (`held`) and records the
 * cap intake last admitted against (`cap`). A job takes a slot in the same transaction that
 * moves it to `running` (from intake, from the queue, or resumed from a pause), and gives it
 * back in the same transaction that moves it on to `paused`, `cancelled` or an end status, so
 * the count never drifts from the jobs' statuses. A job that finds its owner full waits as
 * `queued`; a slot given back starts the owner's oldest one (`core/intake/admission.ts`).
 */
import { type DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isWriteRefused } from './errors.js';
import { type Job, type JobPlan, jobFromItem } from './job.js';
import { JOB_SK, jobPk, OWNER_SLOTS_SK, ownerSlotsPk, STATUS_INDEX, statusGsiPk } from './keys.js';
import { chargedFields, type SpendCharge, spendChargeItem } from './owner-spend.js';
import { queryAll } from './query-all.js';
import { queuedSkPrefix, type StatusChangeFields, statusChange } from './status-change.js';
import { conditionHeld, type LabelledItem, refusable, transactLabelled } from './transact.js';

/** A status change as {@link statusChange} builds it. */
export type StatusUpdate = ReturnType<typeof statusChange>;

/** The key of an owner's slot count. */
export function ownerSlotsKey(owner: string) {
  return { pk: ownerSlotsPk(owner), sk: OWNER_SLOTS_SK };
}

/** True for a job item that holds one of its owner's slots. */
function holdsSlot(
  item: Record<string, unknown> | undefined,
): item is Record<string, unknown> & { owner: string } {
  return item?.holdsSlot === true && typeof item.owner === 'string';
}

/** `update` with `attribute` removed as well. */
function removing(update: string, attribute: string): string {
  return update.includes(' REMOVE ') ? `${update}, ${attribute}` : `${update} REMOVE ${attribute}`;
}

/**
 * Sends one status change of a job item built by {@link statusChange}, and when the job holds
 * one of its owner's slots gives the slot back in the same transaction. Most jobs hold none, so
 * the change is first sent alone, on the condition that the job holds no slot; only a job that
 * does (the refusal carries the item) is changed again as a transaction with its owner's count.
 * Returns the job as the change left it, and whether it gave a slot back.
 * @throws WriteRefusedError (label `job`) when the change's own condition refused it
 */
export async function sendReleasingChange(
  db: DynamoDBDocumentClient,
  tableName: string,
  jobId: string,
  update: StatusUpdate,
): Promise<{ job: Job; gaveBackSlot: boolean }> {
  const Key = { pk: jobPk(jobId), sk: JOB_SK };
  // A slot is taken only on the way to `running`, so two rounds settle any race with a start.
  for (let round = 0; ; round++) {
    try {
      const r = await refusable(jobId, 'job', (returnOnRefusal) =>
        db.send(
          new UpdateCommand({
            ...returnOnRefusal,
            TableName: tableName,
            Key,
            ...update,
            ConditionExpression: `(${update.ConditionExpression}) AND attribute_not_exists(holdsSlot)`,
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      return { job: jobFromItem(r.Attributes as Job), gaveBackSlot: false };
    } catch (error) {
      if (!isWriteRefused(error) || !holdsSlot(error.item) || round >= 2) throw error;
      try {
        return { job: await releaseWith(db, tableName, jobId, update, error.item.owner), gaveBackSlot: true };
      } catch (refused) {
        // Refused while still holding its slot: the change's own condition failed.
        if (!isWriteRefused(refused) || refused.label !== 'job' || holdsSlot(refused.item)) throw refused;
      }
    }
  }
}

/** The status change and the owner's count down by one, in one transaction. */
async function releaseWith(
  db: DynamoDBDocumentClient,
  tableName: string,
  jobId: string,
  update: StatusUpdate,
  owner: string,
): Promise<Job> {
  const Key = { pk: jobPk(jobId), sk: JOB_SK };
  await transactLabelled(db, jobId, [
    {
      label: 'job',
      item: {
        Update: {
          TableName: tableName,
          Key,
          ...update,
          UpdateExpression: removing(update.UpdateExpression, 'holdsSlot'),
          ConditionExpression: `(${update.ConditionExpression}) AND holdsSlot = :holdsSlot`,
          ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':holdsSlot': true },
        },
      },
    },
    {
      label: 'slots',
      item: {
        Update: {
          TableName: tableName,
          Key: ownerSlotsKey(owner),
          UpdateExpression: 'ADD #held :minus',
          ExpressionAttributeNames: { '#held': 'held' },
          ExpressionAttributeValues: { ':minus': -1 },
        },
      },
    },
  ]);
  const r = await db.send(new GetCommand({ TableName: tableName, Key, ConsistentRead: true }));
  return jobFromItem(r.Item as Job);
}

/** What a try to take a slot came to. */
export type TakeOutcome =
  /** The job is running and holds a slot. */
  | { readonly outcome: 'running' }
  /** The owner has as many jobs running as its cap: nothing changed. */
  | { readonly outcome: 'full' }
  /**
   * The job's bound would take its owner's day past the spend cap: nothing changed. `committed`
   * is the day's figure as the refusal found it.
   */
  | { readonly outcome: 'over-spend'; readonly committed: number }
  /**
   * The job was not in the status the move starts from (started, cancelled): nothing changed.
   * `job` is the job as it stood, sent with the refusal (absent: there is no such job).
   */
  | { readonly outcome: 'moved'; readonly job?: Job };

/** An owner's slots: taking one as a job starts, queueing a job, finding the oldest queued. */
export class OwnerSlots {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Moves a job from `from` to `running` while its owner has fewer than `cap` jobs holding a
   * slot, taking one, in one transaction: of two starters, one starts it. Without `cap`, the cap
   * intake last recorded on the owner's item applies (none: no cap). With `admission.spend`, the
   * same transaction adds the job's bound to its owner's day (owner-spend.ts), refused past the
   * day's cap; with `admission.slot` false, it takes no slot (a stack with a spend cap alone).
   */
  async take(
    jobId: string,
    owner: string,
    from: 'intake' | 'queued' | 'paused',
    cap: number | undefined,
    change: StatusChangeFields = {},
    admission: { readonly spend?: SpendCharge; readonly slot?: boolean } = {},
  ): Promise<TakeOutcome> {
    const at = new Date(this.now()).toISOString();
    const slot = admission.slot !== false;
    const job = statusChange(jobId, [from], 'running', at, {
      ...change,
      set: {
        ...change.set,
        ...(slot ? { holdsSlot: true } : {}),
        ...(admission.spend ? chargedFields(admission.spend) : {}),
      },
      remove: [...(change.remove ?? []), 'waitingFor'],
    });
    const room =
      cap === undefined
        ? {
            UpdateExpression: 'ADD #held :one',
            ConditionExpression: 'attribute_not_exists(#cap) OR attribute_not_exists(#held) OR #held < #cap',
            ExpressionAttributeValues: { ':one': 1 },
          }
        : {
            UpdateExpression: 'ADD #held :one SET #cap = :cap',
            ConditionExpression: 'attribute_not_exists(#held) OR #held < :cap',
            ExpressionAttributeValues: { ':one': 1, ':cap': cap },
          };
    const slots: LabelledItem<'slots'> = {
      label: 'slots',
      item: {
        Update: {
          TableName: this.tableName,
          Key: ownerSlotsKey(owner),
          ExpressionAttributeNames: { '#held': 'held', '#cap': 'cap' },
          ...room,
        },
      },
    };
    try {
      await transactLabelled(this.db, jobId, [
        {
          label: 'job',
          item: { Update: { TableName: this.tableName, Key: { pk: jobPk(jobId), sk: JOB_SK }, ...job } },
        },
        ...(slot ? [slots] : []),
        ...(admission.spend ? [spendChargeItem(this.tableName, owner, admission.spend)] : []),
      ]);
      return { outcome: 'running' };
    } catch (error) {
      if (!isWriteRefused(error)) throw error;
      if (error.label === 'slots') return { outcome: 'full' };
      if (error.label === 'spend')
        return { outcome: 'over-spend', committed: Number(error.item?.committed ?? 0) };
      return { outcome: 'moved', ...(error.item ? { job: jobFromItem(error.item as unknown as Job) } : {}) };
    }
  }

  /**
   * `intake` → `queued`: the job's plan is recorded, with the caps it was admitted against and
   * why it waits, and it waits for its owner; its document and checkpoints stay where intake put
   * them. False when the job had left `intake`.
   */
  async queue(
    jobId: string,
    owner: string,
    plan: JobPlan,
    admission: Pick<Job, 'spendCap' | 'slotless' | 'waitingFor'> = {},
  ): Promise<boolean> {
    const at = new Date(this.now()).toISOString();
    return conditionHeld(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: jobPk(jobId), sk: JOB_SK },
          ...statusChange(jobId, ['intake'], 'queued', at, {
            set: { ...plan, ...admission },
            stamp: ['queuedAt'],
            owner,
          }),
        }),
      ),
    );
  }

  /** Records why a queued job still waits (its owner's day, say); nothing when it has left `queued`. */
  async noteWait(jobId: string, waitingFor: string): Promise<void> {
    await conditionHeld(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: jobPk(jobId), sk: JOB_SK },
          UpdateExpression: 'SET waitingFor = :w',
          ConditionExpression: '#status = :queued AND (attribute_not_exists(waitingFor) OR waitingFor <> :w)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':w': waitingFor, ':queued': 'queued' },
        }),
      ),
    );
  }

  /** Jobs holding a slot of the owner, as its item counts them. */
  async held(owner: string): Promise<number> {
    const r = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: ownerSlotsKey(owner), ConsistentRead: true }),
    );
    return typeof r.Item?.held === 'number' ? r.Item.held : 0;
  }

  /**
   * The ids of the owner's queued jobs, oldest first: one key range of the status index (a
   * queued job's sort key starts with its owner), so the read is as long as this owner's queue
   * and no longer. The index is eventually consistent: a start conditioned on `queued` decides.
   */
  async queued(owner: string, limit = 10): Promise<string[]> {
    const items = await queryAll<{ jobId?: unknown }>(
      this.db,
      {
        TableName: this.tableName,
        IndexName: STATUS_INDEX,
        KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :owner)',
        // An owner whose id extends another's with '#' shares its key range; the filter keeps them apart.
        FilterExpression: '#owner = :id',
        ProjectionExpression: 'jobId',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: {
          ':pk': statusGsiPk('queued'),
          ':owner': queuedSkPrefix(owner),
          ':id': owner,
        },
        Limit: limit,
      },
      limit,
    );
    return items.flatMap((item) => (typeof item.jobId === 'string' ? [item.jobId] : []));
  }

  /**
   * The owners with a queued job (for the sweeper's safety net), one request per owner: each
   * reads the first queued job after the previous owner's key range, however long that owner's
   * queue is.
   */
  async ownersWithQueued(): Promise<string[]> {
    const owners: string[] = [];
    for (let after: string | undefined; ; ) {
      const r = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: STATUS_INDEX,
          KeyConditionExpression: after === undefined ? 'gsi1pk = :pk' : 'gsi1pk = :pk AND gsi1sk > :after',
          ProjectionExpression: '#owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':pk': statusGsiPk('queued'),
            ...(after === undefined ? {} : { ':after': after }),
          },
          Limit: 1,
        }),
      );
      const owner = r.Items?.[0]?.owner;
      if (typeof owner !== 'string') return owners;
      owners.push(owner);
      // Past every key of this owner: '#' + anything sorts below '#\uffff'.
      after = `${queuedSkPrefix(owner)}\uffff`;
    }
  }
}
