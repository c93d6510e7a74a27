/**
 * What a soak run does, drawn from its seed: the faults, and each job's contract, owner, lane,
 * actions and the deaths and duplicates that land on its way through admission control.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FaultPlan } from '../../localstack/bedrock/index.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';
import type { DeathPoint } from './mortal.js';

/** The model faults of the stand-in's plan: every kind, at rates a long contract meets many times. */
export const SOAK_FAULTS: Partial<FaultPlan> = {
  errorRates: {
    ThrottlingException: 0.02,
    ServiceUnavailableException: 0.01,
    InternalServerException: 0.01,
    ModelTimeoutException: 0.005,
    ModelNotReadyException: 0.003,
    ModelErrorException: 0.002,
    ValidationException: 0.001,
  },
  malformed: { invalidJson: 0.01, schemaViolation: 0.01, badQuote: 0.005 },
  // Hangs past the model timeout (4 s here): the call is aborted and made again.
  hang: { probability: 0.002, ms: 6000 },
  latency: { kind: 'fixed', ms: 25 },
  capacity: { maxInFlight: 48 },
};

/**
 * The owners' shares of the uploads: two busy owners (so that a cap binds and their jobs queue)
 * and four quiet ones.
 */
export const OWNER_SHARES = [0.4, 0.3, 0.1, 0.1, 0.05, 0.05] as const;

/** The principal owner `n` uploads as (signed into the upload, as the status API does). */
export const soakOwner = (n: number) => `arn:aws:iam::000000000000:user/soak-owner-${n}`;

/** What one job of the run gets: its contract, options and the actions taken on it. */
export interface JobPlan {
  readonly index: number;
  readonly file: string;
  /** Which of {@link OWNER_SHARES} uploads it. */
  readonly owner: number;
  readonly lane: 'realtime' | 'batch';
  /** A few analysts, or the whole panel. */
  readonly analysts?: readonly string[];
  /** A ceiling far below the job's need, with allow-partial. */
  readonly tightCeilingUsd?: number;
  readonly gate?: 'high';
  /** Milliseconds after the upload. */
  readonly cancelAfterMs?: number;
  readonly pauseAfterMs?: number;
  readonly pauseForMs?: number;
  readonly resendEvent: boolean;
  /**
   * The upload's routing is made again: its owner's message (or, with a slot free, the upload)
   * reaches intake twice.
   */
  readonly reroute: boolean;
  /**
   * A routing of the upload that dies (after its HeadObject, its slot read, its SendMessage or
   * the first request of its intake), its S3 event then sent again.
   */
  readonly dyingRoute?: DeathPoint;
  /** An intake of the upload, beside the pipeline's own, that dies at this point (admission included). */
  readonly dyingIntake?: DeathPoint;
  /** Once the job's finalize is due, a second finalize that dies after giving back the job's slot. */
  readonly dyingEnd?: DeathPoint;
  /** Cancelled as soon as it is seen `queued`. */
  readonly cancelWhenQueued: boolean;
  /** The cancel, pause or resume of this job dies at this point, then the person tries it again. */
  readonly dyingHold?: {
    readonly cancel: DeathPoint;
    readonly pause: DeathPoint;
    readonly resume: DeathPoint;
  };
}

const FEW_ANALYSTS = ['liability-counsel', 'term-lifecycle', 'ip-counsel'];

/** The contracts a run draws from: the corpus when present (up to 60 KB each), else the fixtures. */
export function soakContracts(): string[] {
  const corpus = join(PROJECT_ROOT, '..', 'shared', 'corpus', 'contracts');
  const dir = existsSync(corpus) ? corpus : join(PROJECT_ROOT, 'test', 'fixtures', 'contracts');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).size <= 60_000)
    .sort();
}

/** One of `shares`' indexes, each as likely as its share. */
function weighted(shares: readonly number[], random: () => number): number {
  let draw = random() * shares.reduce((a, b) => a + b, 0);
  for (const [i, share] of shares.entries()) {
    draw -= share;
    if (draw < 0) return i;
  }
  return shares.length - 1;
}

/** Where a death lands: on a landmark of admission control, `later` requests after it (0 to `most`). */
function landing(
  landmark: 'slot-take' | 'slot-release' | 'queued' | 'cancelled' | 'paused',
  most: number,
  random: () => number,
): DeathPoint {
  return { landmark, later: Math.floor(random() * (most + 1)) };
}

/** Where an intake dies: just after taking a slot or queueing the job, or anywhere in its first dozen requests. */
function intakeDeath(random: () => number): DeathPoint {
  const draw = random();
  if (draw < 0.4) return landing('slot-take', 2, random);
  if (draw < 0.7) return landing('queued', 3, random);
  return { afterRequests: 1 + Math.floor(random() * 12) };
}

/** Every job's plan, drawn from the seed. */
export function planJobs(count: number, files: readonly string[], random: () => number): JobPlan[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
  return Array.from({ length: count }, (_, index) => {
    const draw = random();
    const action = random();
    const faults = random();
    return {
      index,
      file: pick(files),
      owner: weighted(OWNER_SHARES, random),
      lane: random() < 0.35 ? 'batch' : 'realtime',
      ...(random() < 0.6 ? { analysts: FEW_ANALYSTS } : {}),
      ...(draw < 0.1 ? { tightCeilingUsd: 0.01 + random() * 0.04 } : {}),
      ...(draw >= 0.1 && draw < 0.18 ? { gate: 'high' as const } : {}),
      ...(action < 0.1 ? { cancelAfterMs: 300 + Math.floor(random() * 4000) } : {}),
      ...(action >= 0.1 && action < 0.2
        ? { pauseAfterMs: 300 + Math.floor(random() * 3000), pauseForMs: 500 + Math.floor(random() * 3000) }
        : {}),
      resendEvent: random() < 0.1,
      reroute: random() < 0.1,
      ...(faults < 0.08 ? { dyingRoute: { afterRequests: 1 + Math.floor(random() * 3) } } : {}),
      ...(faults >= 0.08 && faults < 0.25 ? { dyingIntake: intakeDeath(random) } : {}),
      ...(random() < 0.3 ? { dyingEnd: landing('slot-release', 6, random) } : {}),
      cancelWhenQueued: random() < 0.12,
      ...(random() < 0.5
        ? {
            dyingHold: {
              // A cancel or pause gives back the slot and starts the owner's next job: up to six
              // requests later is inside that start; a resume takes a slot or queues the job.
              cancel: landing('cancelled', 6, random),
              pause: landing('paused', 6, random),
              resume: random() < 0.6 ? landing('slot-take', 2, random) : landing('queued', 1, random),
            },
          }
        : {}),
    };
  });
}
