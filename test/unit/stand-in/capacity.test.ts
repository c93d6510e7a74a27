import { describe, expect, it } from 'vitest';
import { type CapacityLease, CapacityModel, TOKEN_WINDOW_MS } from '../../../localstack/bedrock/capacity.js';

/** A capacity model on a clock the test moves by hand. */
function model(): { capacity: CapacityModel; advance: (ms: number) => void } {
  let now = 1_000;
  return { capacity: new CapacityModel(() => now), advance: (ms) => (now += ms) };
}

function admit(
  capacity: CapacityModel,
  limits: Parameters<CapacityModel['tryAdmit']>[0],
  tokens = 10,
): CapacityLease {
  const admission = capacity.tryAdmit(limits, tokens);
  if (!admission.admitted) throw new Error(`throttled by ${admission.reason}`);
  return admission.lease;
}

describe('capacity model', () => {
  it('admits up to maxInFlight concurrent calls and frees a slot on settle', () => {
    const { capacity } = model();
    const limits = { maxInFlight: 4 };
    const leases = Array.from({ length: 4 }, () => admit(capacity, limits));
    expect(capacity.tryAdmit(limits, 10)).toEqual({ admitted: false, reason: 'maxInFlight' });
    leases[0]?.settle(10);
    leases[0]?.settle(10); // settling twice frees one slot only
    expect(capacity.currentInFlight).toBe(3);
    admit(capacity, limits);
    expect(capacity.tryAdmit(limits, 10).admitted).toBe(false);
  });

  it('never throttles calls that stay below the limits', () => {
    const { capacity } = model();
    for (let i = 0; i < 1_000; i++)
      admit(capacity, { maxInFlight: 1, tokensPerMinute: 1_000_000 }, 100).settle(100);
    expect(capacity.currentInFlight).toBe(0);
  });

  it('throttles a call whose estimate would exceed tokensPerMinute in the sliding window', () => {
    const { capacity, advance } = model();
    const limits = { tokensPerMinute: 1_000 };
    admit(capacity, limits, 400).settle(400);
    advance(30_000);
    admit(capacity, limits, 400).settle(400);
    expect(capacity.tryAdmit(limits, 300)).toEqual({ admitted: false, reason: 'tokensPerMinute' });
    admit(capacity, limits, 200).settle(200); // exactly 1,000
    advance(TOKEN_WINDOW_MS - 30_000); // the first call leaves the window
    expect(capacity.tokensInWindow).toBe(600);
    admit(capacity, limits, 400).settle(400);
    expect(capacity.tryAdmit(limits, 1).admitted).toBe(false);
  });

  it('throttles the request past requestsPerMinute in the sliding window, whatever its tokens', () => {
    const { capacity, advance } = model();
    const limits = { requestsPerMinute: 3, tokensPerMinute: 1_000_000 };
    admit(capacity, limits, 1).settle(1);
    advance(20_000);
    admit(capacity, limits, 1).settle(0); // an unanswered call still counts as a request
    admit(capacity, limits, 1);
    expect(capacity.requestsInWindow).toBe(3);
    expect(capacity.tryAdmit(limits, 0)).toEqual({ admitted: false, reason: 'requestsPerMinute' });
    expect(capacity.requestsInWindow).toBe(3); // a refused request is not counted
    advance(TOKEN_WINDOW_MS - 20_000 - 1);
    expect(capacity.tryAdmit(limits, 1).admitted).toBe(false);
    advance(1); // the first request leaves the window
    expect(capacity.requestsInWindow).toBe(2);
    admit(capacity, limits, 1);
    expect(capacity.tryAdmit(limits, 1)).toEqual({ admitted: false, reason: 'requestsPerMinute' });
  });

  it('checks in-flight requests before the rate, and the request rate before tokens', () => {
    const { capacity } = model();
    admit(capacity, { requestsPerMinute: 1 }, 10);
    expect(capacity.tryAdmit({ maxInFlight: 1, requestsPerMinute: 1, tokensPerMinute: 5 }, 10)).toEqual({
      admitted: false,
      reason: 'maxInFlight',
    });
    expect(capacity.tryAdmit({ requestsPerMinute: 1, tokensPerMinute: 5 }, 10)).toEqual({
      admitted: false,
      reason: 'requestsPerMinute',
    });
    expect(capacity.tryAdmit({ requestsPerMinute: 2, tokensPerMinute: 15 }, 10)).toEqual({
      admitted: false,
      reason: 'tokensPerMinute',
    });
  });

  it('reserves estimates at admission and corrects them to what was billed', () => {
    const { capacity, advance } = model();
    const limits = { tokensPerMinute: 1_000 };
    const pending = admit(capacity, limits, 900);
    expect(capacity.tryAdmit(limits, 200).admitted).toBe(false); // the reservation counts
    pending.settle(0); // e.g. an injected error: nothing billed
    expect(capacity.tokensInWindow).toBe(0);
    const late = admit(capacity, limits, 500);
    advance(TOKEN_WINDOW_MS + 1); // expires before it settles
    late.settle(500);
    expect(capacity.tokensInWindow).toBe(0);
  });

  it('reset forgets everything and ignores leases taken before it', () => {
    const { capacity } = model();
    const limits = { maxInFlight: 1, tokensPerMinute: 100, requestsPerMinute: 1 };
    const old = admit(capacity, limits, 100);
    capacity.reset();
    expect(capacity.requestsInWindow).toBe(0);
    const fresh = admit(capacity, limits, 100);
    old.settle(0);
    expect(capacity.currentInFlight).toBe(1);
    expect(capacity.tokensInWindow).toBe(100);
    fresh.settle(100);
    expect(capacity.currentInFlight).toBe(0);
  });
});
