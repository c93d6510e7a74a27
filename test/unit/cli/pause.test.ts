import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { pause } from '../../../bin/commands/pause.js';

describe('pause', () => {
  it('leaves no listener on the signal once it has slept', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 20; i++) await pause(1, controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('returns at once when the signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const slept = pause(60_000, controller.signal);
    controller.abort();
    await slept;
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
