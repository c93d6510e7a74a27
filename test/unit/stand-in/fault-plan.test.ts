import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FAULT_PLAN,
  type FaultPlan,
  FaultPlanError,
  isFaultPlanError,
  mergeFaultPlan,
  parseFaultPlanPatch,
  resolveModelPlan,
} from '../../../localstack/bedrock/fault-plan.js';
import { startBedrockStandIn } from '../../../localstack/bedrock/server.js';

const reason = (input: unknown): string => {
  try {
    parseFaultPlanPatch(input);
  } catch (error) {
    if (error instanceof FaultPlanError) return error.message;
    throw error;
  }
  return 'accepted';
};

describe('fault plan validation', () => {
  it('accepts a full plan', () => {
    const patch = parseFaultPlanPatch({
      errorRates: { ThrottlingException: 0.1, ModelTimeoutException: 0.05 },
      capacity: { maxInFlight: 8, tokensPerMinute: 200_000 },
      latency: { kind: 'lognormal', medianMs: 900, sigma: 0.4, scale: 0.1 },
      malformed: { invalidJson: 0.02, schemaViolation: 0.02, badQuote: 0.02 },
      hang: { probability: 0.01, ms: 5_000 },
      modelOverrides: {
        'anthropic.claude-3-haiku-20240307-v1:0': { errorRates: { AccessDeniedException: 1 } },
      },
    });
    expect(patch.capacity?.maxInFlight).toBe(8);
  });

  it('rejects bad input with the reason and the path', () => {
    expect(reason({ errorRates: { ThrottlingException: 2 } })).toMatch(/errorRates\.ThrottlingException/);
    expect(reason({ errorRates: { NoSuchException: 0.1 } })).toMatch(/NoSuchException/);
    expect(reason({ latency: { kind: 'gamma', ms: 1 } })).toMatch(/latency/);
    expect(reason({ latency: { kind: 'uniform', minMs: 9, maxMs: 1 } })).toMatch(/minMs must not exceed/);
    expect(reason({ capacity: { maxInFlight: 0 } })).toMatch(/capacity\.maxInFlight/);
    expect(reason({ capacity: { requestsPerMinute: 1.5 } })).toMatch(/capacity\.requestsPerMinute/);
    expect(reason({ hang: { probability: -0.5 } })).toMatch(/hang\.probability/);
    expect(reason({ lateAnswer: { ms: -1 } })).toMatch(/lateAnswer\.ms/);
    expect(reason({ surprise: true })).toMatch(/surprise/);
    expect(reason('not an object')).not.toBe('accepted');
  });

  it('throws FaultPlanErrors that the guard recognises, with the zod error as cause', () => {
    const error = (() => {
      try {
        parseFaultPlanPatch({ hang: { probability: 2 } });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(isFaultPlanError(error)).toBe(true);
    expect((error as FaultPlanError).name).toBe('FaultPlanError');
    expect((error as FaultPlanError).cause).toBeInstanceOf(Error);
    expect(isFaultPlanError(new Error('other'))).toBe(false);
  });

  it('rejects a merged plan whose error rates sum above 1, for any model', () => {
    const base = mergeFaultPlan(DEFAULT_FAULT_PLAN, { errorRates: { ThrottlingException: 0.6 } });
    expect(() => mergeFaultPlan(base, { errorRates: { InternalServerException: 0.5 } })).toThrow(
      FaultPlanError,
    );
    expect(() =>
      mergeFaultPlan(base, { modelOverrides: { m: { errorRates: { ModelErrorException: 0.5 } } } }),
    ).toThrow(/modelOverrides\["m"\]: errorRates must sum to at most 1/);
  });
});

describe('fault plan merging', () => {
  it('merges sections field by field, replaces latency and clears with null', () => {
    let plan = mergeFaultPlan(DEFAULT_FAULT_PLAN, {
      errorRates: { ThrottlingException: 0.2 },
      capacity: { maxInFlight: 4, tokensPerMinute: 1_000, requestsPerMinute: 60 },
      latency: { kind: 'uniform', minMs: 1, maxMs: 5 },
      hang: { probability: 0.1, ms: 100 },
    });
    plan = mergeFaultPlan(plan, {
      errorRates: { InternalServerException: 0.1 },
      capacity: { tokensPerMinute: null, requestsPerMinute: 30 },
      latency: { kind: 'fixed', ms: 3 },
      hang: { ms: null },
    });
    expect(plan.errorRates).toEqual({ ThrottlingException: 0.2, InternalServerException: 0.1 });
    expect(plan.capacity).toEqual({ maxInFlight: 4, requestsPerMinute: 30 });
    expect(mergeFaultPlan(plan, { capacity: { requestsPerMinute: null } }).capacity).toEqual({
      maxInFlight: 4,
    });
    expect(plan.latency).toEqual({ kind: 'fixed', ms: 3 });
    expect(plan.hang).toEqual({ probability: 0.1 });
    expect(DEFAULT_FAULT_PLAN.errorRates).toEqual({});
    expect(DEFAULT_FAULT_PLAN.lateAnswer).toEqual({ probability: 0, ms: 0 });
    const late = mergeFaultPlan(plan, { lateAnswer: { probability: 0.2, ms: 900 } });
    expect(mergeFaultPlan(late, { lateAnswer: { probability: 0 } }).lateAnswer).toEqual({
      probability: 0,
      ms: 900,
    });
  });

  it('applies per-model overrides over the global plan, and removes them with null', () => {
    let plan = mergeFaultPlan(DEFAULT_FAULT_PLAN, {
      errorRates: { ThrottlingException: 0.2 },
      latency: { kind: 'fixed', ms: 10 },
      modelOverrides: { denied: { errorRates: { ThrottlingException: 0, AccessDeniedException: 1 } } },
    });
    expect(resolveModelPlan(plan, 'denied').errorRates).toEqual({
      ThrottlingException: 0,
      AccessDeniedException: 1,
    });
    expect(resolveModelPlan(plan, 'denied').latency).toEqual({ kind: 'fixed', ms: 10 });
    expect(resolveModelPlan(plan, 'other').errorRates).toEqual({ ThrottlingException: 0.2 });
    plan = mergeFaultPlan(plan, { modelOverrides: { denied: null } });
    expect(resolveModelPlan(plan, 'denied').errorRates).toEqual({ ThrottlingException: 0.2 });
  });
});

describe('stand-in plans', () => {
  it('accepts a whole plan as a patch and validates in-process patches too', async () => {
    const standIn = await startBedrockStandIn({ plan: { latency: { kind: 'fixed', ms: 1 } } });
    try {
      const full: Partial<FaultPlan> = standIn.getPlan();
      expect(standIn.setPlan(full)).toEqual(full);
      expect(() => standIn.setPlan(JSON.parse('{"hang":{"probability":7}}'))).toThrow(FaultPlanError);
      expect(standIn.getPlan()).toEqual(full);
    } finally {
      await standIn.close();
    }
  });
});
