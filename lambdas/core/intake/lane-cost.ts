/**
 * What a job's compute costs on each lane, beside its model calls, which cost the same on both:
 * the realtime lane's workers are Lambda invocations (arm64), billed per GB-second while a chunk
 * is worked; the batch lane's are Fargate tasks (Linux/arm64), billed per vCPU- and GB-second
 * from start to stop, with a minute's minimum, and a task stays up until the lane's queue has
 * been empty for {@link BATCH_IDLE_MINUTES} minutes. Most of a call's time is waiting for
 * Bedrock, so both are counted at {@link CALL_SECONDS} a call with the lane's calls in flight.
 *
 * The shapes are the stack's defaults (the worker function's memory, the task's size, the calls
 * each runs at once); `lib/` builds the stack from the same constants.
 *
 * Prices, us-east-1: Lambda arm64 $0.0000133334 per GB-second and $0.20 per million requests
 * (https://aws.amazon.com/lambda/pricing/); Fargate Linux/arm64 $0.0000089944 per vCPU-second and
 * $0.0000009889 per GB-second, per second with a one-minute minimum
 * (https://aws.amazon.com/fargate/pricing/).
 */

/** Seconds a model call keeps a worker's slot, as the capacity plan assumes it. */
export const CALL_SECONDS = 2.5;

/** Minutes a batch task stays up after its queue empties (the service's scale-in rule). */
export const BATCH_IDLE_MINUTES = 5;

/** The lanes' compute as the stack deploys it by default. */
export const LANE_COMPUTE = {
  realtime: { memoryMiB: 512 },
  /** A task's size, the chunks it works at once, and the most tasks the lane runs. */
  batch: { cpuUnits: 512, memoryMiB: 1024, pollerConcurrency: 2, maxTasks: 4 },
  /** Calls one chunk runs at once (CALL_CONCURRENCY's default). */
  callsPerChunk: 16,
} as const;

/** Prices in micro-dollars. */
export const COMPUTE_PRICES = {
  lambdaArmPerGbSecond: 13.3334,
  lambdaPerRequest: 0.2,
  fargateArmPerVcpuSecond: 8.9944,
  fargateArmPerGbSecond: 0.9889,
} as const;

/** Compute micro-dollars of a job on each lane. */
export interface LaneComputeCost {
  readonly realtime: number;
  readonly batch: number;
}

/**
 * The compute a job of `calls` model calls in `chunks` chunks costs on each lane, one job alone
 * (on the batch lane its tasks start for it and stop when it is done).
 */
export function laneComputeCost(calls: number, chunks: number): LaneComputeCost {
  const { realtime, batch, callsPerChunk } = LANE_COMPUTE;
  const p = COMPUTE_PRICES;
  const busySeconds = (calls * CALL_SECONDS) / callsPerChunk;
  const lambda =
    busySeconds * (realtime.memoryMiB / 1024) * p.lambdaArmPerGbSecond + chunks * p.lambdaPerRequest;
  const tasks = Math.min(batch.maxTasks, Math.max(1, Math.ceil(chunks / batch.pollerConcurrency)));
  const taskSeconds = Math.max(
    60 * tasks,
    busySeconds / batch.pollerConcurrency + tasks * BATCH_IDLE_MINUTES * 60,
  );
  const fargate =
    taskSeconds *
    ((batch.cpuUnits / 1024) * p.fargateArmPerVcpuSecond +
      (batch.memoryMiB / 1024) * p.fargateArmPerGbSecond);
  return calls === 0 ? { realtime: 0, batch: 0 } : { realtime: Math.ceil(lambda), batch: Math.ceil(fargate) };
}
