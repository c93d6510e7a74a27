import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { Allotments } from '../../../lambdas/core/state/allotments.js';
import type { Lease } from '../../../lambdas/core/state/claims.js';
import { AttemptScope } from '../../../lambdas/core/worker/attempt-scope.js';
import { ChunkBudget } from '../../../lambdas/core/worker/chunk-budget.js';
import { AdaptiveLimiter } from '../../../lambdas/core/worker/limiter.js';
import type { BudgetTicket } from '../../../lambdas/core/worker/token-budget.js';

const ddb = mockClient(DynamoDBDocumentClient);
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const lease: Lease = {
  jobId: 'job-1',
  chunk: 0,
  stage: 'analyze',
  workerId: 'w',
  fence: 1,
  attempts: 1,
  expiresAt: Date.now() + 60_000,
};

function budget(): ChunkBudget {
  return new ChunkBudget({
    allotments: new Allotments(db, 'table'),
    lease,
    job: { jobId: 'job-1', ceilingMicros: 1_000_000 },
    markBudgetExceeded: async () => {},
    callsLeft: () => 1,
    contendedWaitMs: 1_000,
    now: Date.now,
    sleep: async () => {},
    random: () => 0.5,
  });
}

/** An attempt holding a reservation of 1,000 µ$ and a permit of `limiter`. */
async function holding(b: ChunkBudget, limiter: AdaptiveLimiter): Promise<AttemptScope> {
  const scope = new AttemptScope(b);
  expect(await b.reserve(1_000)).toEqual({ ok: true });
  scope.reserved(1_000);
  scope.holds(await limiter.acquire('realtime'));
  return scope;
}

beforeEach(() => {
  ddb.reset();
  ddb.on(TransactWriteCommand).resolves({});
});

describe('AttemptScope', () => {
  it('gives back the reservation and the permit, unused, when the attempt never went out', async () => {
    const b = budget();
    const limiter = new AdaptiveLimiter({ initial: 2 });
    {
      using _scope = await holding(b, limiter);
      expect([b.reserved, limiter.active]).toEqual([1_000, 1]);
    }
    expect([b.reserved, limiter.active]).toEqual([0, 0]);
    expect(b.closing()).toMatchObject({ spent: 0 });
  });

  it('counts an attempt that went out with no outcome recorded at its worst case', async () => {
    const b = budget();
    const limiter = new AdaptiveLimiter({ initial: 2 });
    {
      using scope = await holding(b, limiter);
      scope.sending();
    }
    expect([b.reserved, limiter.active]).toEqual([0, 0]);
    expect(b.closing()).toMatchObject({ spent: 1_000 });
  });

  it('counts an attempt that came back unanswered at its worst case at once, its permit free', async () => {
    const b = budget();
    const limiter = new AdaptiveLimiter({ initial: 2 });
    {
      using scope = await holding(b, limiter);
      scope.sending();
      scope.unanswered();
      expect([b.reserved, limiter.active, scope.estimate]).toEqual([0, 0, 0]);
    }
    expect(b.closing()).toMatchObject({ spent: 1_000 });
  });

  it('settles an answer at its cost once, leaving nothing for disposal', async () => {
    const b = budget();
    const limiter = new AdaptiveLimiter({ initial: 2 });
    {
      using scope = await holding(b, limiter);
      scope.sending();
      scope.answered(300);
    }
    expect([b.reserved, limiter.active]).toEqual([0, 0]);
    expect(b.closing()).toMatchObject({ spent: 300 });
  });

  it('moves what it holds to a new scope, so the first one disposes of nothing', async () => {
    const b = budget();
    const limiter = new AdaptiveLimiter({ initial: 2 });
    let moved: AttemptScope;
    {
      using scope = await holding(b, limiter);
      moved = scope.move();
    }
    expect([b.reserved, limiter.active]).toEqual([1_000, 1]);
    moved[Symbol.dispose]();
    expect([b.reserved, limiter.active]).toEqual([0, 0]);
  });

  it('moves every resource it holds: the second scope holds what the first did, and gives it back', async () => {
    const b = budget();
    const limiter = new AdaptiveLimiter({ initial: 2 });
    const given: string[] = [];
    const ticket: BudgetTicket = {
      tokens: 40,
      settle: (tokens) => given.push(`ticket settled ${tokens}`),
      refund: () => given.push('ticket refunded'),
    };
    let moved: AttemptScope;
    let before: string[];
    {
      using scope = await holding(b, limiter);
      scope.budgeted(ticket);
      scope.watch({ watch: () => () => given.push('unwatched') });
      scope.sending();
      before = scope.holding;
      // Every kind of resource is held, so a kind that move leaves behind shows here.
      expect(before).toEqual(expect.arrayContaining(['reservation', 'permit', 'ticket', 'unwatch', 'sent']));
      moved = scope.move();
      expect(scope.holding).toEqual([]);
      expect(moved.holding).toEqual(before);
    }
    // The first scope's disposal gave back nothing.
    expect(given).toEqual([]);
    expect([b.reserved, limiter.active]).toEqual([1_000, 1]);
    moved[Symbol.dispose]();
    expect(given).toEqual(['unwatched', 'ticket settled 40']);
    expect([b.reserved, limiter.active]).toEqual([0, 0]);
    expect(b.closing()).toMatchObject({ spent: 1_000 });
    expect(moved.holding).toEqual([]);
  });
});
