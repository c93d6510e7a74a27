/**
 * Several worker processes calling one model: does the limit they share through the state
 * table hold the model at its capacity, and does a process that joins late start where the
 * fleet is rather than at the start value?
 *
 *   npx tsx test/bench/limiter-fleet.ts [--processes 4] [--duration 60] [--capacity 40]
 *       [--callers 50] [--stagger 10] [--sharing on|off|both]
 *
 * One Bedrock stand-in (capacity `capacity` in flight, lognormal latency, median 200 ms) and
 * one moto server with the state table. `processes` child processes start `stagger` seconds
 * apart; each runs `callers` closed-loop callers through the worker's own limiter registry
 * (`LIMITER_INITIAL` 10, 2 s windows), sharing the model's limit through the table (`on`) or
 * each learning alone (`off`), and runs until the common end. Printed per mode: goodput once
 * every process has joined (and over the last half of the run) against the capacity bound,
 * the throttle rate, and the limit each process had at its first call. With `FLEET_TRACE=1`
 * each process prints its limiter's windows to stderr.
 *
 * `runFleetBench` is exported for test/bench/run-all.ts.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { ModelLimits } from '../../lambdas/core/state/model-limits.js';
import { LimiterRegistry } from '../../lambdas/core/worker/limiter-registry.js';
import { SharedLimits } from '../../lambdas/core/worker/shared-limits.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { createClients } from '../../lambdas/shared/runtime.js';
import { type LatencySpec, startBedrockStandIn } from '../../localstack/bedrock/index.js';
import { seededRandom } from '../helpers/random.js';
import { drive, meanOf } from './limiter.js';
import { spawnFleetChild, startFleetTable } from './process-fleet.js';

const TABLE = 'fleet';
const INITIAL = 10;
const WINDOW_MS = 2_000;
const LATENCY: LatencySpec = { kind: 'lognormal', medianMs: 200, sigma: 0.25 };

/** What one child process reports when it ends. */
interface ChildReport {
  readonly worker: string;
  readonly firstLimit: number;
  readonly attempts: number;
  readonly throttles: number;
  /** Epoch ms of each success. */
  readonly successAt: readonly number[];
}

export interface FleetBenchOptions {
  readonly processes?: number;
  readonly durationMs?: number;
  readonly capacity?: number;
  readonly callers?: number;
  readonly staggerMs?: number;
  readonly sharing: boolean;
  readonly log?: (line: string) => void;
}

export interface FleetBenchResult {
  readonly sharing: boolean;
  readonly processes: number;
  readonly capacityBound: number;
  /** Calls/s from the moment the last process joined to the end. */
  readonly goodputAllJoined: number;
  /** Calls/s over the last half of the run. */
  readonly goodputLastHalf: number;
  readonly throttleRate: number;
  readonly firstLimits: readonly number[];
  readonly attempts: number;
}

async function child(values: Record<string, string | boolean | undefined>): Promise<void> {
  const startAt = Number(values['start-at']);
  const endAt = Number(values['end-at']);
  const worker = String(values.worker);
  const clients = createClients({
    endpoint: String(values.endpoint),
    bedrockEndpoint: String(values.bedrock),
    region: 'us-east-1',
    credentials: EMULATOR_CREDENTIALS,
  });
  const registry = new LimiterRegistry({
    initial: INITIAL,
    windowMs: WINDOW_MS,
    p99TargetMs: 1_000,
    ...(process.env.FLEET_TRACE
      ? {
          onWindow: (w) =>
            process.stderr.write(
              `${worker} ${Math.round((Date.now() - startAt) / 1000)}s ${w.limitBefore}->${w.limitAfter} thr ${w.throttles}/${w.staleThrottles} calls ${w.calls} peak ${w.peakActive} ${w.decision.reason}\n`,
            ),
        }
      : {}),
    ...(values.sharing === 'on'
      ? {
          sharing: new SharedLimits({
            limits: new ModelLimits(clients.db, TABLE),
            workerId: worker,
            initial: INITIAL,
            min: 1,
            max: 200,
            staleMs: 3 * WINDOW_MS,
          }),
        }
      : {}),
  });
  await new Promise((r) => setTimeout(r, Math.max(0, startAt - Date.now())));
  const limiter = registry.for(PRIMARY_MODEL_ID);
  // The first permit waits for the process's share, when it shares.
  const first = await limiter.acquire('batch');
  const firstLimit = limiter.limit;
  first.release({ unused: true });
  const offset = Date.now() - performance.now();
  const load = await drive(clients.bedrock, limiter, performance.now(), endAt - Date.now(), {
    callers: Number(values.callers),
    realtimeCallers: 0,
    backoffMs: 100,
    random: seededRandom(Number(worker.replace(/\D/g, '')) + 1),
    log: () => {},
  });
  const report: ChildReport = {
    worker,
    firstLimit,
    attempts: load.attempts,
    throttles: load.throttles,
    successAt: load.successAt.map((t) => Math.round(t + offset)),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  clients.db.destroy();
  clients.bedrock.destroy();
}

/** Starts the stand-in, moto and the processes, and measures one mode. */
export async function runFleetBench(options: FleetBenchOptions): Promise<FleetBenchResult> {
  const processes = options.processes ?? 4;
  const durationMs = options.durationMs ?? 60_000;
  const capacity = options.capacity ?? 40;
  const staggerMs = options.staggerMs ?? 10_000;
  const log = options.log ?? console.error;
  const standIn = await startBedrockStandIn({
    seed: 7,
    plan: { capacity: { maxInFlight: capacity }, latency: LATENCY },
  });
  const ground = await startFleetTable(TABLE);
  try {
    // Room for the processes to boot (tsx compiles on start) before the first one begins.
    const startedAt = Date.now() + 5_000;
    const endAt = startedAt + durationMs;
    const lastJoin = startedAt + (processes - 1) * staggerMs;
    log(`  ${processes} processes, ${staggerMs / 1000} s apart, sharing ${options.sharing ? 'on' : 'off'}`);
    const reports = await Promise.all(
      Array.from({ length: processes }, (_, i) =>
        spawnFleetChild<ChildReport>(fileURLToPath(import.meta.url), i, {
          endpoint: ground.endpoint,
          bedrock: standIn.url,
          'start-at': String(startedAt + i * staggerMs),
          'end-at': String(endAt),
          callers: String(options.callers ?? 50),
          sharing: options.sharing ? 'on' : 'off',
        }),
      ),
    );
    const successes = reports.flatMap((r) => r.successAt);
    const rate = (from: number) =>
      successes.filter((t) => t >= from && t <= endAt).length / ((endAt - from) / 1000);
    const attempts = reports.reduce((n, r) => n + r.attempts, 0);
    return {
      sharing: options.sharing,
      processes,
      capacityBound: capacity / (meanOf(LATENCY) / 1000),
      goodputAllJoined: rate(lastJoin),
      goodputLastHalf: rate(endAt - durationMs / 2),
      throttleRate: attempts === 0 ? 0 : reports.reduce((n, r) => n + r.throttles, 0) / attempts,
      firstLimits: reports.map((r) => r.firstLimit),
      attempts,
    };
  } finally {
    await ground.stop();
    await standIn.close();
  }
}

export function formatFleetBench(r: FleetBenchResult): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  return [
    `  sharing ${r.sharing ? 'on ' : 'off'}: goodput once all ${r.processes} joined ${r.goodputAllJoined.toFixed(1)} calls/s = ${pct(r.goodputAllJoined / r.capacityBound)} of the ${r.capacityBound.toFixed(1)} bound; last half ${pct(r.goodputLastHalf / r.capacityBound)}`,
    `               ${r.attempts} attempts, throttle rate ${pct(r.throttleRate)}; limit at each process's first call: ${r.firstLimits.join(', ')}`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      child: { type: 'boolean', default: false },
      worker: { type: 'string' },
      endpoint: { type: 'string' },
      bedrock: { type: 'string' },
      'start-at': { type: 'string' },
      'end-at': { type: 'string' },
      processes: { type: 'string', default: '4' },
      duration: { type: 'string', default: '60' },
      capacity: { type: 'string', default: '40' },
      callers: { type: 'string', default: '50' },
      stagger: { type: 'string', default: '10' },
      sharing: { type: 'string', default: 'both' },
    },
  });
  if (values.child) await child(values);
  else {
    const modes = values.sharing === 'both' ? [true, false] : [values.sharing === 'on'];
    for (const sharing of modes) {
      const result = await runFleetBench({
        processes: Number(values.processes),
        durationMs: Number(values.duration) * 1000,
        capacity: Number(values.capacity),
        callers: Number(values.callers),
        staggerMs: Number(values.stagger) * 1000,
        sharing,
      });
      console.log(formatFleetBench(result));
    }
  }
}
