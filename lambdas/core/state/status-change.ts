import type { JobStatus } from './job.js';
import { statusGsiPk } from './keys.js';

/** What changes besides the status in {@link statusChange}. */
export interface StatusChangeFields {
  /** Attributes to set; undefined ones are left alone. */
  readonly set?: Readonly<Record<string, unknown>>;
  /** Attributes set to the time of the change (besides `updatedAt`). */
  readonly stamp?: readonly string[];
  readonly remove?: readonly string[];
  /** A further condition, with its values. */
  readonly condition?: string;
  /** The job's owner: a queued job's index key starts with it ({@link statusIndex}). */
  readonly owner?: string;
  readonly values?: Readonly<Record<string, unknown>>;
}

/**
 * The status index keys (`gsi1pk`, `gsi1sk`) of a job item with `status` since `at`. A queued
 * job's sort key starts with its owner (`<owner>#<at>#<id>`), so one owner's queued jobs are one
 * key range, oldest first, read without the other owners' (`OwnerSlots.queued`): starting the
 * next job of an owner reads that owner's queue, not all 800 of a hot owner's on every job's end.
 */
export function statusIndex(status: JobStatus, at: string, jobId: string, owner?: string) {
  const sk = status === 'queued' ? `${queuedSkPrefix(owner ?? '')}${at}#${jobId}` : `${at}#${jobId}`;
  return { gsi1pk: statusGsiPk(status), gsi1sk: sk };
}

/** Where an owner's queued jobs begin in the status index's `STATUS#queued` partition. */
export const queuedSkPrefix = (owner: string) => `${owner}#`;

/**
 * The expression of one conditional status change of a job item: `to` from one of `from`, the
 * status index (`gsi1pk`, `gsi1sk`) and `updatedAt` moved along, and `change` applied. Every
 * status change (start, cancel, finish, pause, resume, review) is built here, and a new job's
 * index keys by {@link statusIndex}; `test/unit/rules/status-writes.test.ts` fails on any other.
 */
export function statusChange(
  jobId: string,
  from: readonly JobStatus[],
  to: JobStatus,
  at: string,
  change: StatusChangeFields = {},
): {
  UpdateExpression: string;
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
} {
  const names: Record<string, string> = { '#status': 'status' };
  const index = statusIndex(to, at, jobId, change.owner);
  const values: Record<string, unknown> = {
    ':status': to,
    ':at': at,
    ':gpk': index.gsi1pk,
    ':gsk': index.gsi1sk,
    ...change.values,
  };
  const sets = [
    '#status = :status',
    'updatedAt = :at',
    ...(change.stamp ?? []).map((field) => `${field} = :at`),
    'gsi1pk = :gpk',
    'gsi1sk = :gsk',
  ];
  for (const [k, v] of Object.entries(change.set ?? {})) {
    if (v === undefined) continue;
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  const allowed = from.map((s, i) => {
    values[`:from${i}`] = s;
    return `:from${i}`;
  });
  const remove = change.remove?.length ? ` REMOVE ${change.remove.join(', ')}` : '';
  return {
    UpdateExpression: `SET ${sets.join(', ')}${remove}`,
    ConditionExpression: `attribute_exists(pk) AND #status IN (${allowed.join(', ')})${
      change.condition ? ` AND ${change.condition}` : ''
    }`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}
