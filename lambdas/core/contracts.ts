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

/** Every lane. */
export const LANES: readonly Lane[] = ['realtime', 'batch'];
