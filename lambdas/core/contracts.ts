/**
 * Names the runtime and the infrastructure share. They live on the runtime side: `lib/` may
 * import from `lambdas/`, never the other way round, so a handler bundle never pulls in
 * infrastructure code.
 */

/** The part a queue plays in the pipeline. */
export type QueueRole = 'intake' | 'realtime' | 'batch' | 'finalize';

/** Every queue role, in pipeline order. */
export const QUEUE_ROLES: readonly QueueRole[] = ['intake', 'realtime', 'batch', 'finalize'];

/** Processing lanes: urgent work goes to `realtime` (Lambda), bulk work to `batch` (Fargate). */
export type Lane = 'realtime' | 'batch';

/** Every lane, the one a job gets by default first. */
export const LANES = ['realtime', 'batch'] as const satisfies readonly Lane[];

/** The lanes as a message names them: `'realtime' or 'batch'`. */
export const LANE_CHOICES = LANES.map((l) => `'${l}'`)
  .join(', ')
  .replace(/, ([^,]*)$/, ' or $1');

/** True for a lane's name. */
export const isLane = (value: unknown): value is Lane => LANES.includes(value as Lane);
