/**
 * Seeded pseudo-random numbers for the Bedrock stand-in.
 *
 * Every random decision the stand-in makes (faults, latency, request ids) comes from here so
 * that a run with the same seed and the same request order is reproducible. `Math.random`
 * and `crypto.randomUUID` are deliberately not used anywhere in the stand-in.
 */

/** A deterministic source of uniform and normal variates. */
export interface Random {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform unsigned 32-bit integer. */
  nextUint32(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Standard normal variate (mean 0, standard deviation 1). */
  normal(): number;
  /** An independent generator seeded from this one; consumes exactly one draw. */
  fork(): Random;
}

const UINT32 = 4_294_967_296;

/**
 * mulberry32: tiny, fast and statistically good enough for fault injection. The state is one
 * 32-bit integer, so forking a generator per call is nearly free. A class rather than closures,
 * since a generator is created for every call.
 */
class Mulberry32 implements Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  next(): number {
    return this.nextUint32() / UINT32;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  normal(): number {
    // Box-Muller without caching the second variate, so every normal() consumes exactly two
    // uniform draws and streams stay aligned. 1 - u keeps the logarithm away from log(0).
    const u1 = 1 - this.next();
    const u2 = this.next();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }

  fork(): Random {
    return new Mulberry32(this.nextUint32());
  }
}

/** A seeded generator (mulberry32). The same seed always yields the same sequence. */
export function createRandom(seed: number): Random {
  return new Mulberry32(seed);
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

const hex32 = (n: number): string =>
  (HEX[n >>> 24] as string) + HEX[(n >>> 16) & 0xff] + HEX[(n >>> 8) & 0xff] + HEX[n & 0xff];

/** Formats 128 random bits as an RFC 4122 version-4 UUID, as Bedrock's request ids look. */
export function randomUuid(random: Random): string {
  const a = hex32(random.nextUint32());
  const b = hex32(random.nextUint32());
  const c = hex32(((random.nextUint32() & 0x3fffffff) | 0x80000000) >>> 0);
  const d = hex32(random.nextUint32());
  return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${c.slice(0, 4)}-${c.slice(4, 8)}${d}`;
}

/** True when any of `rates` is above zero. */
export function hasRates(rates: Readonly<Record<string, number | undefined>>): boolean {
  for (const key in rates) if (rates[key]) return true;
  return false;
}

/** Picks an outcome from one uniform draw over cumulative probabilities, in a fixed order. */
export function pick<K extends string>(
  order: readonly K[],
  rates: Partial<Record<K, number>>,
  u: number,
): K | undefined {
  let cumulative = 0;
  for (const key of order) {
    const rate = rates[key];
    if (!rate) continue;
    cumulative += rate;
    if (u < cumulative) return key;
  }
  return undefined;
}
