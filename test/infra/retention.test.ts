/**
 * How long the stack keeps data and logs: S3 lifecycle expiry of contracts, work files and
 * reports (`retentionDays`), and a log group with a retention for every Lambda function,
 * aws-cdk-lib's own helpers included. The whole stack is synthesized without bundling the
 * handlers (the `aws:cdk:bundling-stacks` context), which changes no resource read here.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Aspects, CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { afterAll, describe, expect, it } from 'vitest';
import { ClauseReviewStack } from '../../lib/clause-review-stack.js';
import { DEFAULT_RETENTION_DAYS, DocumentBuckets } from '../../lib/document-buckets.js';
import { FunctionLogRetention } from '../../lib/function-log-retention.js';
import { PROJECT_ROOT } from '../../lib/project-root.js';
import { topology } from '../../lib/topology.js';

const { context } = JSON.parse(readFileSync(`${PROJECT_ROOT}/cdk.json`, 'utf8')) as {
  context: Record<string, unknown>;
};
const outdir = mkdtempSync(join(tmpdir(), 'clause-review-retention-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));
const app = () => new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] }, outdir });

type Resource = { Type: string; Properties: Record<string, unknown> };
type Rule = Record<string, unknown>;

function resourcesOf(stack: Stack): Record<string, Resource> {
  return Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
}

function rulesOf(resources: Record<string, Resource>, logicalIdStart: string): Rule[] {
  const entry = Object.entries(resources).find(
    ([id, r]) => r.Type === 'AWS::S3::Bucket' && id.startsWith(logicalIdStart),
  );
  if (!entry) throw new Error(`no bucket ${logicalIdStart}*`);
  return (entry[1].Properties.LifecycleConfiguration as { Rules: Rule[] }).Rules;
}

/**
 * Each function's log group (by the function's logical id): the one its logging config names,
 * or else the stack's group named `/aws/lambda/<function>`, which Lambda writes to by default;
 * undefined where there is neither (Lambda would then create one that never expires).
 */
function functionLogGroups(resources: Record<string, Resource>): Map<string, Resource | undefined> {
  const out = new Map<string, Resource | undefined>();
  const groups = Object.values(resources).filter((r) => r.Type === 'AWS::Logs::LogGroup');
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const ref = (r.Properties.LoggingConfig as { LogGroup?: { Ref?: string } } | undefined)?.LogGroup?.Ref;
    const byName = JSON.stringify({ 'Fn::Join': ['', ['/aws/lambda/', { Ref: id }]] });
    out.set(
      id,
      ref ? resources[ref] : groups.find((g) => JSON.stringify(g.Properties.LogGroupName) === byName),
    );
  }
  return out;
}

describe('DocumentBuckets retention', () => {
  const build = (retentionDays?: number) => {
    const stack = new Stack(app(), 'Buckets');
    new DocumentBuckets(stack, 'Documents', {
      settings: topology().buckets,
      ...(retentionDays !== undefined ? { retentionDays } : {}),
    });
    return resourcesOf(stack);
  };

  it(`expires contracts, work files and reports after ${DEFAULT_RETENTION_DAYS} days unless told otherwise`, () => {
    const resources = build();
    expect(rulesOf(resources, 'DocumentsIntake')).toEqual([
      {
        Id: 'ExpireContracts',
        Status: 'Enabled',
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 },
        ExpirationInDays: DEFAULT_RETENTION_DAYS,
        NoncurrentVersionExpiration: { NoncurrentDays: 30 },
      },
      { Id: 'RemoveExpiredDeleteMarkers', Status: 'Enabled', ExpiredObjectDeleteMarker: true },
    ]);
    // No prefix filter: the rule covers work/ and the reports prefix alike.
    expect(rulesOf(resources, 'DocumentsResults')).toEqual([
      {
        Id: 'ExpireWorkFilesAndReports',
        Status: 'Enabled',
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 },
        ExpirationInDays: DEFAULT_RETENTION_DAYS,
        NoncurrentVersionExpiration: { NoncurrentDays: 1 },
      },
    ]);
  });

  it('takes retentionDays, and rejects a value S3 lifecycle rules cannot hold, naming it', () => {
    const resources = build(7);
    expect(rulesOf(resources, 'DocumentsIntake')[0]?.ExpirationInDays).toBe(7);
    expect(rulesOf(resources, 'DocumentsResults')[0]?.ExpirationInDays).toBe(7);
    for (const bad of [0, 1.5, 3651]) {
      expect(() => build(bad)).toThrow(
        `DocumentBuckets retentionDays must be an integer from 1 to 3650; got ${bad}`,
      );
    }
  });
});

describe('FunctionLogRetention', () => {
  it('gives every function a log group with the retention, raw CloudFormation functions included, and leaves its own groups alone', () => {
    const stack = new Stack(app(), 'Aspect');
    const code = lambda.Code.fromInline('exports.handler = async () => {}');
    const runtime = lambda.Runtime.NODEJS_22_X;
    new lambda.Function(stack, 'Plain', { code, handler: 'index.handler', runtime });
    const own = new logs.LogGroup(stack, 'Own', { retention: logs.RetentionDays.ONE_YEAR });
    new lambda.Function(stack, 'WithLogs', { code, handler: 'index.handler', runtime, logGroup: own });
    new CfnResource(stack, 'Raw', {
      type: 'AWS::Lambda::Function',
      properties: {
        Code: { ZipFile: 'x' },
        Handler: 'index.handler',
        Role: 'arn:aws:iam::123456789012:role/handler',
        Runtime: 'python3.13',
      },
    });
    Aspects.of(stack).add(new FunctionLogRetention({ retention: logs.RetentionDays.TWO_WEEKS }));
    const resources = resourcesOf(stack);
    const groups = functionLogGroups(resources);
    expect(groups.size).toBe(3);
    const ownId = Object.keys(resources).find((id) => id.startsWith('Own'));
    for (const [id, group] of groups) {
      const retention = group?.Properties.RetentionInDays;
      if (id.startsWith('WithLogs')) {
        expect(retention).toBe(365);
        expect(resources[id]?.Properties.LoggingConfig).toEqual({ LogGroup: { Ref: ownId } });
      } else expect(retention, id).toBe(14);
    }
    expect(Object.values(resources).filter((r) => r.Type === 'AWS::Logs::LogGroup')).toHaveLength(3);
  });
});

describe('ClauseReviewStack retention', () => {
  const stack = new ClauseReviewStack(app(), 'Retention', {
    retentionDays: 30,
    logRetention: logs.RetentionDays.ONE_WEEK,
  });
  const resources = resourcesOf(stack);

  it('passes retentionDays to the contract, work-file and report expiry', () => {
    expect(rulesOf(resources, 'DocumentsIntake')[0]?.ExpirationInDays).toBe(30);
    expect(rulesOf(resources, 'DocumentsResults')[0]?.ExpirationInDays).toBe(30);
  });

  it("keeps every function's logs for logRetention, aws-cdk-lib's own functions included", () => {
    const groups = functionLogGroups(resources);
    const descriptions = [...groups.keys()].map((id) => String(resources[id]?.Properties.Description));
    // The bucket-notification helper, the default-security-group provider and the function
    // behind AwsCustomResource (which sets the API's CORS rule) are aws-cdk-lib's.
    expect(descriptions).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/Custom::S3BucketNotifications/),
        expect.stringMatching(/VPC default security group/),
        expect.stringMatching(/^clause-review sweeper/),
      ]),
    );
    expect([...groups.keys()]).toEqual(
      expect.arrayContaining([expect.stringMatching(/^AWS679f53fac002430cb0da5b7982bd2287/)]),
    );
    expect(groups.size).toBe(9);
    for (const [id, group] of groups) expect(group?.Properties.RetentionInDays, id).toBe(7);
    expect(Object.values(resources).some((r) => r.Type === 'Custom::LogRetention')).toBe(false);
  });
});

describe('ClauseReviewStack defaults', () => {
  it(`keep every function's logs a month, and contracts, work files and reports ${DEFAULT_RETENTION_DAYS} days`, () => {
    const resources = resourcesOf(new ClauseReviewStack(app(), 'Defaults'));
    const groups = functionLogGroups(resources);
    expect(groups.size).toBe(9);
    for (const [id, group] of groups) expect(group?.Properties.RetentionInDays, id).toBe(30);
    expect(rulesOf(resources, 'DocumentsIntake')[0]?.ExpirationInDays).toBe(DEFAULT_RETENTION_DAYS);
    expect(rulesOf(resources, 'DocumentsResults')[0]?.ExpirationInDays).toBe(DEFAULT_RETENTION_DAYS);
  });
});
