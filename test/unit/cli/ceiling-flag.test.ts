import { describe, expect, it } from 'vitest';
import { ceilingFlag } from '../../../bin/commands/ceiling-flag.js';

describe('ceilingFlag', () => {
  it('reads --ceiling, else --budget, its earlier name, and names the flag it read', () => {
    expect(ceilingFlag({ ceiling: '3' })).toEqual({ flag: 'ceiling', given: '3' });
    expect(ceilingFlag({ budget: '2' })).toEqual({ flag: 'budget', given: '2' });
    expect(ceilingFlag({ ceiling: '3', budget: '2' })).toEqual({ flag: 'ceiling', given: '3' });
    expect(ceilingFlag({})).toEqual({ flag: 'ceiling', given: undefined });
  });
});
