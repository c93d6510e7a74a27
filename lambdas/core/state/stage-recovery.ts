import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type AbandonedReturn, abandonedReturn } from './abandoned.js';
import { CallLedger } from './call-ledger.js';
import {
  type Checkpoint,
  type ErrorClass,
  isChunkTerminal,
  LIVE_STATUSES,
  LIVE_VALUES,
} from './checkpoint.js';
import { Claims } from './claims.js';
import { isConditionFailure } from './errors.js';
import { checkpointSk, JOB_SK, jobPk, STAGES, type Stage } from './keys.js';
import { transactWrite } from './transact.js';

/** Why a message for a chunk-stage was sent again: the counters that bound it. */
export type ResendKind = 'sweep' | 'redrive' | 'resume';

/** The counter and time stamp each kind of re-send keeps on the checkpoint. */
const RESEND_FIELDS = {
  sweep: { counter: 'sweeps', stamp: 'sweptAt' },
  redrive: { counter: 'redrives', stamp: 'redrivenAt' },
  resume: { counter: 'resumes', stamp: 'resumedAt' },
} as const satisfies Record<ResendKind, { counter: keyof Checkpoint; stamp: keyof Checkpoint }>;

/**
 * What the sweeper, DLQ triage and a resume do to chunk-stages they do not hold: send a live
 * stage's message again, once per observed count, and end a chunk as `dead` with its money
 * returned. A worker's own claim, lease and fenced writes are {@link Claims}'.
 */
export class StageRecovery {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
    /** Where a job's checkpoints are read from. */
    private readonly checkpoints: Pick<Claims, 'list'> = new Claims(db, tableName, now),
  ) {}

  /**
   * Records that a new message is about to be sent for a live stage, once per observed count:
   * the update is conditioned on the counter still being `seen`, so of two sweepers (or
   * triage runs) looking at the same checkpoint only one re-enqueues. Returns false when the
   * stage moved on or another caller got there first.
   */
  async recordResend(cp: Checkpoint, kind: ResendKind): Promise<boolean> {
    const { counter, stamp } = RESEND_FIELDS[kind];
    const seen = cp[counter] ?? 0;
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: jobPk(cp.jobId), sk: checkpointSk(cp.chunk, cp.stage) },
          UpdateExpression: `SET #counter = :next, #stamp = :at, enqueuedAttempts = attempts`,
          ConditionExpression: `#status IN (${LIVE_STATUSES}) AND ${
            seen === 0 ? '(attribute_not_exists(#counter) OR #counter = :seen)' : '#counter = :seen'
          }`,
          ExpressionAttributeNames: { '#status': 'status', '#counter': counter, '#stamp': stamp },
          ExpressionAttributeValues: {
            ...LIVE_VALUES,
            ':seen': seen,
            ':next': seen + 1,
            ':at': new Date(this.now()).toISOString(),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * Ends a chunk as `dead` without holding its lease (the sweeper at a deadline, DLQ triage
   * for a permanent failure): the chunk's live stage becomes `dead` with the reason, and the
   * job's terminal count moves in the same transaction, so the chunk is counted once even if
   * its worker finishes at the same moment (one of the two transactions is refused).
   *
   * Without `force`, a stage whose claim is still live is left to its holder. With it, the
   * claim is removed, so the holder's next fenced write fails and it commits nothing more.
   * Either way no holder will return the stage's allotment, so it goes back to the job in the
   * same transaction, less what the holder may have spent (see `abandonedReturn`).
   * Returns the stage marked, or undefined when the chunk was already terminal or held.
   */
  async markDead(
    jobId: string,
    chunk: number,
    failure: { reason: string; errorClass: ErrorClass },
    options: { force?: boolean } = {},
  ): Promise<Stage | undefined> {
    const stages = (await this.checkpoints.list(jobId)).filter((c) => c.chunk === chunk);
    if (stages.length === 0 || isChunkTerminal(stages)) return undefined;
    const live = STAGES.map((s) => stages.find((c) => c.stage === s)).find((c) => c && c.status !== 'done');
    if (!live) return undefined;
    const now = this.now();
    const at = new Date(now).toISOString();
    const previous = STAGES[STAGES.indexOf(live.stage) - 1];
    const unheld = options.force ? '' : ' AND (attribute_not_exists(claimedBy) OR claimExpiresAt < :now)';
    const back = (live.allotment ?? 0) !== 0 ? await this.allotmentBack(live) : undefined;
    try {
      await transactWrite(this.db, {
        TransactItems: [
          {
            Update: {
              TableName: this.tableName,
              Key: { pk: jobPk(jobId), sk: checkpointSk(chunk, live.stage) },
              UpdateExpression: `SET #status = :dead, finishedAt = :at, lastError = :err, errorClass = :class${back ? `, ${back.checkpointSet}` : ''} REMOVE claimedBy, claimExpiresAt${back ? `, ${back.checkpointRemove}` : ''}`,
              // Without money read, none may have arrived since: a holder whose claim ran out can
              // still take an allotment until another claims the stage.
              ConditionExpression: `#status IN (${LIVE_STATUSES})${unheld} AND ${back ? back.checkpointCondition : '(attribute_not_exists(allotment) OR allotment = :noMoney)'}`,
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ...LIVE_VALUES,
                ...(back ? back.checkpointValues : { ':noMoney': 0 }),
                ':dead': 'dead',
                ':at': at,
                ':err': failure.reason.slice(0, 1000),
                ':class': failure.errorClass,
                ...(options.force ? {} : { ':now': now }),
              },
            },
          },
          // A later stage is only live once the earlier one is done; checking it keeps two
          // callers from marking different stages of one chunk and counting it twice.
          ...(previous
            ? [
                {
                  ConditionCheck: {
                    TableName: this.tableName,
                    Key: { pk: jobPk(jobId), sk: checkpointSk(chunk, previous) },
                    ConditionExpression: '#status = :done',
                    ExpressionAttributeNames: { '#status': 'status' },
                    ExpressionAttributeValues: { ':done': 'done' },
                  },
                },
              ]
            : []),
          {
            Update: {
              TableName: this.tableName,
              Key: { pk: jobPk(jobId), sk: JOB_SK },
              UpdateExpression: `ADD chunksTerminal :one SET updatedAt = :at${back ? `, ${back.jobSet}` : ''}`,
              ExpressionAttributeValues: { ':one': 1, ':at': at, ...back?.jobValues },
            },
          },
        ],
      });
      return live.stage;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  /** How a stage's allotment returns to the job when no holder will return it. */
  private async allotmentBack(cp: Checkpoint): Promise<AbandonedReturn | undefined> {
    const entries = await new CallLedger(this.db, this.tableName, this.now).forChunk(cp.jobId, cp.chunk);
    return abandonedReturn(cp, entries.values());
  }
}
