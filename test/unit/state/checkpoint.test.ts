/** isChunkTerminal: when a chunk's checkpoints say it is over. */
import { describe, expect, it } from 'vitest';
import { isChunkTerminal } from '../../../lambdas/core/state/checkpoint.js';
import { checkpoint } from './claims-fixtures.js';

describe('isChunkTerminal', () => {
  it('is true once the last stage is done', () => {
    expect(
      isChunkTerminal([
        checkpoint({ stage: 'analyze', status: 'done' }),
        checkpoint({ stage: 'consolidate', status: 'done' }),
      ]),
    ).toBe(true);
  });

  it('is true when any stage was cancelled or is dead', () => {
    expect(isChunkTerminal([checkpoint({ stage: 'analyze', status: 'cancelled' })])).toBe(true);
    expect(isChunkTerminal([checkpoint({ stage: 'analyze', status: 'dead' })])).toBe(true);
  });

  it('is false while work remains, even with the first stage done', () => {
    expect(
      isChunkTerminal([
        checkpoint({ stage: 'analyze', status: 'done' }),
        checkpoint({ stage: 'consolidate', status: 'pending' }),
      ]),
    ).toBe(false);
    expect(isChunkTerminal([checkpoint({ stage: 'analyze', status: 'retrying' })])).toBe(false);
    expect(isChunkTerminal([])).toBe(false);
  });
});
