import { createRandom } from '../../localstack/bedrock/random.js';

/** A seeded random source for reproducible jitter in tests and benches (the stand-in's mulberry32). */
export function seededRandom(seed: number): () => number {
  const random = createRandom(seed);
  return () => random.next();
}
