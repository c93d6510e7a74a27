/**
 * The deploy rehearsal (`npm run deploy:local`): the real stack synthesized, its assets
 * published, deployed through CloudFormation into LocalStack in host mode, checked against its
 * template, read by the CLI through its outputs, and torn down. It starts its own LocalStack
 * with CloudFormation, so it is part of the LocalStack suite (`npm run test:localstack`) only;
 * vitest.config.ts leaves it out of `npm test`.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';
import { type RehearsalReport, rehearse } from '../../localstack/rehearsal/rehearse.js';
import { formatReport, rehearsalPassed } from '../../localstack/rehearsal/report.js';

const lines: string[] = [];
const report: RehearsalReport = await rehearse({
  context: {
    alertEmails: 'ops@example.com,oncall@example.com',
    administrators: 'arn:aws:iam::000000000000:role/Admin',
  },
  sampleFile: join(
    PROJECT_ROOT,
    'test/fixtures/contracts/BELLICUMPHARMACEUTICALS_INC_05_07_2019-EX-10_1-Supply_Agreement.txt',
  ),
  log: (line) => lines.push(line),
});
const text = formatReport(report).join('\n');

describe('the deploy rehearsal on LocalStack', () => {
  it('passes: every check, both CLI commands and the teardown', () => {
    expect(rehearsalPassed(report), text).toBe(true);
  });

  it('accounts for every resource of the template: created, or removed by name with a reason', () => {
    const removedByType: Record<string, number> = {};
    for (const r of report.removed) removedByType[r.type] = (removedByType[r.type] ?? 0) + 1;
    for (const [type, n] of Object.entries(report.templateTypes)) {
      expect((report.created[type] ?? 0) + (removedByType[type] ?? 0), `${type}\n${text}`).toBe(n);
    }
    for (const r of report.removed) expect(r.reason, r.logicalId).not.toBe('');
    const removedTypes = new Set(report.removed.map((r) => r.type));
    for (const type of [
      'AWS::ECS::Service',
      'AWS::ApiGatewayV2::Api',
      'AWS::Lambda::Function',
      'Custom::S3BucketNotifications',
    ]) {
      expect(removedTypes, type).toContain(type);
    }
    expect(report.created['AWS::SQS::Queue']).toBeGreaterThan(0);
    expect(report.created['AWS::DynamoDB::Table']).toBe(1);
  });

  it('checks the queues, the table, the bucket notification, the alarms, the schedule and the alert subscriptions', () => {
    const checked = report.checks.map((c) => c.what);
    expect(checked.filter((w) => w.startsWith('queue ')).length).toBe(report.created['AWS::SQS::Queue']);
    expect(
      report.checks.find((c) => c.what.startsWith('queue ') && c.detail.includes('redrive-allow')),
    ).toBeDefined();
    expect(report.checks.find((c) => c.what.startsWith('table '))?.detail).toMatch(
      /indexes byStatus, byOwner, TTL on expiresAt/,
    );
    expect(
      report.checks.some((c) => c.what.startsWith('bucket ') && /notifies .*intake/.test(c.detail)),
    ).toBe(true);
    expect(report.checks.find((c) => c.what.endsWith(' alarms'))?.what).toBe(
      `${report.created['AWS::CloudWatch::Alarm']} alarms`,
    );
    expect(
      report.checks.filter((c) => c.what.startsWith('schedule ')).map((c) => c.detail.split(' ')[0]),
    ).toEqual(expect.arrayContaining(['rate(1', 'rate(15']));
    expect(report.checks.find((c) => c.what.includes('subscriptions'))?.detail).toMatch(
      /email: oncall@example.com, ops@example.com /,
    );
  });

  it("lets the CLI read the stack's CloudFormation outputs: doctor --stack and submit --dry-run", () => {
    const [doctor, submit] = report.cli;
    expect(doctor?.output, text).toMatch(/models of stack 'clause-review'/);
    expect(doctor?.exitCode).toBe(0);
    expect(submit?.exitCode, text).toBe(0);
    // The API is not created: the URL names its placeholder (LocalStack rewrites the region's
    // amazonaws.com host in outputs to its own address, so only the start is fixed).
    expect(submit?.output).toMatch(
      /would POST https:\/\/rehearsal-not-created-statusapi\w+\.execute-api\.\S+\/jobs /,
    );
    expect(submit?.output).toMatch(/signed: AWS4-HMAC-SHA256 Credential=test\//);
    expect(submit?.output).toMatch(/s3:\/\/clause-review-intake-000000000000-us-east-1\/incoming\//);
  });

  it('publishes the Lambda bundles, names the container image it cannot publish, and keeps what the stack retains', () => {
    expect(report.published.filter((a) => a.key.endsWith('.zip')).length).toBeGreaterThan(0);
    expect(report.notPublished.map((a) => a.reason).join('\n')).toMatch(/needs Docker/);
    const kept = report.retained.filter((r) => r.policy === 'Retain');
    expect(kept.find((r) => r.type === 'AWS::DynamoDB::Table')?.exists).toBe(true);
    expect(kept.filter((r) => r.type === 'AWS::S3::Bucket').every((r) => r.exists)).toBe(true);
    const queues = report.retained.filter((r) => r.type === 'AWS::SQS::Queue');
    expect(queues.length).toBeGreaterThan(0);
    expect(
      queues.every((r) => r.exists === false),
      text,
    ).toBe(true);
  });
});
