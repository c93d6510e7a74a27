/**
 * The state table's stores, built once for each process's dependencies and shared by every
 * stage and request that process runs: the job records, the chunk checkpoints, the call ledger,
 * the allotments, the holds and the playbooks. A runtime builds its dependencies once
 * (shared/runtime.ts), so `storesOf(deps)` hands every caller the same set.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PlaybookStore } from './playbooks/store.js';
import { Allotments } from './state/allotments.js';
import { CallLedger } from './state/call-ledger.js';
import { Claims } from './state/claims.js';
import { JobHolds } from './state/job-holds.js';
import { Jobs } from './state/jobs.js';

/** What a store set is built from: the table and its client, and the clock. */
export interface StoreDeps {
  readonly db: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly now?: () => number;
}

export interface Stores {
  readonly jobs: Jobs;
  readonly claims: Claims;
  readonly ledger: CallLedger;
  readonly allotments: Allotments;
  readonly holds: JobHolds;
  readonly playbooks: PlaybookStore;
}

const built = new WeakMap<StoreDeps, Stores>();

/** The store set of `deps`, built on first use and the same object on every later one. */
export function storesOf(deps: StoreDeps): Stores {
  let stores = built.get(deps);
  if (!stores) {
    const { db, tableName } = deps;
    const now = deps.now ?? Date.now;
    stores = {
      jobs: new Jobs(db, tableName, now),
      claims: new Claims(db, tableName, now),
      ledger: new CallLedger(db, tableName, now),
      allotments: new Allotments(db, tableName, now),
      holds: new JobHolds(db, tableName, now),
      playbooks: new PlaybookStore(db, tableName, { now }),
    };
    built.set(deps, stores);
  }
  return stores;
}
