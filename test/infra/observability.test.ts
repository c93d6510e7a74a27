/**
 * The Observability construct, synthesized on its own (real WorkQueues, inline-code functions,
 * nothing bundled): alarm metrics, thresholds, periods and SNS actions, and the dashboard.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnElement, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC, METRICS_NAMESPACE, samplesOf } from '../../lambdas/core/metrics/index.js';
import { Observability, type ObservabilityProps } from '../../lib/observability.js';
import { PROJECT_ROOT } from '../../lib/project-root.js';
import { QUEUE_ROLES, topology } from '../../lib/topology.js';
import { WorkQueues } from '../../lib/work-queues.js';

type Resource = { Type: string; Properties: Record<string, unknown> };

const { context } = JSON.parse(readFileSync(`${PROJECT_ROOT}/cdk.json`, 'utf8')) as { context: object };
const outdir = mkdtempSync(join(tmpdir(), 'clause-review-observability-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const MODELS = ['anthropic.claude-3-haiku-20240307-v1:0', 'amazon.nova-lite-v1:0'];
const t = topology({ prefix: 'cr-obs' });

function build(overrides: Partial<ObservabilityProps> = {}) {
  const stack = new Stack(new App({ context, outdir }), 'Obs');
  const queues = new WorkQueues(stack, 'Queues', { settings: t.queues });
  const fn = (id: string) =>
    new lambda.Function(stack, id, {
      runtime: lambda.Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('export const handler = async () => {};'),
    });
  const topic = new sns.Topic(stack, 'Alerts');
  const functions = { intake: fn('Intake'), worker: fn('Worker') };
  const observability = new Observability(stack, 'Observability', {
    topology: t,
    queues: queues.queues,
    deadLetterQueues: queues.deadLetterQueues,
    functions,
    topic,
    modelIds: MODELS,
    ...overrides,
  });
  return { stack, queues, functions, topic, observability };
}

const idOf = (c: IConstruct) => Stack.of(c).getLogicalId(c.node.defaultChild as CfnElement);

let built: ReturnType<typeof build>;
let alarms: Resource['Properties'][];
let template: Template;

beforeAll(() => {
  built = build();
  template = Template.fromStack(built.stack);
  alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map(
    (r) => (r as Resource).Properties,
  );
});

/** The alarm whose metric has `dimension` = Ref/GetAtt of `construct`. */
function alarmOn(metricName: string, construct: IConstruct) {
  const id = idOf(construct);
  return alarms.filter(
    (a) => a.MetricName === metricName && JSON.stringify(a.Dimensions ?? []).includes(`"${id}"`),
  );
}

describe('Observability alarms', () => {
  it('raise a DLQ alarm at 3 or more messages held within 5 minutes, to the alerts topic', () => {
    for (const role of QUEUE_ROLES) {
      const found = alarmOn('ApproximateNumberOfMessagesVisible', built.queues.deadLetterQueues[role]);
      expect(found, role).toHaveLength(1);
      expect(found[0]).toMatchObject({
        AlarmName: `${t.queues[role].dlqName}-holding-3`,
        Namespace: 'AWS/SQS',
        Statistic: 'Maximum',
        Period: 300,
        EvaluationPeriods: 1,
        Threshold: 3,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: idOf(built.topic) }],
      });
    }
  });

  it("raise an alarm when a work queue's oldest message is older than its topology threshold", () => {
    for (const role of QUEUE_ROLES) {
      const found = alarmOn('ApproximateAgeOfOldestMessage', built.queues.queues[role]);
      expect(found, role).toHaveLength(1);
      expect(found[0]).toMatchObject({
        AlarmName: `${t.queues[role].name}-oldest-message-age`,
        Namespace: 'AWS/SQS',
        Statistic: 'Maximum',
        Period: 300,
        EvaluationPeriods: 1,
        Threshold: t.queues[role].oldestMessageAlarmSeconds,
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [{ Ref: idOf(built.topic) }],
      });
    }
    expect(t.queues.realtime.oldestMessageAlarmSeconds).toBe(1800);
    // No alarm on the age of dead letters: they wait for triage by design.
    for (const role of QUEUE_ROLES) {
      expect(alarmOn('ApproximateAgeOfOldestMessage', built.queues.deadLetterQueues[role])).toHaveLength(0);
    }
  });

  it('raise an alarm on any error of each function', () => {
    for (const [name, fn] of Object.entries(built.functions)) {
      const found = alarmOn('Errors', fn);
      expect(found, name).toHaveLength(1);
      expect(found[0]).toMatchObject({
        AlarmName: `cr-obs-${name}-errors`,
        Namespace: 'AWS/Lambda',
        Statistic: 'Sum',
        Period: 300,
        EvaluationPeriods: 1,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: idOf(built.topic) }],
      });
    }
    // 4 DLQ bursts + 4 queue ages + 2 functions + overdue reviews + money books, and nothing else.
    expect(alarms).toHaveLength(12);
    expect(
      alarms.every((a) => JSON.stringify(a.AlarmActions) === JSON.stringify([{ Ref: idOf(built.topic) }])),
    ).toBe(true);
  });

  it('raise an alarm when the sweeper finds a review past its deadline, to the alerts topic', () => {
    const found = alarms.filter((a) => a.MetricName === METRIC.reviewsOverdue);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      AlarmName: 'cr-obs-reviews-overdue',
      Namespace: METRICS_NAMESPACE,
      Statistic: 'Maximum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: idOf(built.topic) }],
    });
    expect(found[0]?.Dimensions).toBeUndefined();
  });

  it('raise an alarm on the first breach of a chunk’s money books a worker reports, to the alerts topic', () => {
    const found = alarms.filter((a) => a.MetricName === METRIC.booksBreaches);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      AlarmName: 'cr-obs-books-breaches',
      Namespace: METRICS_NAMESPACE,
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: idOf(built.topic) }],
    });
    // The workers send the breach count with no dimension: the alarm reads that one series.
    expect(found[0]?.Dimensions).toBeUndefined();
    expect(samplesOf({ kind: 'books', breach: 'overdraw' })).toEqual([
      { name: METRIC.booksBreaches, unit: 'Count', value: 1, dimensions: {} },
    ]);
  });

  it('take the DLQ threshold and window from props', () => {
    const { stack, queues } = build({ deadLetterThreshold: 5, deadLetterPeriod: Duration.minutes(10) });
    const dlq = idOf(queues.deadLetterQueues.batch);
    const found = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm'))
      .map((r) => (r as Resource).Properties)
      .filter((a) => JSON.stringify(a.Dimensions ?? []).includes(`"${dlq}"`));
    expect(found).toEqual([
      expect.objectContaining({ Threshold: 5, Period: 600, AlarmName: 'cr-obs-batch-dlq-holding-5' }),
    ]);
  });

  it('reject props out of range, naming the value given', () => {
    expect(() => build({ functionErrorThreshold: 0 })).toThrow(
      'Observability functionErrorThreshold must be an integer of at least 1; got 0',
    );
    expect(() => build({ modelIds: [] })).toThrow(
      'Observability modelIds must name at least one model; got none',
    );
    expect(() => build({ deadLetterPeriod: Duration.seconds(90) })).toThrow(
      'DeadLetterAlarms period must be an integer from 1 to 60 minutes; got 1.5 minutes',
    );
  });
});

describe('Observability dashboard', () => {
  it('is named after the prefix and graphs the worker metrics per model, queues, DLQs and functions', () => {
    const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard')).map(
      (r) => (r as Resource).Properties,
    );
    expect(dashboards).toHaveLength(1);
    expect(dashboards[0]?.DashboardName).toBe('cr-obs-pipeline');
    const body = JSON.stringify(dashboards[0]?.DashboardBody);
    for (const name of Object.values(METRIC)) expect(body, name).toContain(`\\"${name}\\"`);
    for (const model of MODELS) expect(body).toContain(model);
    for (const metric of [
      'ApproximateNumberOfMessagesVisible',
      'ApproximateAgeOfOldestMessage',
      'Errors',
      'Duration',
    ]) {
      expect(body).toContain(`\\"${metric}\\"`);
    }
    expect(body).toContain('\\"stat\\":\\"p99\\"');
    expect(body).toContain('ClauseReview');
  });
});
