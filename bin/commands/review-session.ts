/**
 * One `review` run's local stack: the options it runs with, moto, the Bedrock stand-in and the
 * pipeline it starts, and the documents it uploaded.
 */
import { LANE_CONSUMERS, type Lane } from '../../lambdas/core/lanes-and-limits.js';
import { type Stores, storesOf } from '../../lambdas/core/stores.js';
import { offlineAnalystNotice } from '../../localstack/bedrock/offline-analysts.js';
import { LOCAL_RUN_DEFAULTS } from '../../localstack/runtime/local-env.js';
import { type LocalRun, startLocalRun } from '../../localstack/runtime/local-run.js';

/** What a `review` run was asked for. */
export interface RunOptions {
  readonly lane: Lane;
  readonly ceilingUsd: number;
  readonly faultRate: number;
  readonly workers: number;
  readonly concurrency: number;
  readonly latencyMs: number;
  /** The stand-in's fault plan seed. */
  readonly seed: number;
  readonly timeoutS: number;
  readonly outDir: string;
  readonly values: Record<string, string | undefined>;
}

/** The local stack and pipeline of one `review` run, and the jobs table they write. */
export interface Session extends LocalRun {
  /** The embedded stack's state-table stores, built once for the session. */
  readonly stores: Stores;
}

/** A document uploaded, and the job its upload makes. */
export interface Submitted {
  readonly file: string;
  readonly jobId: string;
}

/** Starts moto, the Bedrock stand-in (with the run's latency and faults) and the pipeline. */
export async function startSession(o: RunOptions): Promise<Session> {
  console.log('starting the local stack (moto + Bedrock stand-in)…');
  const { faultRate } = o;
  const run = await startLocalRun(
    {
      seed: o.seed,
      plan: {
        latency: { kind: 'fixed', ms: o.latencyMs },
        errorRates: {
          ThrottlingException: faultRate / 2,
          ServiceUnavailableException: faultRate / 4,
          InternalServerException: faultRate / 4,
        },
      },
      log: (line) => console.log(line),
    },
    {
      settings: { ...LOCAL_RUN_DEFAULTS, callConcurrency: o.concurrency, defaultLane: o.lane },
      batchWorkers: LANE_CONSUMERS[o.lane] === 'poller' ? Math.max(1, o.workers) : o.workers,
      notice: offlineAnalystNotice(),
      log: (line) => console.error(line),
    },
  );
  return {
    ...run,
    stores: storesOf({ db: run.pipeline.clients.db, tableName: run.stack.resources.tableName }),
  };
}
