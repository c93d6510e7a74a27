/** storesOf: one store set per process's dependencies, built on first use and shared after. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { PlaybookStore } from '../../../lambdas/core/playbooks/store.js';
import { Allotments } from '../../../lambdas/core/state/allotments.js';
import { CallLedger } from '../../../lambdas/core/state/call-ledger.js';
import { Claims } from '../../../lambdas/core/state/claims.js';
import { JobHolds } from '../../../lambdas/core/state/job-holds.js';
import { Jobs } from '../../../lambdas/core/state/jobs.js';
import { storesOf } from '../../../lambdas/core/stores.js';

const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));

describe('storesOf', () => {
  it('builds every store of the state table once for a set of dependencies', () => {
    const deps = { db, tableName: 'state', now: () => 0 };
    const stores = storesOf(deps);
    expect(stores.jobs).toBeInstanceOf(Jobs);
    expect(stores.claims).toBeInstanceOf(Claims);
    expect(stores.ledger).toBeInstanceOf(CallLedger);
    expect(stores.allotments).toBeInstanceOf(Allotments);
    expect(stores.holds).toBeInstanceOf(JobHolds);
    expect(stores.playbooks).toBeInstanceOf(PlaybookStore);
    expect(storesOf(deps)).toBe(stores);
    expect(storesOf(deps).jobs).toBe(stores.jobs);
  });

  it('builds another set for other dependencies (another table, another clock)', () => {
    const deps = { db, tableName: 'state' };
    expect(storesOf({ ...deps })).not.toBe(storesOf(deps));
    expect(storesOf({ ...deps, tableName: 'other' }).jobs).not.toBe(storesOf(deps).jobs);
  });
});
