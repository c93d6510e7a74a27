import type { CallLedger, Intent } from '../state/call-ledger.js';

/**
 * Writes a chunk's call intents ahead of the calls, a window at a time, so that intents cost a
 * share of one write per call. Calls are numbered in the order the chunk starts them; the first
 * call of a window to ask writes the whole window (up to 25, one BatchWriteItem), and the
 * others of that window wait for it. A window not yet asked for is never written, so a holder
 * that dies leaves at most one window of intents whose calls it never started. An intent is
 * built only when its window is first asked for (its worst case prices the prompt), so a chunk's
 * first call waits for one window's worth of that work, not the whole chunk's.
 */
export class IntentWindow {
  private readonly written = new Map<number, Promise<void>>();
  /** Every window a write was sent for. */
  private readonly tried = new Set<number>();

  /**
   * @param count the chunk's calls
   * @param intentAt the intent of the call at a position (called once per call, when its window is written)
   */
  constructor(
    private readonly ledger: Pick<CallLedger, 'writeIntents'>,
    private readonly count: number,
    private readonly intentAt: (index: number) => Intent,
    private readonly size = 25,
  ) {}

  /**
   * True when the intent of call `index` may have been written: its window was asked for (a
   * write that failed may still have stored some of it).
   */
  asked(index: number): boolean {
    return this.tried.has(Math.floor(index / this.size));
  }

  /** Resolves once the intent of call `index` (its position in `intents`) is written. */
  ensure(index: number): Promise<void> {
    const window = Math.floor(index / this.size);
    let write = this.written.get(window);
    if (!write) {
      const first = window * this.size;
      const intents = Array.from({ length: Math.min(this.size, this.count - first) }, (_, i) =>
        this.intentAt(first + i),
      );
      write = this.ledger.writeIntents(intents);
      this.written.set(window, write);
      this.tried.add(window);
      // A failed write is tried again by the next call that asks.
      write.catch(() => this.written.delete(window));
    }
    return write;
  }
}
