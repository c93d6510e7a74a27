/**
 * The deployer's context flags: each is read from `-c` strings and cdk.json values alike, and
 * each bad value is refused with a message that names the flag.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import {
  DEPLOY_CONTEXT_FLAGS,
  type DeployContextError,
  isDeployContextError,
  readDeployContext,
  stackPropsOf,
} from '../../../lib/deploy-context.js';

const read = (context: Record<string, unknown>) => readDeployContext((key) => context[key]);

/** The error a context gives, asserting it is a DeployContextError naming `flag`. */
function refusal(context: Record<string, unknown>, flag: string): DeployContextError {
  try {
    read(context);
  } catch (error) {
    expect(isDeployContextError(error)).toBe(true);
    const e = error as DeployContextError;
    expect(e.name).toBe('DeployContextError');
    expect(e.flag).toBe(flag);
    expect(e.message.startsWith(`-c ${flag}: `)).toBe(true);
    return e;
  }
  throw new Error(`context ${JSON.stringify(context)} was accepted`);
}

describe('readDeployContext', () => {
  it('sets nothing but the prefix when no flag is given', () => {
    expect(read({})).toEqual({ prefix: 'clause-review' });
    expect(stackPropsOf(read({}))).toEqual({ prefix: 'clause-review' });
  });

  it('reads every flag from -c strings', () => {
    const ctx = read({
      prefix: 'cr-prod',
      alertEmails: 'ops@example.com, legal-ops@example.org',
      administrators: 'arn:aws:iam::123456789012:role/Admin,arn:aws:sts::123456789012:assumed-role/Ops/jo',
      models: '{"primary":"eu.anthropic.claude-haiku-4-5-20251001-v1:0"}',
      retentionDays: '30',
      removalPolicy: 'destroy',
      defaultCeiling: '2.5',
      maxJobsPerOwner: '3',
      realtimeConcurrency: '50',
      batchConcurrency: '8',
    });
    expect(ctx).toEqual({
      prefix: 'cr-prod',
      alertEmails: ['ops@example.com', 'legal-ops@example.org'],
      administrators: [
        'arn:aws:iam::123456789012:role/Admin',
        'arn:aws:sts::123456789012:assumed-role/Ops/jo',
      ],
      modelIds: { primary: 'eu.anthropic.claude-haiku-4-5-20251001-v1:0' },
      retentionDays: 30,
      removalPolicy: RemovalPolicy.DESTROY,
      defaultCeilingMicros: 2_500_000,
      maxJobsPerOwner: 3,
      laneConcurrency: { realtime: 50, batch: 8 },
    });
    expect(stackPropsOf(ctx)).toMatchObject({
      tuning: { defaultCeilingMicros: 2_500_000, maxJobsPerOwner: 3 },
      laneConcurrency: { realtime: 50, batch: 8 },
      removalPolicy: RemovalPolicy.DESTROY,
    });
  });

  it('reads cdk.json values: arrays, numbers and objects', () => {
    const ctx = read({
      alertEmails: ['ops@example.com'],
      administrators: ['arn:aws-us-gov:iam::123456789012:user/jo'],
      models: { fallback: 'us.anthropic.claude-sonnet-4-6' },
      retentionDays: 3650,
      removalPolicy: 'RETAIN',
      defaultCeiling: 20,
      realtimeConcurrency: 2,
    });
    expect(ctx.alertEmails).toEqual(['ops@example.com']);
    expect(ctx.administrators).toEqual(['arn:aws-us-gov:iam::123456789012:user/jo']);
    expect(ctx.modelIds).toEqual({ fallback: 'us.anthropic.claude-sonnet-4-6' });
    expect(ctx.retentionDays).toBe(3650);
    expect(ctx.removalPolicy).toBe(RemovalPolicy.RETAIN);
    expect(ctx.defaultCeilingMicros).toBe(20_000_000);
    expect(ctx.laneConcurrency).toEqual({ realtime: 2 });
  });

  it('converts dollars to micro-dollars on the digits', () => {
    expect(read({ defaultCeiling: '0.01' }).defaultCeilingMicros).toBe(10_000);
    expect(read({ defaultCeiling: '0.123456' }).defaultCeilingMicros).toBe(123_456);
    expect(read({ defaultCeiling: '100000' }).defaultCeilingMicros).toBe(100_000_000_000);
  });

  it('refuses a malformed email, naming alertEmails', () => {
    expect(refusal({ alertEmails: 'ops' }, 'alertEmails').message).toBe(
      "-c alertEmails: 'ops' is not an email address like ops@example.com",
    );
    expect(refusal({ alertEmails: 'ops@example.com,' }, 'alertEmails').message).toContain('empty entry');
    expect(refusal({ alertEmails: 42 }, 'alertEmails').message).toContain('comma-separated list');
  });

  it('refuses what is not an IAM or STS ARN, naming administrators', () => {
    expect(refusal({ administrators: 'Admin' }, 'administrators').message).toBe(
      "-c administrators: 'Admin' is not an IAM or STS ARN like arn:aws:iam::123456789012:role/Admin",
    );
    refusal({ administrators: 'arn:aws:s3:::bucket' }, 'administrators');
    refusal({ administrators: 'arn:aws:iam::1234:role/Admin' }, 'administrators');
  });

  it('refuses models that are not a JSON object of known keys', () => {
    expect(refusal({ models: '{primary:' }, 'models').cause).toBeInstanceOf(SyntaxError);
    expect(refusal({ models: '["a"]' }, 'models').message).toContain('must be a JSON object');
    expect(refusal({ models: '{"primery":"x"}' }, 'models').message).toContain("got 'primery'");
    expect(refusal({ models: '{"primary":1}' }, 'models').message).toContain('primary must be a model id');
    expect(refusal({ models: '{"perAnalyst":[]}' }, 'models').message).toContain('perAnalyst');
  });

  it('refuses retention days outside 1-3650 through the range check', () => {
    expect(refusal({ retentionDays: '0' }, 'retentionDays').message).toBe(
      '-c retentionDays: must be an integer from 1 to 3650; got 0',
    );
    expect(refusal({ retentionDays: '3651' }, 'retentionDays').cause).toBeInstanceOf(Error);
    expect(refusal({ retentionDays: '30d' }, 'retentionDays').message).toBe(
      "-c retentionDays: must be an integer from 1 to 3650; got '30d'",
    );
    refusal({ retentionDays: 1.5 }, 'retentionDays');
  });

  it('refuses a prefix the resource names cannot take, naming prefix', () => {
    expect(refusal({ prefix: 'Bad_Prefix' }, 'prefix').message).toMatch(
      /^-c prefix: prefix must be 3-24 characters .*got 'Bad_Prefix'/,
    );
  });

  it('refuses an unpriced model or an unknown analyst, naming models', () => {
    expect(refusal({ models: '{"primary":"us.example.unpriced-v1"}' }, 'models').message).toMatch(
      /^-c models: modelIds: model 'us.example.unpriced-v1' has no entry in the price table/,
    );
    expect(
      refusal({ models: '{"perAnalyst":{"no-such-analyst":{"primary":"x"}}}' }, 'models').message,
    ).toContain('no-such-analyst');
  });

  it('refuses a removal policy other than retain or destroy', () => {
    expect(refusal({ removalPolicy: 'snapshot' }, 'removalPolicy').message).toBe(
      "-c removalPolicy: must be 'retain' or 'destroy'; got 'snapshot'",
    );
  });

  it("still reads the ceiling flags' earlier names, defaultBudget and maxBudget, and names them in a refusal", () => {
    expect(read({ defaultBudget: '7.5', maxBudget: '250' })).toMatchObject({
      defaultCeilingMicros: 7_500_000,
      maxCeilingMicros: 250_000_000,
    });
    // The new name wins over the old when both are given.
    expect(read({ defaultCeiling: '3', defaultBudget: '7.5' }).defaultCeilingMicros).toBe(3_000_000);
    expect(refusal({ defaultBudget: 'twenty' }, 'defaultBudget').message).toContain("got 'twenty'");
  });

  it('refuses a default ceiling that is not dollars from 0.01 to 100000', () => {
    for (const bad of ['0', '0.009', '100000.01', '-1', '$20', '2.1234567', 'twenty']) {
      expect(refusal({ defaultCeiling: bad }, 'defaultCeiling').message).toContain(`got '${bad}'`);
    }
  });

  it("reads the most a ceiling may be and an owner's daily spend cap, alone in the tuning they set", () => {
    expect(stackPropsOf(read({ maxCeiling: '250', dailySpendPerOwner: '40.5' }))).toEqual({
      prefix: 'clause-review',
      tuning: { maxCeilingMicros: 250_000_000, dailySpendPerOwnerMicros: 40_500_000 },
    });
    // 0: no daily cap.
    expect(read({ dailySpendPerOwner: 0 }).dailySpendPerOwnerMicros).toBe(0);
    expect(refusal({ maxCeiling: '0' }, 'maxCeiling').message).toContain('from 0.01 to 100000');
    expect(refusal({ dailySpendPerOwner: '-5' }, 'dailySpendPerOwner').message).toContain("got '-5'");
    // A default ceiling above the most a ceiling may be would refuse every upload that names none.
    expect(refusal({ defaultCeiling: '50', maxCeiling: '20' }, 'defaultCeiling').message).toBe(
      '-c defaultCeiling: must be at most -c maxCeiling (20); got 50',
    );
  });

  it('reads the tenants whose SharePoint may frame the add-in, and refuses a name that is not one', () => {
    expect(stackPropsOf(read({ officeTenants: 'contoso,fabrikam' }))).toEqual({
      prefix: 'clause-review',
      officeTenants: ['contoso', 'fabrikam'],
    });
    expect(refusal({ officeTenants: '*.sharepoint.com' }, 'officeTenants').message).toBe(
      "-c officeTenants: '*.sharepoint.com' is not a SharePoint tenant name like contoso (contoso.sharepoint.com)",
    );
  });

  it("reads a cap on one owner's running jobs from 1 to 10000, alone in the tuning it sets", () => {
    expect(read({ maxJobsPerOwner: 1 }).maxJobsPerOwner).toBe(1);
    expect(stackPropsOf(read({ maxJobsPerOwner: '10000' }))).toEqual({
      prefix: 'clause-review',
      tuning: { maxJobsPerOwner: 10_000 },
    });
    expect(read({ maxJobsPerOwner: '0' }).maxJobsPerOwner).toBe(0);
    expect(refusal({ maxJobsPerOwner: '-1' }, 'maxJobsPerOwner').message).toBe(
      '-c maxJobsPerOwner: must be an integer from 0 to 10000; got -1',
    );
    for (const bad of ['10001', '2.5', 'two', '-1']) {
      expect(refusal({ maxJobsPerOwner: bad }, 'maxJobsPerOwner').message).toContain('from 0 to 10000');
    }
  });

  it('reads per-model budgets as JSON text or an object, alone in the tuning it sets, and refuses what the runtime would not take', () => {
    const budgets = {
      'us.anthropic.claude-haiku-4-5-20251001-v1:0': { tokensPerMinute: 2_000_000, requestsPerMinute: 500 },
    };
    expect(stackPropsOf(read({ modelBudgets: JSON.stringify(budgets) }))).toEqual({
      prefix: 'clause-review',
      tuning: { modelBudgets: budgets },
    });
    expect(read({ modelBudgets: { m: { requestsPerMinute: 1 } } }).modelBudgets).toEqual({
      m: { requestsPerMinute: 1 },
    });
    expect(refusal({ modelBudgets: '{"m":' }, 'modelBudgets').message).toMatch(
      /^-c modelBudgets: must be JSON like/,
    );
    expect(refusal({ modelBudgets: '[1]' }, 'modelBudgets').message).toContain(
      'must be a JSON object by model id',
    );
    expect(refusal({ modelBudgets: '{"m":{}}' }, 'modelBudgets').message).toBe(
      "-c modelBudgets: 'm' must name tokensPerMinute, requestsPerMinute or both, and nothing else; got {}",
    );
    expect(refusal({ modelBudgets: '{"m":{"tpm":5}}' }, 'modelBudgets').message).toContain(
      'and nothing else',
    );
    for (const bad of ['0', '2.5', '"100"', '-3'])
      expect(refusal({ modelBudgets: `{"m":{"tokensPerMinute":${bad}}}` }, 'modelBudgets').message).toBe(
        `-c modelBudgets: 'm'.tokensPerMinute must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}; got ${bad}`,
      );
  });

  it("refuses a lane concurrency outside its consumer's limits", () => {
    expect(refusal({ realtimeConcurrency: '1' }, 'realtimeConcurrency').message).toBe(
      '-c realtimeConcurrency: must be an integer from 2 to 1000; got 1',
    );
    refusal({ realtimeConcurrency: '1001' }, 'realtimeConcurrency');
    expect(refusal({ batchConcurrency: '0' }, 'batchConcurrency').message).toBe(
      '-c batchConcurrency: must be an integer from 1 to 100; got 0',
    );
    refusal({ batchConcurrency: '101' }, 'batchConcurrency');
  });

  it('reads the review flags: the shortest window and whether owners decide their own escalations', () => {
    const read = (values: Record<string, unknown>) => (key: string) => values[key];
    expect(
      readDeployContext(read({ minReviewHours: '2.5', ownersDecideOwnEscalations: 'true' })),
    ).toMatchObject({
      minReviewHours: 2.5,
      ownersDecideOwnEscalations: true,
    });
    expect(() => readDeployContext(read({ minReviewHours: '721' }))).toThrow(
      "-c minReviewHours: must be a number from 0 to 720 hours; got '721'",
    );
    expect(() => readDeployContext(read({ ownersDecideOwnEscalations: 'yes' }))).toThrow(
      "-c ownersDecideOwnEscalations: must be true or false; got 'yes'",
    );
    expect(stackPropsOf(readDeployContext(read({ minReviewHours: 4 })))).toMatchObject({
      tuning: { minReviewHours: 4 },
    });
  });

  it('lists every flag it reads', () => {
    expect(DEPLOY_CONTEXT_FLAGS).toEqual([
      'prefix',
      'alertEmails',
      'administrators',
      'sessionNamedRoles',
      'models',
      'retentionDays',
      'removalPolicy',
      'officeTenants',
      'defaultCeiling',
      'maxCeiling',
      'dailySpendPerOwner',
      'maxJobsPerOwner',
      'minReviewHours',
      'ownersDecideOwnEscalations',
      'modelBudgets',
      'realtimeConcurrency',
      'batchConcurrency',
    ]);
  });
});
