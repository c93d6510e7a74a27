/**
 * The soak's watch on admission control while the run goes on: about once a second, every
 * owner's slot count, the running jobs that hold a slot and the queued jobs, each read in one
 * request on a client of the soak's own (so its reads are not the pipeline's, and not in the
 * slot trail). Each reading is checked as it comes (checks.ts `checkOwnerSample`); the chaos
 * reads the latest to find an owner whose jobs wait.
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { OWNER_SLOTS_PREFIX, STATUS_INDEX, statusGsiPk } from '../../lambdas/core/state/keys.js';
import { ownerSlotsKey } from '../../lambdas/core/state/owner-slots.js';
import { queryAll } from '../../lambdas/core/state/query-all.js';
import type { Violation } from './checks.js';
import { checkOwnerSample, type OwnerSample, type OwnerSlotsRead } from './owner-checks.js';

/** What the watch keeps. */
export interface OwnerWatch {
  /** Every reading, in order. */
  readonly samples: OwnerSample[];
  /** The breaches the readings showed, the first of each kind per owner (with how often it was seen). */
  readonly violations: Violation[];
  latest(): OwnerSample | undefined;
  /** The owners' slot items as they stand now. */
  readSlots(): Promise<OwnerSlotsRead[]>;
  stop(): Promise<void>;
}

/** The jobs in `status` as the status index has them, with their owners. */
async function inStatus(
  db: DynamoDBDocumentClient,
  tableName: string,
  status: 'running' | 'queued',
  filter?: string,
): Promise<{ jobId: string; owner: string }[]> {
  const items = await queryAll<{ jobId?: unknown; owner?: unknown }>(db, {
    TableName: tableName,
    IndexName: STATUS_INDEX,
    KeyConditionExpression: 'gsi1pk = :pk',
    ...(filter ? { FilterExpression: filter } : {}),
    ProjectionExpression: 'jobId, #owner',
    ExpressionAttributeNames: { '#owner': 'owner' },
    ExpressionAttributeValues: { ':pk': statusGsiPk(status), ...(filter ? { ':yes': true } : {}) },
  });
  return items.flatMap((i) =>
    typeof i.jobId === 'string' && typeof i.owner === 'string' ? [{ jobId: i.jobId, owner: i.owner }] : [],
  );
}

/** The slot items of `owners`, in one BatchGetItem (a hundred keys at most). */
async function slotsOf(
  db: DynamoDBDocumentClient,
  tableName: string,
  owners: readonly string[],
): Promise<OwnerSlotsRead[]> {
  const r = await db.send(
    new BatchGetCommand({
      RequestItems: { [tableName]: { Keys: owners.map(ownerSlotsKey), ConsistentRead: true } },
    }),
  );
  return (r.Responses?.[tableName] ?? []).map((item) => ({
    owner: String(item.pk).slice(OWNER_SLOTS_PREFIX.length),
    held: Number(item.held ?? 0),
    ...(typeof item.cap === 'number' ? { cap: item.cap } : {}),
  }));
}

/**
 * Reads admission control every `everyMs` until stopped. A reading that fails (the ground busy)
 * is skipped; the next one comes.
 */
export function startOwnerWatch(
  db: DynamoDBDocumentClient,
  tableName: string,
  owners: readonly string[],
  cap: number,
  everyMs = 1000,
): OwnerWatch {
  const samples: OwnerSample[] = [];
  const violations: Violation[] = [];
  const seen = new Map<string, Violation & { times: number }>();
  let on = true;
  const loop = (async () => {
    while (on) {
      try {
        const at = Date.now();
        const [slots, holders, queued] = await Promise.all([
          slotsOf(db, tableName, owners),
          inStatus(db, tableName, 'running', 'holdsSlot = :yes'),
          inStatus(db, tableName, 'queued'),
        ]);
        const sample = { at, slots, holders, queued };
        samples.push(sample);
        for (const v of checkOwnerSample(sample, cap)) {
          const key = `${v.check} ${v.detail.split(' ')[0]}`;
          const first = seen.get(key);
          if (first) first.times++;
          else seen.set(key, { ...v, times: 1 });
        }
      } catch {
        // A reading the busy ground could not answer; the next one comes.
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    samples,
    violations,
    latest: () => samples.at(-1),
    readSlots: () => slotsOf(db, tableName, owners),
    async stop() {
      on = false;
      await loop;
      for (const v of seen.values()) {
        const { times, ...rest } = v;
        violations.push({ ...rest, detail: `${rest.detail} (seen in ${times} reading(s))` });
      }
    },
  };
}
