import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type DynamoDBDocumentClient,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isConditionFailure } from './errors.js';
import { CALL_PREFIX, callSk, chunkCallPrefix, jobPk } from './keys.js';
import { queryAll } from './query-all.js';
import { retryConflicts } from './transact.js';

/**
 * Where a call is. `done` and `failed` are final and are reused on every later delivery
 * (a DLQ redrive included); `in-flight` is an intent: the holder named in `ownerFence` may be
 * making it, so whoever takes the chunk over counts its `reservation` as possibly spent;
 * `retryable` is called again by the next holder.
 */
export type CallStatus = 'in-flight' | 'done' | 'failed' | 'retryable';

/** Why a final failure happened. */
/**
 * Why a call failed: a permanent error, an answer still invalid after its repair, tier-1
 * retries run out, or a model that declined to answer (stop reason `refusal`,
 * `content_filtered` or `guardrail_intervened`), which asking again would not change.
 */
export type CallFailureKind = 'permanent' | 'validation' | 'transient-exhausted' | 'refused';

/** One call-ledger entry: a (chunk, clause, analyst) call. */
export interface LedgerEntry {
  readonly jobId: string;
  readonly chunk: number;
  readonly clauseId: string;
  readonly analystId: string;
  readonly status: CallStatus;
  /** Hash of model, prompt text and parameters: a changed prompt is a different call. */
  readonly idempotencyKey: string;
  readonly modelId?: string;
  /** Model calls made for this entry (each tier-1 retry and the repair retry count). */
  readonly attempts: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /** Input tokens read from the prompt cache, over every answered attempt. */
  readonly cacheReadInputTokens?: number;
  /** Input tokens written to the prompt cache, over every answered attempt. */
  readonly cacheWriteInputTokens?: number;
  /** Bedrock's stop reason of the last answered attempt. */
  readonly stopReason?: string;
  /**
   * Settled cost of every answered attempt, and the worst case of every unanswered one (see
   * {@link unanswered}), micro-dollars.
   */
  readonly cost?: number;
  /**
   * Attempts whose answer never reached the ledger: one that came back without an answer (the
   * client's timeout, a connection cut mid-call), counted in `cost` at its worst case by its
   * holder, or a fenced-off holder's intent, counted at its reservation by the takeover (see
   * {@link CallLedger.retire}). Bedrock may have answered and billed each one, so the call asked
   * again may be billed twice.
   */
  readonly unanswered?: number;
  /** Worst-case cost of the attempt the holder may have in flight (an intent), micro-dollars. */
  readonly reservation?: number;
  /** The holder (`workerId:fence`) that wrote the intent or the last settlement. */
  readonly ownerFence?: string;
  /**
   * The holder whose intent a takeover ended (see {@link CallLedger.retire}): its `reservation`
   * stays, counted as spent when that holder's allotment is settled.
   */
  readonly retiredFrom?: string;
  /** The validated answer, JSON. */
  readonly result?: string;
  readonly failureKind?: CallFailureKind;
  readonly errorClass?: string;
  readonly lastError?: string;
  /** When the intent was written (epoch ms). */
  readonly reservedAt?: number;
  /**
   * When the job-status read that let the last attempt start began (epoch ms): a call is only
   * sent after a read that began after it asked, so this is never later than a cancel.
   */
  readonly checkedAt?: number;
  readonly finishedAt?: string;
}

/**
 * What a report needs of a ledger entry: where the call ended, its attempts and tokens, and
 * why it failed. A chunk's consolidate stage records these on its checkpoint, so finalize
 * reads them there instead of the whole ledger with every answer in it.
 */
const OUTCOME_FIELDS = [
  'chunk',
  'clauseId',
  'analystId',
  'status',
  'attempts',
  'inputTokens',
  'outputTokens',
  'cacheReadInputTokens',
  'cacheWriteInputTokens',
  'failureKind',
  'errorClass',
  'lastError',
] as const satisfies readonly (keyof LedgerEntry)[];

/** A ledger entry as a report reads it. */
export type CallOutcome = Pick<LedgerEntry, (typeof OUTCOME_FIELDS)[number]>;

/** An entry's outcome, with only the fields the entry has. */
export function outcomeOf(e: CallOutcome): CallOutcome {
  return Object.fromEntries(
    OUTCOME_FIELDS.flatMap((field) => (e[field] === undefined ? [] : [[field, e[field]]])),
  ) as CallOutcome;
}

/** Identity of a call inside its job. */
export interface CallRef {
  readonly jobId: string;
  readonly chunk: number;
  readonly clauseId: string;
  readonly analystId: string;
  readonly idempotencyKey: string;
}

/** An intent: the holder is about to make this call, at most `reservation` micro-dollars per attempt. */
export interface Intent {
  readonly call: CallRef;
  readonly owner: string;
  readonly reservation: number;
  /** The entry as the holder read it at claim time: attempts, tokens and cost carry over. */
  readonly prior?: LedgerEntry;
}

/**
 * What one finished attempt (or a call ended without one) writes to its entry. Totals are
 * absolute: the holder knows them, from the entry it read at claim time plus its own attempts,
 * and no other writer touches an entry it owns.
 */
export interface Settlement {
  /** `in-flight`: answered, but another attempt follows (the repair retry). */
  readonly status: CallStatus;
  /** Attempts, tokens and cost of the entry so far, in total. */
  readonly attempts: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
  readonly cost: number;
  /** Attempts that came back without an answer, in total (see {@link LedgerEntry.unanswered}). */
  readonly unanswered?: number;
  readonly modelId?: string;
  readonly stopReason?: string;
  /** The next attempt's worst case, when `status` is `in-flight`. */
  readonly reservation?: number;
  readonly checkedAt?: number;
  readonly result?: string;
  readonly failureKind?: CallFailureKind;
  readonly errorClass?: string;
  readonly lastError?: string;
}

/** Writes of one BatchWriteItem: DynamoDB's limit. */
const BATCH_LIMIT = 25;

/** True when an entry is final for this call: reused, never made again. */
export function isFinalFor(entry: LedgerEntry | undefined, call: Pick<CallRef, 'idempotencyKey'>): boolean {
  return (
    entry !== undefined &&
    (entry.status === 'done' || entry.status === 'failed') &&
    entry.idempotencyKey === call.idempotencyKey
  );
}

/** An intent to end: which entry, and the holder whose intent it must still be. */
export type IntentRef = Pick<LedgerEntry, 'jobId' | 'chunk' | 'clauseId' | 'analystId' | 'ownerFence'>;

/**
 * The call ledger. Per model call it costs one write after the call (the settlement, a single
 * conditional UpdateItem) and a share of one before it (intents go in batches of up to 25).
 * Money is not moved here: calls spend from their chunk's allotment (see `allotments.ts`).
 */
export class CallLedger {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** All ledger entries of one chunk, keyed by sort key. One Query per chunk claim. */
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
   * Records intents in batches (BatchWriteItem has no conditions; the holder's lease and the
   * claim-time read stand in for them: only the lease holder writes intents for its chunk,
   * and only for entries it read as not final). Unprocessed items are sent again.
   */
  async writeIntents(intents: readonly Intent[]): Promise<void> {
    const at = this.now();
    for (let i = 0; i < intents.length; i += BATCH_LIMIT) {
      const puts = intents.slice(i, i + BATCH_LIMIT).map(({ call, owner, reservation, prior }) => ({
        PutRequest: {
          Item: {
            ...(prior && prior.idempotencyKey === call.idempotencyKey ? carried(prior) : {}),
            pk: jobPk(call.jobId),
            sk: callSk(call.chunk, call.clauseId, call.analystId),
            jobId: call.jobId,
            chunk: call.chunk,
            clauseId: call.clauseId,
            analystId: call.analystId,
            idempotencyKey: call.idempotencyKey,
            status: 'in-flight',
            attempts: prior?.idempotencyKey === call.idempotencyKey ? (prior.attempts ?? 0) : 0,
            reservation,
            ownerFence: owner,
            reservedAt: at,
          },
        },
      }));
      let pending: BatchWriteCommandInput['RequestItems'] = { [this.tableName]: puts };
      for (let round = 0; pending && Object.keys(pending).length > 0; round++) {
        if (round > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** round)));
        const r = await retryConflicts(() => this.db.send(new BatchWriteCommand({ RequestItems: pending })));
        pending = r.UnprocessedItems;
      }
    }
  }

  /**
   * Writes one attempt's outcome: a single UpdateItem of the entry's intent, conditional on the
   * entry still being this holder's. Returns false when it is not (a later holder took the chunk over and wrote
   * its own intent): that holder counted this attempt at its reservation, and will make the
   * call itself.
   */
  async settle(call: CallRef, owner: string, s: Settlement): Promise<boolean> {
    const names: Record<string, string> = { '#status': 'status' };
    const values: Record<string, unknown> = { ':owner': owner };
    const sets: string[] = [];
    const set = (field: string, value: unknown) => {
      if (value === undefined) return;
      sets.push(`${field} = :${field}`);
      values[`:${field}`] = value;
    };
    sets.push('#status = :status');
    values[':status'] = s.status;
    set('attempts', s.attempts);
    set('inputTokens', s.inputTokens);
    set('outputTokens', s.outputTokens);
    if (s.cacheReadInputTokens) set('cacheReadInputTokens', s.cacheReadInputTokens);
    if (s.cacheWriteInputTokens) set('cacheWriteInputTokens', s.cacheWriteInputTokens);
    set('stopReason', s.stopReason);
    set('cost', s.cost);
    if (s.unanswered) set('unanswered', s.unanswered);
    set('modelId', s.modelId);
    set('reservation', s.reservation);
    set('checkedAt', s.checkedAt);
    if (s.status !== 'in-flight') set('finishedAt', new Date(this.now()).toISOString());
    if (s.result !== undefined) {
      names['#result'] = 'result';
      sets.push('#result = :result');
      values[':result'] = s.result;
    }
    set('failureKind', s.failureKind);
    set('errorClass', s.errorClass);
    set('lastError', s.lastError?.slice(0, 1000));
    try {
      await retryConflicts(() =>
        this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { pk: jobPk(call.jobId), sk: callSk(call.chunk, call.clauseId, call.analystId) },
            UpdateExpression: `SET ${sets.join(', ')}`,
            ConditionExpression: 'ownerFence = :owner',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
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
   * Ends intents whose calls will not be made under them: each becomes `retryable` (whoever holds
   * the chunk next calls it again), owned by `by`, with `why` as its last error and the holder it
   * was taken from as `retiredFrom`; its totals so far stay. Each write is conditional on the
   * entry still being an in-flight intent of the holder named in the ref, so one that holder
   * settled meanwhile is left as it is. Returns every entry as it now stands, keyed by sort key:
   * as written, or as DynamoDB returned it with the refusal.
   *
   * A new holder ends the intents of the holders it fenced off, so that none of them can record
   * an outcome the takeover did not count, keeping their reservations until the allotment they
   * were made under is settled (a takeover that dies in between leaves them to the next one) and
   * counting each as an `unanswered` attempt;
   * a holder ends its own intents for calls it never started, so that no intent outlives the
   * chunk.
   */
  async retire(
    refs: readonly IntentRef[],
    by: string,
    why: string,
    { keepReservation = false }: { keepReservation?: boolean } = {},
  ): Promise<Map<string, LedgerEntry>> {
    const stand = new Map<string, LedgerEntry>();
    for (let i = 0; i < refs.length; i += BATCH_LIMIT) {
      await Promise.all(
        refs.slice(i, i + BATCH_LIMIT).map(async (ref) => {
          const sk = callSk(ref.chunk, ref.clauseId, ref.analystId);
          try {
            const r = await retryConflicts(() =>
              this.db.send(
                new UpdateCommand({
                  TableName: this.tableName,
                  Key: { pk: jobPk(ref.jobId), sk },
                  // A fenced-off holder's intent keeps its reservation and is one more unanswered
                  // attempt: nothing can know whether it went out and was billed.
                  UpdateExpression: `SET #status = :retryable, ownerFence = :by, retiredFrom = :owner, lastError = :why${keepReservation ? ' ADD unanswered :one' : ' REMOVE reservation'}`,
                  ConditionExpression: '#status = :inFlight AND ownerFence = :owner',
                  ExpressionAttributeNames: { '#status': 'status' },
                  ExpressionAttributeValues: {
                    ':retryable': 'retryable',
                    ':inFlight': 'in-flight',
                    ':by': by,
                    ':why': why.slice(0, 1000),
                    ':owner': ref.ownerFence ?? '',
                    ...(keepReservation ? { ':one': 1 } : {}),
                  },
                  ReturnValues: 'ALL_NEW',
                  ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                }),
              ),
            );
            if (r.Attributes) stand.set(sk, r.Attributes as LedgerEntry);
          } catch (error) {
            if (!isConditionFailure(error)) throw error;
            const item = (error as { Item?: Record<string, AttributeValue> }).Item;
            if (item) stand.set(sk, unmarshall(item) as LedgerEntry);
          }
        }),
      );
    }
    return stand;
  }
}

/** What an entry keeps across holders: its totals so far. */
function carried(prior: LedgerEntry): Partial<LedgerEntry> {
  return {
    ...(prior.modelId ? { modelId: prior.modelId } : {}),
    ...(prior.inputTokens !== undefined ? { inputTokens: prior.inputTokens } : {}),
    ...(prior.outputTokens !== undefined ? { outputTokens: prior.outputTokens } : {}),
    ...(prior.cost !== undefined ? { cost: prior.cost } : {}),
    ...(prior.lastError ? { lastError: prior.lastError } : {}),
    ...(prior.errorClass ? { errorClass: prior.errorClass } : {}),
  };
}
