/**
 * Names the runtime and the infrastructure share. They live on the runtime side: `lib/` may
 * import from `lambdas/`, never the other way round, so a handler bundle never pulls in
 * infrastructure code.
 */

/**
 * Processing lanes, in the order the limiter serves them (earlier lanes first, later ones aged
 * in): urgent work goes to `realtime`, bulk work to `batch`. Each lane is a queue with its own
 * settings in `lib/topology.ts` and a consumer named in `LANE_CONSUMERS`; everything else that
 * knows lanes (environment, schemas, limiter, sweeper, triage, stack, local ground) reads them here.
 */
export const LANES = ['realtime', 'batch'] as const;

/** A processing lane. */
export type Lane = (typeof LANES)[number];

/**
 * What drains a lane's queue: `lambda`, the worker function's SQS event source (in process on
 * the local ground); `poller`, long-running worker processes (a Fargate service on AWS, child
 * processes locally) started with `POLLER_LANE` set to the lane.
 */
export const LANE_CONSUMERS: Readonly<Record<Lane, 'lambda' | 'poller'>> = {
  realtime: 'lambda',
  batch: 'poller',
};

/** The lanes one kind of consumer drains, in `LANES` order. */
export const lanesConsumedBy = (consumer: 'lambda' | 'poller'): Lane[] =>
  LANES.filter((lane) => LANE_CONSUMERS[lane] === consumer);

/** Every queue role, in pipeline order: intake, one per lane, finalize. */
export const QUEUE_ROLES = ['intake', ...LANES, 'finalize'] as const;

/** The part a queue plays in the pipeline. */
export type QueueRole = (typeof QUEUE_ROLES)[number];

/** The lanes as a message names them: `'realtime' or 'batch'`. */
export const LANE_CHOICES = LANES.map((l) => `'${l}'`)
  .join(', ')
  .replace(/, ([^,]*)$/, ' or $1');

/** True for a lane's name. */
export const isLane = (value: unknown): value is Lane => LANES.includes(value as Lane);

/** A record with one value per key of `keys`, in their order. */
export function keyed<K extends string, T>(keys: readonly K[], value: (key: K) => T): Record<K, T> {
  return Object.fromEntries(keys.map((key) => [key, value(key)])) as Record<K, T>;
}

/** One value per lane. */
export const byLane = <T>(value: (lane: Lane) => T): Record<Lane, T> => keyed(LANES, value);

/** One value per queue role. */
export const byRole = <T>(value: (role: QueueRole) => T): Record<QueueRole, T> => keyed(QUEUE_ROLES, value);

export { DEFAULT_CEILING_MICROS } from '../text/money.js';

/**
 * The most a job's ceiling may be unless the stack says otherwise, in micro-dollars ($1,000):
 * fifty times the default ceiling, above what the largest contract the document limits allow
 * costs with the fallback model; a submission or upload asking for more is refused, naming it.
 */
export const DEFAULT_MAX_CEILING_MICROS = 1_000_000_000;

/** Clauses grouped into one chunk (one lane message) unless `CHUNK_CLAUSES` says otherwise. */
export const DEFAULT_CHUNK_CLAUSES = 8;
