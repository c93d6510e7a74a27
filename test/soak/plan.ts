/** What a soak run does, drawn from its seed: the faults, and each job's contract, lane and actions. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FaultPlan } from '../../localstack/bedrock/index.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';

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

/** What one job of the run gets: its contract, options and the actions taken on it. */
export interface JobPlan {
  readonly index: number;
  readonly file: string;
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

/** Every job's plan, drawn from the seed. */
export function planJobs(count: number, files: readonly string[], random: () => number): JobPlan[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
  return Array.from({ length: count }, (_, index) => {
    const draw = random();
    const action = random();
    return {
      index,
      file: pick(files),
      lane: random() < 0.35 ? 'batch' : 'realtime',
      ...(random() < 0.6 ? { analysts: FEW_ANALYSTS } : {}),
      ...(draw < 0.1 ? { tightCeilingUsd: 0.01 + random() * 0.04 } : {}),
      ...(draw >= 0.1 && draw < 0.18 ? { gate: 'high' as const } : {}),
      ...(action < 0.1 ? { cancelAfterMs: 300 + Math.floor(random() * 4000) } : {}),
      ...(action >= 0.1 && action < 0.2
        ? { pauseAfterMs: 300 + Math.floor(random() * 3000), pauseForMs: 500 + Math.floor(random() * 3000) }
        : {}),
      resendEvent: random() < 0.1,
    };
  });
}
