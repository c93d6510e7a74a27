import { describe, expect, it } from 'vitest';
import {
  isRehearsalError,
  parseResourceProviders,
  propertiesNotApplied,
  whyNotCreated,
} from '../../../localstack/rehearsal/coverage.js';
import type { RehearsalReport } from '../../../localstack/rehearsal/rehearse.js';
import { formatReport, rehearsalPassed } from '../../../localstack/rehearsal/report.js';
import {
  NOT_CREATED,
  OUTPUT_MARKER,
  referencesIn,
  resolveDeferred,
  type Template,
  transformTemplate,
  URL_SUFFIX,
} from '../../../localstack/rehearsal/template-transform.js';

const template = (): Template => ({
  Resources: {
    Queue: { Type: 'AWS::SQS::Queue', Properties: {} },
    Fn: { Type: 'AWS::Lambda::Function', Properties: { Role: { 'Fn::GetAtt': ['Role', 'Arn'] } } },
    Role: { Type: 'AWS::IAM::Role', Properties: {} },
    Mapping: {
      Type: 'AWS::Lambda::EventSourceMapping',
      Properties: { FunctionName: { Ref: 'Fn' }, EventSourceArn: { 'Fn::GetAtt': ['Queue', 'Arn'] } },
    },
    Api: { Type: 'AWS::ApiGatewayV2::Api', Properties: {} },
    Alarm: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: { Dimensions: [{ Name: 'FunctionName', Value: { Ref: 'Fn' } }] },
      DependsOn: ['Fn', 'Queue'],
    },
    Rule: {
      Type: 'AWS::Events::Rule',
      Properties: { Targets: [{ Arn: { 'Fn::GetAtt': ['Fn', 'Arn'] }, Id: 'T' }] },
      DependsOn: 'Fn',
    },
    Policy: {
      Type: 'AWS::IAM::Policy',
      Properties: {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub syntax
        Resource: { 'Fn::Sub': 'arn:aws:execute-api:${AWS::Region}:${AWS::AccountId}:${Api}/*' },
      },
    },
    Notifications: {
      Type: 'Custom::S3BucketNotifications',
      Properties: {
        ServiceToken: { 'Fn::GetAtt': ['Fn', 'Arn'] },
        BucketName: { Ref: 'Bucket' },
        NotificationConfiguration: {
          QueueConfigurations: [
            { QueueArn: { 'Fn::GetAtt': ['Queue', 'Arn'] }, Events: ['s3:ObjectCreated:*'] },
          ],
        },
      },
    },
    Bucket: { Type: 'AWS::S3::Bucket', Properties: {} },
  },
  Outputs: {
    ApiUrl: {
      Value: {
        'Fn::Join': [
          '',
          [
            'https://',
            { Ref: 'Api' },
            '.execute-api.',
            { Ref: 'AWS::Region' },
            '.',
            { Ref: 'AWS::URLSuffix' },
            '/',
          ],
        ],
      },
    },
    QueueUrl: { Value: { Ref: 'Queue' } },
  },
});

const cannot = (type: string) =>
  type === 'AWS::Lambda::Function' || type === 'AWS::ApiGatewayV2::Api' || type.startsWith('Custom::')
    ? `no ${type}`
    : undefined;

describe('the rehearsal template transform', () => {
  it('removes what cannot be created, and attachments to it, each with its reason', () => {
    const { removed, template: t } = transformTemplate(template(), cannot);
    expect(removed.map((r) => [r.logicalId, r.reason])).toEqual([
      ['Fn', 'no AWS::Lambda::Function'],
      ['Api', 'no AWS::ApiGatewayV2::Api'],
      ['Notifications', 'no Custom::S3BucketNotifications'],
      ['Mapping', 'attaches to Fn (AWS::Lambda::Function), which is not created'],
    ]);
    expect(Object.keys(t.Resources).sort()).toEqual(['Alarm', 'Bucket', 'Policy', 'Queue', 'Role', 'Rule']);
  });

  it('replaces every reference to a removed resource with a placeholder naming it, and records each', () => {
    const { template: t, replacements } = transformTemplate(template(), cannot);
    expect(t.Resources.Alarm?.Properties?.Dimensions).toEqual([
      { Name: 'FunctionName', Value: `${NOT_CREATED}Fn` },
    ]);
    expect(t.Resources.Alarm?.DependsOn).toEqual(['Queue']);
    expect(t.Resources.Rule?.DependsOn).toBeUndefined();
    expect(t.Resources.Rule?.Properties?.Targets).toEqual([
      {
        Arn: {
          'Fn::Sub': `arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:${NOT_CREATED}Fn`,
        },
        Id: 'T',
      },
    ]);
    expect(t.Resources.Policy?.Properties?.Resource).toEqual({
      'Fn::Sub': `arn:aws:execute-api:\${AWS::Region}:\${AWS::AccountId}:${NOT_CREATED}Api/*`,
    });
    expect(t.Outputs?.ApiUrl?.Value).toEqual({
      'Fn::Join': [
        '',
        ['https://', `${NOT_CREATED}Api`, '.execute-api.', { Ref: 'AWS::Region' }, '.', URL_SUFFIX, '/'],
      ],
    });
    expect(t.Outputs?.QueueUrl?.Value).toEqual({ Ref: 'Queue' });
    expect(replacements.map((r) => `${r.in}:${r.target}`)).toEqual([
      'Alarm:Fn',
      'Rule:Fn',
      'Policy:Api',
      'Outputs.ApiUrl:Api',
      'Outputs.ApiUrl:AWS::URLSuffix',
    ]);
  });

  it('keeps a removed S3 notification resource to apply, its values resolved through new outputs', () => {
    const { template: t, deferred } = transformTemplate(template(), cannot);
    expect(deferred).toHaveLength(1);
    const props = deferred[0]?.properties as { BucketName: Record<string, string> };
    const key = props.BucketName[OUTPUT_MARKER] ?? '';
    expect(t.Outputs?.[key]?.Value).toEqual({ Ref: 'Bucket' });
    const outputs = Object.fromEntries(
      Object.entries(t.Outputs ?? {}).map(([k, o]) => [k, JSON.stringify(o.Value)]),
    );
    expect(resolveDeferred(deferred[0]?.properties, outputs)).toEqual({
      ServiceToken: JSON.stringify({
        'Fn::Sub': `arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:${NOT_CREATED}Fn`,
      }),
      BucketName: '{"Ref":"Bucket"}',
      NotificationConfiguration: {
        QueueConfigurations: [{ QueueArn: '{"Fn::GetAtt":["Queue","Arn"]}', Events: ['s3:ObjectCreated:*'] }],
      },
    });
    const missing = (() => {
      try {
        return resolveDeferred(deferred[0]?.properties, {});
      } catch (error) {
        return error;
      }
    })();
    expect(isRehearsalError(missing)).toBe(true);
  });

  it('finds references in Ref, Fn::GetAtt (both forms) and Fn::Sub', () => {
    expect([
      ...referencesIn({
        a: { Ref: 'A' },
        b: { 'Fn::GetAtt': 'B.Arn' },
        // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub syntax
        c: { 'Fn::Sub': ['${C.Arn}/${x}', { x: { Ref: 'D' } }] },
      }),
    ]).toEqual(['A', 'B', 'C', 'x', 'D']);
  });
});

describe("LocalStack's coverage", () => {
  const providers = parseResourceProviders(
    '[console_scripts]\nlocalstack = x\n\n[localstack.cloudformation.resource_providers]\naws::sqs::queue = a:B\nAWS::S3::Bucket = c:D\n\n[other]\naws::ecs::service = e:F\n',
  );

  it('reads the resource types the installed LocalStack has a CloudFormation provider for', () => {
    expect([...providers]).toEqual(['aws::sqs::queue', 'aws::s3::bucket']);
  });

  it('says why a type is not created: no provider, a custom resource, or a Lambda function in host mode', () => {
    expect(whyNotCreated('AWS::SQS::Queue', providers)).toBeUndefined();
    expect(whyNotCreated('AWS::ECS::Service', providers)).toMatch(/no CloudFormation resource provider/);
    expect(whyNotCreated('Custom::VpcRestrictDefaultSG', providers)).toMatch(
      /custom resources run only in LocalStack Pro/,
    );
    expect(whyNotCreated('AWS::Lambda::Function', new Set(['aws::lambda::function']))).toMatch(/Docker/);
  });

  it('names the properties a provider creates a resource without', () => {
    expect(
      propertiesNotApplied('AWS::DynamoDB::Table', {
        TableName: 't',
        DeletionProtectionEnabled: true,
        PointInTimeRecoverySpecification: {},
      }),
    ).toEqual(['DeletionProtectionEnabled', 'PointInTimeRecoverySpecification']);
    expect(propertiesNotApplied('AWS::SQS::Queue', { Anything: 1 })).toEqual([]);
  });
});

describe('the rehearsal report', () => {
  const report: RehearsalReport = {
    stackName: 's',
    localStackVersion: '2026.3.0',
    templateResources: 3,
    templateTypes: { 'AWS::SQS::Queue': 2, 'AWS::ECS::Service': 1 },
    removed: [{ logicalId: 'Svc', type: 'AWS::ECS::Service', reason: 'no provider' }],
    replacements: [],
    published: [],
    notPublished: [{ id: 'img', name: 'Image', reason: 'needs Docker' }],
    applied: [],
    created: { 'AWS::SQS::Queue': 2 },
    checks: [{ what: 'queue q', ok: true, detail: 'DLQ after 3 receives' }],
    cli: [{ command: 'clause-review doctor', exitCode: 0, output: 'every model can be called' }],
    retained: [{ logicalId: 'Q', type: 'AWS::SQS::Queue', physicalId: 'q', policy: 'Delete', exists: false }],
    seconds: { synth: 1, deploy: 2, teardown: 3, total: 6 },
  };

  const queue = {
    logicalId: 'Q',
    type: 'AWS::SQS::Queue',
    physicalId: 'q',
    policy: 'Delete',
    exists: false,
  } as const;

  it('passes only when every check passed, every command exited 0 and teardown kept exactly what it retains', () => {
    expect(rehearsalPassed(report)).toBe(true);
    expect(rehearsalPassed({ ...report, checks: [{ what: 'x', ok: false, detail: '' }] })).toBe(false);
    expect(rehearsalPassed({ ...report, cli: [{ command: 'c', exitCode: 1, output: '' }] })).toBe(false);
    expect(rehearsalPassed({ ...report, retained: [{ ...queue, exists: true }] })).toBe(false);
    expect(rehearsalPassed({ ...report, retained: [{ ...queue, policy: 'Retain', exists: false }] })).toBe(
      false,
    );
  });

  it('prints what was created, what was not and why, the checks, the CLI and the teardown', () => {
    const text = formatReport(report).join('\n');
    expect(text).toMatch(/2 of 3 template resources created/);
    expect(text).toMatch(/no provider:\n {5}Svc \(AWS::ECS::Service\)/);
    expect(text).toMatch(/NOT published: Image: needs Docker/);
    expect(text).toMatch(/ok {3}queue q: DLQ after 3 receives/);
    expect(text).toMatch(/\$ clause-review doctor {3}\(exit 0\)\n {5}every model can be called/);
    expect(text).toMatch(/deleted AWS::SQS::Queue q: gone/);
    expect(text).toMatch(/== rehearsal passed$/);
  });
});
