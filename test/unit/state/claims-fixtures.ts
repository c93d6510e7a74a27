/**
 * What the Claims tests (claims*.test.ts) and the checkpoint and state error tests share: a
 * lease and a checkpoint of chunk 7, a refused transaction, and Claims on a mocked DynamoDB.
 */
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach } from 'vitest';
import { type Checkpoint, Claims, type Lease } from '../../../lambdas/core/state/claims.js';

export const TABLE = 'state-table';
export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
export const FENCED = 'claimedBy = :me AND fence = :fence';

export function transactionCancelled(codes: string[]): TransactionCanceledException {
  return new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
}

export function lease(overrides: Partial<Lease> = {}): Lease {
  return {
    jobId: 'job-1',
    chunk: 7,
    stage: 'analyze',
    workerId: 'worker-a',
    fence: 3,
    attempts: 2,
    expiresAt: NOW + 60_000,
    ...overrides,
  };
}

export function checkpoint(overrides: Partial<Checkpoint>): Checkpoint {
  return {
    jobId: 'job-1',
    chunk: 7,
    stage: 'analyze',
    status: 'pending',
    fence: 0,
    attempts: 0,
    ...overrides,
  };
}

/**
 * Claims on a mocked DynamoDB document client (reset before each test), reading the time from
 * `now`, and the updates and transactions sent. Call it once at a test file's top level: unit
 * files share their worker's modules (isolate: false), so each file makes its own mock, which
 * test/helpers/unit-setup.ts takes off again after the file.
 */
export function mockedClaims(now: () => number = () => NOW) {
  const ddb = mockClient(DynamoDBDocumentClient);
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
  const claims = new Claims(db, TABLE, now);

  function updates() {
    return ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input);
  }

  function transactions() {
    return ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input);
  }

  beforeEach(() => {
    ddb.reset();
  });

  return { ddb, claims, updates, transactions };
}
