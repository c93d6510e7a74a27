/** lambdas/text: money and who decided, as every reader of the pipeline's output is shown them. */
import { describe, expect, it } from 'vitest';
import { deciderText } from '../../../lambdas/text/decider.js';
import { dollars, money } from '../../../lambdas/text/money.js';

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

describe('dollars', () => {
  it('reads as money() prints the same sum in micro-dollars', () => {
    expect(dollars(0.001984)).toBe('$0.0020');
    expect(dollars(12.4)).toBe(money(12_400_000));
  });
});

describe('deciderText', () => {
  it('shows the vouched-for name beside the sub, else the sub, else the principal', () => {
    const by = 'cognito-identity:us-east-1:ab';
    expect(deciderText({ by, bySub: '1f2e', byName: 'ana@example.com' })).toBe('ana@example.com (1f2e)');
    expect(deciderText({ by, bySub: '1f2e' })).toBe('1f2e');
    expect(deciderText({ by })).toBe(by);
  });
});
