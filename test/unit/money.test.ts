import { describe, expect, it } from 'vitest';
import { money } from '../../lambdas/text/money.js';

describe('money as a person reads it', () => {
  it('shows cents from a cent up, four decimals below, six below a hundredth of a cent', () => {
    expect(money(12_400_000)).toBe('$12.40');
    expect(money(10_000)).toBe('$0.01');
    expect(money(4_100)).toBe('$0.0041');
    expect(money(100)).toBe('$0.0001');
    expect(money(12)).toBe('$0.000012');
    expect(money(0)).toBe('$0.00');
    expect(money(-4_100)).toBe('-$0.0041');
  });
});
