/**
 * The soak's record of admission control: every write that took or gave back one of an owner's
 * slots, moved a job to `queued`, `running` or `cancelled`, or recorded a fan-out, as the pipeline's
 * DynamoDB client sent them. Read from
 * the requests the client already makes (a middleware on the soak's side of the client, as the
 * benches watch theirs), nothing added to the pipeline's path. Every write that can change a slot
 * count is made in this process: intake, finalize and the sweeper run here, and so do the soak's
 * pauses, resumes and cancels; the batch workers never change a job's status.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, isTransactionConflict } from '../../lambdas/core/state/errors.js';
import { JOB_SK, OWNER_SLOTS_PREFIX, OWNER_SLOTS_SK } from '../../lambdas/core/state/keys.js';

/** One write of admission control as a request carried it. */
export type SlotWrite =
  /** A job took (+1) or gave back (−1) one of its owner's slots, in one transaction with its status. */
  | { readonly kind: 'take' | 'release'; readonly owner: string; readonly jobId: string }
  /** A job moved to `queued` (from intake, or a resume that found its owner full). */
  | { readonly kind: 'queued'; readonly jobId: string }
  /** A job's fan-out was recorded: every chunk message of it is out. */
  | { readonly kind: 'fanned-out'; readonly jobId: string }
  /** A job was cancelled (its chunks are then sent for workers to end, whoever sends them). */
  | { readonly kind: 'cancelled'; readonly jobId: string }
  /**
   * A job moved to `running`: with a slot (beside its `take`), or without one where the stack
   * caps an owner's daily spend alone.
   */
  | { readonly kind: 'started'; readonly jobId: string };

/** One write with where it stands in the trail: its request and its answer, in one sequence. */
export type TrailEntry = SlotWrite & {
  /** Position of the request's start among every request and answer of the trail. */
  readonly sentSeq: number;
  /** Position of its answer: it committed between the two. */
  readonly answeredSeq: number;
  /** `ok`: committed; `unknown`: the request failed in a way that does not say whether it did. */
  readonly outcome: 'ok' | 'unknown';
  /** For an `unknown` outcome, the error's name. */
  readonly error?: string;
  /** When it was answered (epoch ms), for a violation's evidence. */
  readonly at: number;
};

type Item = { readonly Key?: Record<string, unknown>; readonly Item?: Record<string, unknown> } & {
  readonly UpdateExpression?: string;
  readonly ExpressionAttributeNames?: Record<string, string>;
  readonly ExpressionAttributeValues?: Record<string, unknown>;
};

const JOB_PK_PREFIX = 'JOB#';

const keyOf = (op: Item) => op.Key ?? op.Item;
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** The job a write on a job item is for. */
function jobOf(op: Item): string | undefined {
  const key = keyOf(op);
  const pk = str(key?.pk);
  return key?.sk === JOB_SK && pk?.startsWith(JOB_PK_PREFIX) ? pk.slice(JOB_PK_PREFIX.length) : undefined;
}

/** The owner whose slot count a write changes, and by how much (`ADD <held> <delta>`). */
function slotDelta(op: Item): { owner: string; delta: number } | undefined {
  const key = keyOf(op);
  const pk = str(key?.pk);
  if (key?.sk !== OWNER_SLOTS_SK || !pk?.startsWith(OWNER_SLOTS_PREFIX)) return undefined;
  const add = /ADD\s+(#?\w+)\s+(:\w+)/.exec(op.UpdateExpression ?? '');
  if (!add?.[1] || !add[2]) return undefined;
  const attribute = op.ExpressionAttributeNames?.[add[1]] ?? add[1];
  const delta = op.ExpressionAttributeValues?.[add[2]];
  if (attribute !== 'held' || typeof delta !== 'number') return undefined;
  return { owner: pk.slice(OWNER_SLOTS_PREFIX.length), delta };
}

/** The status a write on a job item moves it to (every status change sets `#status = :status`). */
function statusOf(op: Item): string | undefined {
  return /#status = :status\b/.test(op.UpdateExpression ?? '')
    ? str(op.ExpressionAttributeValues?.[':status'])
    : undefined;
}

/** The updates one DynamoDB request (a document client's input) makes: its own, or its transaction's. */
function updatesOf(input: unknown): Item[] {
  const request = input as { TransactItems?: Record<string, Item>[] } & Item;
  if (request.TransactItems) return request.TransactItems.flatMap((t) => Object.values(t));
  return request.UpdateExpression ? [request] : [];
}

/** The status changes of job items one DynamoDB request makes (every one sets `#status = :status`). */
export function statusChangesOf(input: unknown): { readonly jobId: string; readonly to: string }[] {
  return updatesOf(input).flatMap((op) => {
    const jobId = jobOf(op);
    const to = statusOf(op);
    return jobId && to ? [{ jobId, to }] : [];
  });
}

/**
 * The admission-control writes one DynamoDB request makes: a transaction that changes a job
 * item and its owner's slot count, a move of a job to `queued` or `cancelled`, or the record of
 * its fan-out.
 */
export function slotWritesOf(input: unknown): SlotWrite[] {
  const ops = updatesOf(input);
  const jobId = ops.map(jobOf).find((j) => j !== undefined);
  const out: SlotWrite[] = [];
  for (const op of ops) {
    const slot = slotDelta(op);
    if (slot && jobId) out.push({ kind: slot.delta > 0 ? 'take' : 'release', owner: slot.owner, jobId });
  }
  for (const change of statusChangesOf(input)) {
    if (change.to === 'queued') out.push({ kind: 'queued', jobId: change.jobId });
    if (change.to === 'cancelled') out.push({ kind: 'cancelled', jobId: change.jobId });
    if (change.to === 'running') out.push({ kind: 'started', jobId: change.jobId });
  }
  for (const op of ops) {
    const job = jobOf(op);
    if (job && /\bfanoutCompletedAt = /.test(op.UpdateExpression ?? ''))
      out.push({ kind: 'fanned-out', jobId: job });
  }
  return out;
}

/**
 * A refusal: the write did not happen (a condition failed, the transaction was cancelled, or a
 * transaction held its item and the client sends it again).
 */
function refused(error: unknown): boolean {
  return isConditionFailure(error) || isTransactionConflict(error);
}

/** The trail, as {@link watchSlots} keeps it. */
export interface SlotTrail {
  readonly entries: TrailEntry[];
}

/**
 * Records every admission-control write `db` makes (and every client wrapped around it), with
 * the order of its request and its answer. A write refused is left out; one whose request failed
 * otherwise (a connection cut after the table took it) is kept as `unknown`.
 */
export function watchSlots(db: DynamoDBDocumentClient): SlotTrail {
  const trail: SlotTrail = { entries: [] };
  let seq = 0;
  db.middlewareStack.add(
    (next) => async (args) => {
      const writes = slotWritesOf(args.input);
      if (writes.length === 0) return next(args);
      const sentSeq = ++seq;
      const record = (outcome: TrailEntry['outcome'], error?: string) => {
        const answeredSeq = ++seq;
        for (const w of writes)
          trail.entries.push({
            ...w,
            sentSeq,
            answeredSeq,
            outcome,
            at: Date.now(),
            ...(error ? { error } : {}),
          });
      };
      try {
        const result = await next(args);
        record('ok');
        return result;
      } catch (error) {
        if (!refused(error)) record('unknown', (error as Error | undefined)?.name ?? String(error));
        throw error;
      }
    },
    { step: 'initialize', name: 'soakSlotTrail' },
  );
  return trail;
}
