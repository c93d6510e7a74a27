/**
 * Sleeps for `ms`, or returns early once `signal` aborts. Its abort listener goes with it, so a
 * loop that pauses every second does not pile listeners up on a long-lived signal.
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
