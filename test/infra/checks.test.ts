/**
 * The checks every construct prop goes through (lib/checks.ts): a value out of range, a name
 * that does not match or a file that is not there is refused with a ValidationError scoped to
 * the construct, and a value that is still a token is left to CloudFormation, as aws-cdk-lib's
 * own constructs do. Nothing here bundles or synthesizes more than a few plain resources.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, CfnParameter, Lazy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { afterAll, describe, expect, it } from 'vitest';
import { checkFileExists, checkPattern, checkProjectRoot, checkRange } from '../../lib/checks.js';
import { DeadLetterAlarms } from '../../lib/dead-letter-alarms.js';
import { DocumentBuckets } from '../../lib/document-buckets.js';
import { isValidationError, UnscopedValidationError, ValidationError } from '../../lib/errors.js';
import { PROJECT_ROOT } from '../../lib/project-root.js';
import { QUEUE_ROLES, type QueueRole, topology } from '../../lib/topology.js';
import { WorkQueues } from '../../lib/work-queues.js';

/** The feature flags of cdk.json, which `cdk synth` applies. */
const { context } = JSON.parse(readFileSync(`${PROJECT_ROOT}/cdk.json`, 'utf8')) as { context: object };
const outdir = mkdtempSync(join(tmpdir(), 'clause-review-checks-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));
const stack = () => new Stack(new App({ context, outdir }), 'Test');
/** A construct to scope errors to, at path `Test/Widget`. */
const widget = () => new Construct(stack(), 'Widget');

/** The error `fn` throws, failing the test when it throws none. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('checkRange', () => {
  it('returns a value inside the range, both bounds included', () => {
    const scope = widget();
    expect(checkRange(scope, 'Widget size', 1, { min: 1, max: 10 })).toBe(1);
    expect(checkRange(scope, 'Widget size', 10, { min: 1, max: 10 })).toBe(10);
    expect(checkRange(scope, 'Widget size', 1e9, { min: 1 })).toBe(1e9);
  });

  it('refuses a literal out of range with a ValidationError naming the property, the range and the value, scoped to the construct', () => {
    const scope = widget();
    const error = thrown(() => checkRange(scope, 'Widget size', 11, { min: 1, max: 10 }));
    expect(isValidationError(error)).toBe(true);
    expect(error).toBeInstanceOf(ValidationError);
    const e = error as ValidationError;
    expect(e.message).toBe('Widget size must be an integer from 1 to 10; got 11');
    expect(e.name).toBe('ValidationError');
    expect(e.id).toBe('OutOfRange');
    expect(e.type).toBe('validation');
    expect(e.constructPath).toBe('Test/Widget');
  });

  it('refuses fractions, NaN and infinities where an integer is asked, and takes fractions when told to', () => {
    const scope = widget();
    expect(() => checkRange(scope, 'Widget size', 1.5, { min: 1, max: 10 })).toThrow(
      'Widget size must be an integer from 1 to 10; got 1.5',
    );
    expect(() => checkRange(scope, 'Widget size', Number.NaN, { min: 1, max: 10 })).toThrow(/got NaN/);
    expect(() => checkRange(scope, 'Widget size', Number.POSITIVE_INFINITY, { min: 1 })).toThrow(
      /got Infinity/,
    );
    expect(checkRange(scope, 'Widget ratio', 0.25, { min: 0, max: 1, integer: false })).toBe(0.25);
    expect(() => checkRange(scope, 'Widget ratio', 1.5, { min: 0, max: 1, integer: false })).toThrow(
      'Widget ratio must be a number from 0 to 1; got 1.5',
    );
  });

  it('words an open upper bound, a unit and where the bounds come from', () => {
    const scope = widget();
    expect(() => checkRange(scope, 'Widget threshold', 0, { min: 1 })).toThrow(
      'Widget threshold must be an integer of at least 1; got 0',
    );
    expect(() =>
      checkRange(scope, 'Widget timeout', 901, { min: 1, max: 900, unit: 's', why: "Lambda's limit" }),
    ).toThrow("Widget timeout must be an integer from 1 to 900 s (Lambda's limit); got 901 s");
  });

  it('passes a Lazy.number through unchecked, leaving its value to deploy time', () => {
    const s = stack();
    const scope = new Construct(s, 'Widget');
    let produced = 0;
    const lazy = Lazy.number({
      produce: () => {
        produced += 1;
        return 0;
      },
    });
    expect(checkRange(scope, 'Widget size', lazy, { min: 1, max: 10 })).toBe(lazy);
    expect(produced).toBe(0);
    // The value the token stands for is out of range: the check did not look at it.
    expect(s.resolve(lazy)).toBe(0);
  });

  it("passes a CloudFormation parameter's valueAsNumber through unchecked", () => {
    const s = stack();
    const size = new CfnParameter(s, 'Size', { type: 'Number' }).valueAsNumber;
    expect(checkRange(new Construct(s, 'Widget'), 'Widget size', size, { min: 1, max: 10 })).toBe(size);
    expect(s.resolve(size)).toEqual({ Ref: 'Size' });
  });

  it('is an UnscopedValidationError when no construct is at hand', () => {
    const error = thrown(() => checkRange(undefined, '-c retentionDays', 0, { min: 1, max: 3650 }));
    expect(error).toBeInstanceOf(UnscopedValidationError);
    expect(isValidationError(error)).toBe(true);
    expect((error as ValidationError).constructPath).toBeUndefined();
    expect((error as Error).message).toBe('-c retentionDays must be an integer from 1 to 3650; got 0');
  });
});

describe('checkPattern, checkFileExists and checkProjectRoot', () => {
  it('refuse a name that does not match, naming the rule and the value, and leave a token to deploy time', () => {
    const s = stack();
    const scope = new Construct(s, 'Widget');
    const error = thrown(() => checkPattern(scope, 'Widget name', 'a b', /^[a-z]+$/, 'be a-z only'));
    expect(isValidationError(error)).toBe(true);
    expect((error as ValidationError).message).toBe("Widget name must be a-z only; got 'a b'");
    expect((error as ValidationError).constructPath).toBe('Test/Widget');
    const name = new CfnParameter(s, 'Name').valueAsString;
    expect(checkPattern(scope, 'Widget name', name, /^[a-z]+$/, 'be a-z only')).toBe(name);
  });

  it('refuse a file or a lock file that is not there, naming the path', () => {
    const scope = widget();
    const missing = join(outdir, 'nope', 'handler.ts');
    const error = thrown(() =>
      checkFileExists(scope, 'Widget entry', missing, 'name an existing handler file'),
    );
    expect((error as ValidationError).message).toBe(
      `Widget entry must name an existing handler file; got '${missing}'`,
    );
    expect((error as ValidationError).id).toBe('MissingFile');
    expect(checkFileExists(scope, 'Widget entry', join(PROJECT_ROOT, 'package.json'), 'exist')).toBe(
      join(PROJECT_ROOT, 'package.json'),
    );
    expect(() => checkProjectRoot(scope, 'Widget', outdir)).toThrow(
      `Widget projectRoot must hold package-lock.json; got '${outdir}'`,
    );
    expect(checkProjectRoot(scope, 'Widget', PROJECT_ROOT)).toBe(PROJECT_ROOT);
  });
});

describe('constructs given tokens', () => {
  const dlqsOf = (s: Stack) =>
    Object.fromEntries(QUEUE_ROLES.map((r) => [r, new sqs.Queue(s, `${r}Dlq`)])) as Record<
      QueueRole,
      sqs.Queue
    >;

  it('DeadLetterAlarms takes its threshold from a parameter and alarms on it', () => {
    const s = stack();
    const threshold = new CfnParameter(s, 'Threshold', { type: 'Number' }).valueAsNumber;
    new DeadLetterAlarms(s, 'D', {
      deadLetterQueues: dlqsOf(s),
      settings: topology().queues,
      topic: new sns.Topic(s, 'T'),
      threshold,
    });
    const alarms = Template.fromStack(s).findResources('AWS::CloudWatch::Alarm');
    const thresholds = Object.values(alarms).map(
      (a) => (a as { Properties: { Threshold: unknown } }).Properties.Threshold,
    );
    expect(thresholds).toEqual(QUEUE_ROLES.map(() => ({ Ref: 'Threshold' })));
  });

  it('DeadLetterAlarms refuses a literal threshold out of range, scoped to itself', () => {
    const s = stack();
    const error = thrown(
      () =>
        new DeadLetterAlarms(s, 'D', {
          deadLetterQueues: dlqsOf(s),
          settings: topology().queues,
          topic: new sns.Topic(s, 'T'),
          threshold: 0,
        }),
    );
    expect(isValidationError(error)).toBe(true);
    expect((error as ValidationError).message).toBe(
      'DeadLetterAlarms threshold must be an integer of at least 1; got 0',
    );
    expect((error as ValidationError).constructPath).toBe('Test/D');
  });

  it('WorkQueues takes a visibility timeout and a receive count from parameters', () => {
    const s = stack();
    const visibility = new CfnParameter(s, 'Visibility', { type: 'Number' }).valueAsNumber;
    const receives = Lazy.number({ produce: () => 7 });
    const t = topology();
    new WorkQueues(s, 'Q', {
      settings: {
        ...t.queues,
        batch: { ...t.queues.batch, visibilityTimeoutSeconds: visibility, maxReceiveCount: receives },
      },
    });
    Template.fromStack(s).hasResourceProperties('AWS::SQS::Queue', {
      QueueName: t.queues.batch.name,
      VisibilityTimeout: { Ref: 'Visibility' },
      RedrivePolicy: { maxReceiveCount: 7 },
    });
  });

  it('DocumentBuckets takes retention days from a parameter, and still refuses a literal out of range', () => {
    const s = stack();
    const days = new CfnParameter(s, 'RetentionDays', { type: 'Number' }).valueAsNumber;
    new DocumentBuckets(s, 'B', { settings: topology().buckets, retentionDays: days });
    Template.fromStack(s).hasResourceProperties('AWS::S3::Bucket', {
      BucketName: topology().buckets.results.name,
      LifecycleConfiguration: { Rules: [{ ExpirationInDays: { Ref: 'RetentionDays' }, Status: 'Enabled' }] },
    });
    const error = thrown(
      () => new DocumentBuckets(stack(), 'B', { settings: topology().buckets, retentionDays: 0 }),
    );
    expect((error as ValidationError).message).toBe(
      'DocumentBuckets retentionDays must be an integer from 1 to 3650; got 0',
    );
    expect((error as ValidationError).constructPath).toBe('Test/B');
  });
});
