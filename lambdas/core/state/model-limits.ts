import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { MODEL_LIMIT_SK, modelLimitPk } from './keys.js';

/** Top-level attribute of one process's membership: `member#<workerId>` = last seen (epoch ms). */
const MEMBER_PREFIX = 'member#';

/** A model's shared concurrency, as one process's report left it. */
export interface SharedLimitReading {
  /** Permits in flight the model takes, learned across every process that calls it. */
  readonly total: number;
  /** Processes seen within the liveness window, this one included, sorted. */
  readonly members: readonly string[];
}

/** What a process reports at the end of one of its limiter windows. */
export interface LimitReport {
  readonly modelId: string;
  readonly workerId: string;
  /** How far this process's own decisions moved its limit since its last report. */
  readonly delta: number;
  /** The total to start from when no process has reported yet. */
  readonly initial: number;
  /** A member not seen for this long is gone; its share returns to the others. */
  readonly staleMs: number;
}

/**
 * The per-model concurrency that every process calling a model shares, in one item per model
 * (`MODEL#<id>` / `LIMIT`). Each process adds what its own limiter decided (a throttle steps it
 * down, a clean window grows it) with one atomic `ADD`-style update per window, and refreshes
 * its membership in the same request; what comes back tells it the total and how many share
 * it. No transaction and no condition: concurrent reports commute.
 */
export class ModelLimits {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Adds the report's delta and this process's heartbeat; returns the model's total and live members. */
  async report(r: LimitReport): Promise<SharedLimitReading> {
    const now = this.now();
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: modelLimitPk(r.modelId), sk: MODEL_LIMIT_SK },
        UpdateExpression:
          'SET #total = if_not_exists(#total, :initial) + :delta, #me = :now, updatedAt = :at',
        ExpressionAttributeNames: { '#total': 'total', '#me': `${MEMBER_PREFIX}${r.workerId}` },
        ExpressionAttributeValues: {
          ':initial': r.initial,
          ':delta': r.delta,
          ':now': now,
          ':at': new Date(now).toISOString(),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const item = out.Attributes ?? {};
    const members: string[] = [];
    const stale: string[] = [];
    for (const [name, seen] of Object.entries(item)) {
      if (!name.startsWith(MEMBER_PREFIX)) continue;
      (now - Number(seen) < r.staleMs ? members : stale).push(name.slice(MEMBER_PREFIX.length));
    }
    if (stale.length > 0) await this.forget(r.modelId, stale, now - r.staleMs);
    return { total: Number(item.total ?? r.initial), members: members.sort() };
  }

  /** Sets the total outright, unless another report moved it since `seen`: a correction. */
  async correct(modelId: string, seen: number, total: number): Promise<void> {
    await this.db
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: modelLimitPk(modelId), sk: MODEL_LIMIT_SK },
          UpdateExpression: 'SET #total = :total',
          ConditionExpression: '#total = :seen',
          ExpressionAttributeNames: { '#total': 'total' },
          ExpressionAttributeValues: { ':total': total, ':seen': seen },
        }),
      )
      .catch(() => {
        // Another process reported in between: its report counts, and the next one corrects.
      });
  }

  /** Removes members last seen before `before`; one that reported since keeps its place. */
  private async forget(modelId: string, workerIds: readonly string[], before: number): Promise<void> {
    const names: Record<string, string> = {};
    const conditions: string[] = [];
    workerIds.forEach((id, i) => {
      names[`#m${i}`] = `${MEMBER_PREFIX}${id}`;
      conditions.push(`#m${i} < :before`);
    });
    await this.db
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: modelLimitPk(modelId), sk: MODEL_LIMIT_SK },
          UpdateExpression: `REMOVE ${Object.keys(names).join(', ')}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':before': before },
        }),
      )
      .catch(() => {
        // One of them came back: left for the next report to judge.
      });
  }
}
