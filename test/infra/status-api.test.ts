/**
 * The StatusApi construct on its own stack (its handler bundled with esbuild once), read back
 * from the template: routes, IAM authorization, access logs, throttling and least privilege.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CALLER_BUDGETS } from '../../lambdas/api/caller-limits.js';
import { API_CONFIG_VARIABLES, callerBudgetsOf, loadApiConfig } from '../../lambdas/api/config.js';
import { API_ROUTES, routeKey } from '../../lambdas/api/routes.js';
import { LANES, type QueueRole } from '../../lambdas/core/lanes-and-limits.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { panelModelsOf } from '../../lambdas/shared/config.js';
import { PROJECT_ROOT } from '../../lib/project-root.js';
import { apiUrlFromOutputs, StackOutputsError } from '../../lib/stack-outputs.js';
import { StatusApi } from '../../lib/status-api.js';
import { topology } from '../../lib/topology.js';
import { queueUrlsVariable } from '../helpers/deployed-env.js';

type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

const { context } = JSON.parse(readFileSync(`${PROJECT_ROOT}/cdk.json`, 'utf8')) as { context: object };
const outdir = mkdtempSync(join(tmpdir(), 'clause-review-status-api-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const t = topology();
/** Models other than the defaults, so the quote's configuration is seen to come from the props. */
const QUOTED_MODELS = {
  primary: FALLBACK_MODEL_ID,
  fallback: PRIMARY_MODEL_ID,
  perAnalyst: { 'ip-counsel': { primary: PRIMARY_MODEL_ID } },
};
let stack: Stack;
let api: StatusApi;
let template: Template;
let table: dynamodb.Table;
let intake: s3.Bucket;
let results: s3.Bucket;
let queues: Record<QueueRole, sqs.Queue>;

const queuesIn = (scope: Stack) => ({
  intake: new sqs.Queue(scope, 'IntakeQueue', { enforceSSL: true }),
  realtime: new sqs.Queue(scope, 'Realtime', { enforceSSL: true }),
  batch: new sqs.Queue(scope, 'Batch', { enforceSSL: true }),
  finalize: new sqs.Queue(scope, 'Finalize', { enforceSSL: true }),
});

beforeAll(() => {
  const app = new App({ context, outdir });
  stack = new Stack(app, 'StatusApiTest');
  table = new dynamodb.Table(stack, 'Table', {
    partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
    sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
  });
  intake = new s3.Bucket(stack, 'Intake', { versioned: true });
  results = new s3.Bucket(stack, 'Results');
  queues = queuesIn(stack);
  api = new StatusApi(stack, 'StatusApi', {
    topology: t,
    table,
    intakeBucket: intake,
    resultsBucket: results,
    queues,
    tuning: {
      defaultLane: 'batch',
      defaultCeilingMicros: 2_000_000,
      maxDocumentBytes: 5_000_000,
      chunkClauses: 6,
    },
    models: QUOTED_MODELS,
    rateLimit: 10,
  });
  template = Template.fromStack(stack);
});

const idOf = (c: IConstruct) => Stack.of(c).getLogicalId(c.node.defaultChild as CfnElement);
const asArray = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

function statements(): Statement[] {
  const role = idOf(api.handler.role as IConstruct);
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(role))
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

describe('StatusApi', () => {
  it('routes every API route to the one handler, each under IAM authorization', () => {
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route'));
    expect(routes.map((r) => r.Properties.RouteKey).sort()).toEqual(API_ROUTES.map(routeKey).sort());
    expect(routes.map((r) => r.Properties.RouteKey)).toContain('POST /quote');
    for (const r of routes) expect(r.Properties.AuthorizationType).toBe('AWS_IAM');
    const integrations = Object.values(template.findResources('AWS::ApiGatewayV2::Integration'));
    expect(integrations).toHaveLength(1);
    expect(integrations[0]?.Properties).toMatchObject({
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
    });
  });

  it('logs every request to its own log group and throttles the default stage', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [idOf(api.accessLogs), 'Arn'] } },
      DefaultRouteSettings: { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
    });
  });

  it('hands the handler a complete configuration with the defaults intake applies', () => {
    const fn = template.findResources('AWS::Lambda::Function', {
      Properties: {
        Description:
          'clause-review status API: submit, quote, status, cancel, report, pause, resume, findings, decisions',
      },
    });
    const [only] = Object.values(fn);
    if (!only) throw new Error('no status API function in the template');
    const env = (only.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    for (const name of ['TABLE_NAME', 'INTAKE_BUCKET', 'INTAKE_PREFIX', 'RESULTS_BUCKET'] as const) {
      expect(API_CONFIG_VARIABLES).toContain(name);
      expect(env[name], name).toBeDefined();
    }
    expect(env.INTAKE_PREFIX).toBe(t.buckets.intake.prefix);
    expect(env.DEFAULT_LANE).toBe('batch');
    expect(env.DEFAULT_CEILING_MICROS).toBe('2000000');
    // POST /quote prices with the models and reads with the limits intake has.
    const config = loadApiConfig({
      ...(env as Record<string, string>),
      TABLE_NAME: 't',
      INTAKE_BUCKET: 'i',
      RESULTS_BUCKET: 'r',
      QUEUE_URLS: queueUrlsVariable('https://q'),
    });
    expect(panelModelsOf(config)).toEqual(QUOTED_MODELS);
    expect(config.MAX_DOCUMENT_BYTES).toBe(5_000_000);
    expect(config.CHUNK_CLAUSES).toBe(6);
    // Each caller's budgets of quote and submit, the defaults unless the props say otherwise.
    expect(callerBudgetsOf(config)).toEqual(DEFAULT_CALLER_BUDGETS);
    // Reading a document takes intake's worker heap and deadline, within API Gateway's 30 s.
    expect(only.Properties).toMatchObject({ MemorySize: 1024, Timeout: 29 });
  });

  it('names no administrator unless told, and hands the ones it is told to the handler as JSON', () => {
    const env = (fn: StatusApi) =>
      (
        Template.fromStack(Stack.of(fn)).findResources('AWS::Lambda::Function', {
          Properties: {
            Description:
              'clause-review status API: submit, quote, status, cancel, report, pause, resume, findings, decisions',
          },
        }) as Record<string, { Properties: { Environment: { Variables: Record<string, string> } } }>
      )[idOf(fn.handler)]?.Properties.Environment.Variables ?? {};
    expect(env(api).ADMIN_PRINCIPALS).toBeUndefined();
    const admins = ['arn:aws:iam::123456789012:role/Auditor', 'arn:aws:iam::123456789012:user/o,neill'];
    const other = new Stack(new App({ context, outdir }), 'AdminsTest');
    const withAdmins = new StatusApi(other, 'StatusApi', {
      topology: t,
      table: new dynamodb.Table(other, 'Table', {
        partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      }),
      intakeBucket: new s3.Bucket(other, 'Intake'),
      resultsBucket: new s3.Bucket(other, 'Results'),
      queues: queuesIn(other),
      administrators: admins,
    });
    const vars = env(withAdmins);
    expect(
      loadApiConfig({
        ...vars,
        TABLE_NAME: 't',
        INTAKE_BUCKET: 'i',
        RESULTS_BUCKET: 'r',
        QUEUE_URLS: queueUrlsVariable('https://q'),
      }).ADMIN_PRINCIPALS,
    ).toEqual(admins);
    expect(
      () =>
        new StatusApi(other, 'Bad', {
          topology: t,
          table: new dynamodb.Table(other, 'T2', {
            partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
          }),
          intakeBucket: new s3.Bucket(other, 'I2'),
          resultsBucket: new s3.Bucket(other, 'R2'),
          queues,
          administrators: ['alice'],
        }),
    ).toThrow("StatusApi administrators must be IAM or STS ARNs (arn:aws:iam::<account>:…); got 'alice'");
  });

  it('grants job-item reads and updates, owner slot and caller budget updates, uploads and listing under the intake prefix, report reads — nothing else', () => {
    const allowed = statements()
      .filter((s) => s.Effect === 'Allow')
      .map((s) => ({
        actions: asArray(s.Action).sort(),
        resource: JSON.stringify(s.Resource),
        condition: s.Condition,
      }));
    const dynamo = allowed.filter((s) => s.actions.some((a) => a.startsWith('dynamodb:')));
    expect(dynamo).toEqual([
      {
        actions: [
          'dynamodb:BatchGetItem',
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:Query',
          'dynamodb:UpdateItem',
        ],
        resource: JSON.stringify({ 'Fn::GetAtt': [idOf(table), 'Arn'] }),
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['JOB#*'] } },
      },
      // GET /jobs reads the jobs-by-owner index; a cancel or pause that gives back a job's slot
      // finds its owner's next queued job on the jobs-by-status index. No other index.
      {
        actions: ['dynamodb:Query'],
        resource: JSON.stringify(
          ['byOwner', 'byStatus'].map((index) => ({
            'Fn::Join': ['', [{ 'Fn::GetAtt': [idOf(table), 'Arn'] }, `/index/${index}`]],
          })),
        ),
        condition: undefined,
      },
      // The slot goes back on the owner's item: no other item outside job partitions.
      {
        actions: ['dynamodb:UpdateItem'],
        resource: JSON.stringify({ 'Fn::GetAtt': [idOf(table), 'Arn'] }),
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['OWNER#*'] } },
      },
      // Playbooks: read by every caller, put by administrators; nothing else of the table.
      {
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query'],
        resource: JSON.stringify({ 'Fn::GetAtt': [idOf(table), 'Arn'] }),
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PLAYBOOK*'] } },
      },
      // Each caller's budget of quote and submit, on the caller's own items only.
      {
        actions: ['dynamodb:UpdateItem'],
        resource: JSON.stringify({ 'Fn::GetAtt': [idOf(table), 'Arn'] }),
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RATE#*'] } },
      },
    ]);
    const s3Statements = allowed.filter((s) => s.actions.some((a) => a.startsWith('s3:')));
    expect(s3Statements.map((s) => s.actions.join(',')).sort()).toEqual([
      's3:GetObject',
      's3:ListBucketVersions',
      's3:PutObject',
    ]);
    const put = s3Statements.find((s) => s.actions.includes('s3:PutObject'));
    expect(put?.resource).toContain(idOf(intake));
    expect(put?.resource).toContain(`/${t.buckets.intake.prefix}*`);
    // Reports and held findings; and stored documents, which resume rebuilds chunk messages from.
    const get = s3Statements.find((s) => s.actions.includes('s3:GetObject'));
    expect(get?.resource).toContain(idOf(results));
    expect(get?.resource).toContain(`/${t.buckets.results.prefix}*`);
    expect(get?.resource).toContain('/work/*');
    expect(get?.resource).not.toContain(idOf(intake));
    const list = s3Statements.find((s) => s.actions.includes('s3:ListBucketVersions'));
    expect(list?.condition).toEqual({ StringLike: { 's3:prefix': [`${t.buckets.intake.prefix}s-*`] } });
    const others = allowed.filter(
      (s) => !s.actions.some((a) => a.startsWith('dynamodb:') || a.startsWith('s3:')),
    );
    // Resume sends chunk messages to the lanes, a closed review its finalize: send only, and only there.
    const sends = others.filter((s) => s.actions.some((a) => a.startsWith('sqs:')));
    expect(
      sends
        .flatMap((s) => s.actions)
        .every(
          (a) => a.startsWith('sqs:SendMessage') || a === 'sqs:GetQueueAttributes' || a === 'sqs:GetQueueUrl',
        ),
    ).toBe(true);
    // Chunk messages to every lane (resume) and finalize (a closed review); never intake.
    for (const role of [...LANES, 'finalize'] as const) {
      expect(sends.some((s) => s.resource.includes(idOf(queues[role])))).toBe(true);
    }
    expect(sends.some((s) => s.resource.includes(idOf(queues.intake)))).toBe(false);
    expect(
      others.filter((s) => !s.actions.some((a) => a.startsWith('sqs:'))).flatMap((s) => s.actions),
    ).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
  });

  it('passes cdk-nag AwsSolutions with only the prefix-scoped S3 object patterns acknowledged', () => {
    const report = new AwsSolutionsChecks(stack.node.root as App, { verbose: true }).validateScope(api);
    const findings = report.violations.map(
      (v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
    );
    expect(findings).toEqual([]);
  });

  it('rejects out-of-range props with the allowed range and the value', () => {
    const scratch = new Stack(new App({ context, outdir }), 'Scratch');
    const base = { topology: t, table, intakeBucket: intake, resultsBucket: results, queues };
    expect(() => new StatusApi(scratch, 'A', { ...base, uploadUrlSeconds: 30 })).toThrow(
      'StatusApi uploadUrlSeconds must be an integer from 60 to 604800; got 30',
    );
    expect(() => new StatusApi(scratch, 'B', { ...base, rateLimit: 0 })).toThrow(
      'StatusApi rateLimit must be an integer from 1 to 10000; got 0',
    );
    expect(
      () => new StatusApi(scratch, 'E', { ...base, sessionNamedRoles: ['arn:aws:iam::123456789012:user/x'] }),
    ).toThrow(/^StatusApi sessionNamedRoles must be IAM role ARNs/);
    expect(
      () => new StatusApi(scratch, 'C', { ...base, callerBudgets: { quote: { burst: 0, perMinute: 5 } } }),
    ).toThrow('StatusApi callerBudgets.quote.burst must be an integer from 1 to 10000; got 0');
    expect(
      () => new StatusApi(scratch, 'D', { ...base, callerBudgets: { submit: { burst: 5, perMinute: 0 } } }),
    ).toThrow(/^StatusApi callerBudgets\.submit\.perMinute must be .*0\.1 to 60000; got 0$/);
  });
});

describe('apiUrlFromOutputs', () => {
  it('reads the ApiUrl output, and names the fix when it is missing', () => {
    expect(apiUrlFromOutputs({ ApiUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/' })).toBe(
      'https://abc.execute-api.eu-west-1.amazonaws.com/',
    );
    expect(() => apiUrlFromOutputs({})).toThrow(StackOutputsError);
    expect(() => apiUrlFromOutputs({})).toThrow(/npx cdk deploy/);
  });
});
