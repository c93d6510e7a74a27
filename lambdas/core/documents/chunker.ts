import type { Chunk, Clause } from '../clause.js';

/** Size bounds of a chunk, the unit of work one worker invocation handles. */
export interface ChunkOptions {
  /** Most clauses in one chunk, 1 to 200. Default 8. */
  readonly maxClauses?: number;
  /** Most characters of clause text in one chunk, 100 to 1,000,000. Default 12,000. */
  readonly maxChars?: number;
}

/** Clauses per chunk by default: one worker invocation's worth of model calls per analyst. */
export const DEFAULT_MAX_CLAUSES = 8;
/** Characters of clause text per chunk by default, to keep one message's prompts well inside the model's context. */
export const DEFAULT_MAX_CHARS = 12_000;

/** The allowed ranges, matching the runtime configuration's limits. */
const LIMITS = {
  maxClauses: { min: 1, max: 200 },
  maxChars: { min: 100, max: 1_000_000 },
} as const;

/**
 * Groups clauses into chunks of consecutive clauses, in order, each clause in exactly one chunk.
 * A chunk holds at most `maxClauses` clauses and `maxChars` characters of clause text, except
 * that a single clause longer than `maxChars` gets a chunk of its own. Greedy: a chunk closes only
 * when the next clause would not fit, so the number of chunks is the fewest possible in order.
 *
 * @throws {RangeError} when an option is not a whole number in its range; the message names
 *   the option, the range and the value given.
 */
export function chunkClauses(clauses: readonly Clause[], options: ChunkOptions = {}): Chunk[] {
  const maxClauses = validated('maxClauses', options.maxClauses ?? DEFAULT_MAX_CLAUSES);
  const maxChars = validated('maxChars', options.maxChars ?? DEFAULT_MAX_CHARS);
  const chunks: Chunk[] = [];
  let current: Clause[] = [];
  let chars = 0;
  for (const clause of clauses) {
    const size = clause.text.length;
    if (current.length > 0 && (current.length >= maxClauses || chars + size > maxChars)) {
      chunks.push({ index: chunks.length, clauses: current });
      current = [];
      chars = 0;
    }
    current.push(clause);
    chars += size;
  }
  if (current.length > 0) chunks.push({ index: chunks.length, clauses: current });
  return chunks;
}

function validated(name: keyof typeof LIMITS, value: number): number {
  const { min, max } = LIMITS[name];
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be a whole number from ${min} to ${max}; got ${String(value)}`);
  }
  return value;
}
