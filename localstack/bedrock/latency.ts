/**
 * Model latency distributions. Real model latency is right-skewed (most calls quick, a long
 * tail of slow ones), which is what the lognormal variant is for; fixed latency is what makes
 * capacity tests deterministic.
 */
import type { Random } from './random.js';

/** A latency distribution; `scale` multiplies every sample (default 1). */
export type LatencySpec = (
  | { kind: 'fixed'; ms: number }
  | { kind: 'uniform'; minMs: number; maxMs: number }
  | { kind: 'lognormal'; medianMs: number; sigma: number }
) & { scale?: number };

/** No added latency: the stand-in answers as fast as it can. */
export const NO_LATENCY: LatencySpec = { kind: 'fixed', ms: 0 };

/**
 * Draws one latency in whole milliseconds (never negative). Each kind consumes a fixed number
 * of draws (fixed 0, uniform 1, lognormal 2) so the stream stays aligned across calls.
 */
export function sampleLatencyMs(spec: LatencySpec, random: Random): number {
  const scale = spec.scale ?? 1;
  let ms: number;
  switch (spec.kind) {
    case 'fixed':
      ms = spec.ms;
      break;
    case 'uniform':
      ms = spec.minMs + random.next() * (spec.maxMs - spec.minMs);
      break;
    case 'lognormal':
      // The median of exp(mu + sigma * Z) is exp(mu), so mu = ln(median).
      ms = spec.medianMs * Math.exp(spec.sigma * random.normal());
      break;
  }
  return Math.max(0, Math.round(ms * scale));
}
