/**
 * Wraps a fake answer so that each call stays in flight for a moment, and counts the most that
 * were in flight at once: for cases that pin how many requests a piece of code sends together.
 */
export function inFlightPeak<A extends unknown[], R>(
  answer: (...args: A) => R | Promise<R>,
  hold: () => Promise<unknown> = () => new Promise((resolve) => setImmediate(resolve)),
): { readonly fake: (...args: A) => Promise<R>; readonly peak: () => number } {
  let inFlight = 0;
  let peak = 0;
  return {
    async fake(...args: A) {
      inFlight++;
      peak = Math.max(peak, inFlight);
      try {
        await hold();
        return await answer(...args);
      } finally {
        inFlight--;
      }
    },
    peak: () => peak,
  };
}
