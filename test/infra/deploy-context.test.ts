/**
 * The CDK app as `npx cdk synth -c …` builds it (lib/clause-review-app.ts, which bin/app.ts
 * runs): every deployer flag lands in the template, and a bad flag stops synth naming the flag.
 * Synthesized without bundling the handlers (the `aws:cdk:bundling-stacks` context), which
 * changes no resource read here.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addClauseReviewStack } from '../../lib/clause-review-app.js';
import { type DeployContextError, isDeployContextError } from '../../lib/deploy-context.js';
import { isValidationError } from '../../lib/errors.js';
import { defaultMaxJobsPerOwner } from '../../lib/owner-cap.js';
import { PROJECT_ROOT } from '../../lib/project-root.js';
import { topology } from '../../lib/topology.js';

const { context } = JSON.parse(readFileSync(`${PROJECT_ROOT}/cdk.json`, 'utf8')) as {
  context: Record<string, unknown>;
};
const outdir = mkdtempSync(join(tmpdir(), 'clause-review-context-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };

function synth(flags: Record<string, unknown>): Record<string, Resource> {
  const app = new App({
    context: { ...context, 'aws:cdk:bundling-stacks': [], nag: 'false', ...flags },
    outdir,
  });
  const stack = addClauseReviewStack(app);
  return Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
}

const ofType = (resources: Record<string, Resource>, type: string) =>
  Object.entries(resources).filter(([, r]) => r.Type === type);

/** The environment variables of every Lambda function, by logical id. */
function environments(resources: Record<string, Resource>): Map<string, Record<string, unknown>> {
  return new Map(
    ofType(resources, 'AWS::Lambda::Function').map(([id, r]) => [
      id,
      (r.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {},
    ]),
  );
}

const ADMIN = 'arn:aws:iam::123456789012:role/Admin';
const SSO_ROLE =
  'arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_Reviewers_0a1b';

describe('the CDK app with the deployer context flags', () => {
  let flagged: Record<string, Resource>;
  let plain: Record<string, Resource>;
  beforeAll(() => {
    flagged = synth({
      alertEmails: 'ops@example.com,legal@example.org',
      administrators: ADMIN,
      sessionNamedRoles: SSO_ROLE,
      models: '{"primary":"eu.anthropic.claude-haiku-4-5-20251001-v1:0"}',
      retentionDays: '30',
      removalPolicy: 'destroy',
      defaultCeiling: '7.5',
      maxJobsPerOwner: '2',
      modelBudgets: '{"eu.anthropic.claude-haiku-4-5-20251001-v1:0":{"tokensPerMinute":3000000}}',
      realtimeConcurrency: '50',
      batchConcurrency: '8',
    });
    plain = synth({});
  }, 240_000);

  it('-c alertEmails subscribes each address to the alerts topic by email', () => {
    const endpoints = ofType(flagged, 'AWS::SNS::Subscription').map(([, r]) => [
      r.Properties.Protocol,
      r.Properties.Endpoint,
    ]);
    expect(endpoints).toEqual([
      ['email', 'ops@example.com'],
      ['email', 'legal@example.org'],
    ]);
    expect(ofType(plain, 'AWS::SNS::Subscription')).toEqual([]);
  });

  it('-c administrators names the administrators to the status API', () => {
    const admins = [...environments(flagged).values()]
      .map((env) => env.ADMIN_PRINCIPALS)
      .filter((v) => v !== undefined);
    expect(admins).toHaveLength(1);
    expect(JSON.stringify(admins[0])).toContain(ADMIN);
    // Without the flag the only administrator is the sign-in's administrators-group role.
    const plainAdmins = [...environments(plain).values()]
      .map((env) => env.ADMIN_PRINCIPALS)
      .filter((v) => v !== undefined);
    expect(plainAdmins).toHaveLength(1);
    expect(JSON.stringify(plainAdmins[0])).not.toContain(ADMIN);
    expect(JSON.stringify(plainAdmins[0])).toContain('AdministratorRole');
  });

  it('-c sessionNamedRoles names the roles whose sessions may own jobs to the status API', () => {
    const named = [...environments(flagged).values()]
      .map((env) => env.SESSION_NAMED_ROLES)
      .filter((v) => v !== undefined);
    expect(named).toEqual([JSON.stringify([SSO_ROLE])]);
    expect([...environments(plain).values()].some((env) => env.SESSION_NAMED_ROLES !== undefined)).toBe(
      false,
    );
  });

  it('-c models sets the workers’ primary model and the IAM grant', () => {
    const models = new Set([...environments(flagged).values()].map((env) => env.MODEL_ID).filter(Boolean));
    expect([...models]).toEqual(['eu.anthropic.claude-haiku-4-5-20251001-v1:0']);
    expect(JSON.stringify(flagged)).toContain(
      'inference-profile/eu.anthropic.claude-haiku-4-5-20251001-v1:0',
    );
  });

  it('-c retentionDays sets the expiry of contracts, work files and reports', () => {
    const expiries = (resources: Record<string, Resource>) =>
      ofType(resources, 'AWS::S3::Bucket')
        .flatMap(
          ([, r]) =>
            (r.Properties.LifecycleConfiguration as { Rules: { Id?: string; ExpirationInDays?: number }[] })
              .Rules,
        )
        .filter((rule) => rule.Id === 'ExpireContracts' || rule.Id === 'ExpireWorkFilesAndReports')
        .map((rule) => rule.ExpirationInDays);
    expect(expiries(flagged)).toEqual([30, 30]);
    expect(expiries(plain)).toEqual([90, 90]);
  });

  it('-c removalPolicy=destroy deletes the table, buckets and key with the stack; retain keeps them', () => {
    const policies = (resources: Record<string, Resource>, type: string) =>
      new Set(ofType(resources, type).map(([, r]) => r.DeletionPolicy));
    for (const type of ['AWS::DynamoDB::Table', 'AWS::S3::Bucket', 'AWS::KMS::Key']) {
      expect(policies(flagged, type)).toEqual(new Set(['Delete']));
      expect(policies(plain, type)).toEqual(new Set(['Retain']));
    }
    const protection = (resources: Record<string, Resource>) =>
      ofType(resources, 'AWS::DynamoDB::Table')[0]?.[1].Properties.DeletionProtectionEnabled;
    expect(protection(flagged)).toBe(false);
    expect(protection(plain)).toBe(true);
  });

  it('-c defaultCeiling sets the default ceiling of the handlers and the status API', () => {
    const ceilings = (resources: Record<string, Resource>) =>
      new Set([...environments(resources).values()].map((env) => env.DEFAULT_CEILING_MICROS));
    const set = ceilings(flagged);
    expect(set.has('7500000')).toBe(true);
    // Every pipeline function and the API carry it; only aws-cdk-lib's helpers do not.
    expect([...set].filter((v) => v !== undefined)).toEqual(['7500000']);
    expect([...ceilings(plain)].filter((v) => v !== undefined)).toEqual([]);
  });

  it("-c maxJobsPerOwner sets the cap on an owner's running jobs that intake admits against", () => {
    const caps = (resources: Record<string, Resource>) =>
      [...environments(resources).values()]
        .map((env) => env.MAX_JOBS_PER_OWNER)
        .filter((v) => v !== undefined);
    expect(caps(flagged).length).toBeGreaterThan(0);
    expect(new Set(caps(flagged))).toEqual(new Set(['2']));
    // Without the flag every function gets the cap derived from the stack's own lanes.
    expect(caps(plain).length).toBeGreaterThan(0);
    expect(new Set(caps(plain))).toEqual(new Set([String(defaultMaxJobsPerOwner(topology()))]));
  });

  it('-c modelBudgets gives every function the per-model budgets they share', () => {
    const budgets = (resources: Record<string, Resource>) =>
      [...environments(resources).values()].map((env) => env.MODEL_BUDGETS).filter((v) => v !== undefined);
    expect(budgets(flagged).length).toBeGreaterThan(0);
    expect([...new Set(budgets(flagged))].map((v) => JSON.parse(String(v)))).toEqual([
      { 'eu.anthropic.claude-haiku-4-5-20251001-v1:0': { tokensPerMinute: 3_000_000 } },
    ]);
    expect(budgets(plain)).toEqual([]);
  });

  it("-c <lane>Concurrency sets the realtime lane's Lambda concurrency and the batch lane's tasks", () => {
    const concurrency = (resources: Record<string, Resource>) =>
      ofType(resources, 'AWS::Lambda::EventSourceMapping')
        .map(
          ([, r]) =>
            (r.Properties.ScalingConfig as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency,
        )
        .sort((a, b) => (a ?? 0) - (b ?? 0));
    expect(concurrency(flagged)).toContain(50);
    expect(concurrency(flagged)).not.toContain(20);
    expect(concurrency(plain)).toContain(20);
    const maxTasks = (resources: Record<string, Resource>) =>
      ofType(resources, 'AWS::ApplicationAutoScaling::ScalableTarget').map(
        ([, r]) => r.Properties.MaxCapacity,
      );
    expect(maxTasks(flagged)).toEqual([8]);
    expect(maxTasks(plain)).toEqual([4]);
  });
});

describe('the CDK app refuses a bad flag before building anything', () => {
  it.each([
    ['prefix', 'Bad_Prefix'],
    ['alertEmails', 'ops'],
    ['administrators', 'Admin'],
    ['sessionNamedRoles', 'arn:aws:sts::123456789012:assumed-role/Ops/alice'],
    ['models', '{not json'],
    ['retentionDays', '0'],
    ['removalPolicy', 'snapshot'],
    ['defaultCeiling', '0'],
    ['realtimeConcurrency', '1'],
    ['batchConcurrency', '101'],
  ])('-c %s=%s', (flag, value) => {
    const app = new App({ context: { ...context, nag: 'false', [flag]: value }, outdir });
    let caught: unknown;
    try {
      addClauseReviewStack(app);
    } catch (error) {
      caught = error;
    }
    expect(isDeployContextError(caught)).toBe(true);
    expect((caught as Error).message).toMatch(new RegExp(`^-c ${flag}: `));
    // A ValidationError like any other construct error, scoped to the app whose context held the flag.
    expect(isValidationError(caught)).toBe(true);
    expect((caught as DeployContextError).constructPath).toBe(app.node.path);
    expect(app.node.children).toHaveLength(0);
  });

  it('refuses a model without a price, naming the model', () => {
    const app = new App({
      context: {
        ...context,
        nag: 'false',
        'aws:cdk:bundling-stacks': [],
        models: '{"primary":"us.example.unpriced-v1"}',
      },
      outdir,
    });
    expect(() => addClauseReviewStack(app)).toThrow(/^-c models: modelIds: .*us\.example\.unpriced-v1/);
  });
});
