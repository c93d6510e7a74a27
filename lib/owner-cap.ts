import {
  ANALYSTS,
  DEFAULT_CHUNK_CLAUSES,
  LANE_COMPUTE,
  LANE_CONSUMERS,
  LANES,
  modelSpec,
} from '../lambdas/stack-interface.js';
import type { Topology } from './topology.js';

/** Chunks one poller task works on at once when its service names none (`POLLER_CONCURRENCY`). */
export const DEFAULT_POLLER_CONCURRENCY = LANE_COMPUTE.batch.pollerConcurrency;

/** What the default cap is derived from, besides the topology. */
export interface OwnerCapBasis {
  /** Clauses of one chunk. @default the runtime's ({@link DEFAULT_CHUNK_CLAUSES}) */
  readonly chunkClauses?: number;
  /** Chunks one poller task works on at once. @default {@link DEFAULT_POLLER_CONCURRENCY} */
  readonly pollerConcurrency?: number;
  /** The primary model's requests-per-minute budget, when the account's quota is set. @default none */
  readonly requestsPerMinute?: number;
}

/**
 * The stack's default for `maxJobsPerOwner`: half the chunks one lane works on at once (a Lambda
 * lane's concurrency times its batch size, a poller lane's tasks times the chunks each polls),
 * and, when the primary model has a requests-per-minute budget, no more than the chunks that
 * budget answers in a minute (a chunk makes up to clauses × analysts calls).
 *
 * One owner's jobs at that cap hold at most half of a lane's slots even when each is a single
 * chunk, so the other half keeps turning over for everyone else's chunks (which the fair queues
 * deliver first); an owner alone still keeps its model busy, each chunk running up to
 * `CALL_CONCURRENCY` calls at once. Running more only shares the same slots between more jobs, so
 * each finishes later and a crowd of them slows the queues, while jobs held `queued` wait without
 * holding anything. A thousand small jobs of one owner with no cap share every slot at once.
 *
 * @example
 * defaultMaxJobsPerOwner(topology()); // 10: half the realtime lane's 20 invocations of one chunk each
 */
export function defaultMaxJobsPerOwner(t: Topology, basis: OwnerCapBasis = {}): number {
  const slots = Math.max(
    ...LANES.map((lane) => {
      const q = t.queues[lane];
      const perConsumer =
        LANE_CONSUMERS[lane] === 'lambda'
          ? q.batchSize
          : (basis.pollerConcurrency ?? DEFAULT_POLLER_CONCURRENCY);
      return q.maxConcurrency * perConsumer;
    }),
  );
  const half = Math.max(1, Math.ceil(slots / 2));
  if (basis.requestsPerMinute === undefined) return half;
  const callsPerChunk = (basis.chunkClauses ?? DEFAULT_CHUNK_CLAUSES) * ANALYSTS.length;
  return Math.max(1, Math.min(half, Math.floor(basis.requestsPerMinute / callsPerChunk)));
}

/**
 * AWS's default quota of a Claude model's cross-Region profile in us-east-1, tokens per minute:
 * the capacity plan's default too (bin/capacity/quotas.ts), from the quota table
 * (https://docs.aws.amazon.com/general/latest/gr/bedrock.html#limits_bedrock).
 */
export const DEFAULT_TOKENS_PER_MINUTE = 5_000_000;

/** Minutes of the primary model's whole budget one owner may spend a day: an hour. */
export const OWNER_MINUTES_A_DAY = 60;

/**
 * The stack's default for `dailySpendPerOwner`, in micro-dollars: what an hour of the primary
 * model at its tokens-per-minute budget costs (the `modelBudgets` flag's figure for it, else AWS's
 * default quota). A quota token costs about the model's input price: Claude's output is priced
 * five times its input and counts five times against the quota (the burndown). So one owner
 * cannot spend more in a day than an hour of the whole account's capacity for that model would
 * cost, and a deployer who raises the budget raises the cap with it.
 *
 * @example
 * defaultDailySpendPerOwner('us.anthropic.claude-haiku-5-5'); // 33_000_000 ($33: 300M tokens at $0.11 a million)
 */
export function defaultDailySpendPerOwner(
  primaryModelId: string,
  tokensPerMinute: number = DEFAULT_TOKENS_PER_MINUTE,
): number {
  const perToken = modelSpec(primaryModelId).price.inputPer1k / 1000;
  return Math.ceil(tokensPerMinute * OWNER_MINUTES_A_DAY * perToken);
}
