/**
 * Up-front validation of the constructs' props, and the stack-outputs reader. These fail before
 * anything is bundled, so no test here runs esbuild or stages assets.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { loadConfig } from '../../lambdas/shared/config.js';
import { AlertsTopic } from '../../lib/alerts-topic.js';
import { BatchLaneService } from '../../lib/batch-lane-service.js';
import { ClauseReviewStack } from '../../lib/clause-review-stack.js';
import { DeadLetterAlarms } from '../../lib/dead-letter-alarms.js';
import { DocumentBuckets } from '../../lib/document-buckets.js';
import { foundationModelArn, invokeResourcesOf, resolveModelIds } from '../../lib/model-access.js';
import { PipelineFunctions } from '../../lib/pipeline-functions.js';
import { PROJECT_ROOT } from '../../lib/project-root.js';
import { runtimeEnvironment, validateTuning } from '../../lib/runtime-environment.js';
import { resourcesFromOutputs, STACK_OUTPUTS, StackOutputsError } from '../../lib/stack-outputs.js';
import { StateTable } from '../../lib/state-table.js';
import { QUEUE_ROLES, type QueueRole, TopologyError, topology } from '../../lib/topology.js';
import { WorkQueues } from '../../lib/work-queues.js';
import { queueUrlsVariable } from '../helpers/deployed-env.js';

/** The feature flags of cdk.json, which `cdk synth` applies. */
const { context } = JSON.parse(readFileSync(`${PROJECT_ROOT}/cdk.json`, 'utf8')) as { context: object };
/** Nothing here synthesizes; one scratch directory serves every app instead of one each. */
const outdir = mkdtempSync(join(tmpdir(), 'clause-review-infra-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));
const app = () => new App({ context, outdir });
const stack = () => new Stack(app(), 'Test');

/** The resources PipelineFunctions and BatchLaneService take, without bundling anything. */
function pipelineResources(scope: Stack) {
  const t = topology();
  const queues = Object.fromEntries(QUEUE_ROLES.map((r) => [r, new sqs.Queue(scope, `${r}Queue`)])) as Record<
    QueueRole,
    sqs.Queue
  >;
  return {
    topology: t,
    table: new dynamodb.Table(scope, 'Table', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
    }),
    intakeBucket: new s3.Bucket(scope, 'Intake'),
    resultsBucket: new s3.Bucket(scope, 'Results'),
    queues,
    alertsTopic: new sns.Topic(scope, 'Alerts'),
  };
}

describe('ClauseReviewStack props', () => {
  it('rejects a prefix topology does not allow, naming the rule and the value', () => {
    expect(() => new ClauseReviewStack(app(), 'S', { prefix: 'Bad_Prefix' })).toThrow(TopologyError);
    expect(() => new ClauseReviewStack(app(), 'S', { prefix: 'Bad_Prefix' })).toThrow(
      /3-24 characters.*got 'Bad_Prefix'/,
    );
  });

  it("scopes a topology option's error to the stack, keeping topology's own as the cause", () => {
    let caught: unknown;
    try {
      new ClauseReviewStack(app(), 'S', { chunkMaxReceiveCount: 0 });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TopologyError);
    expect((caught as TopologyError).constructPath).toBe('S');
    expect((caught as TopologyError).message).toBe(
      'chunkMaxReceiveCount must be an integer from 1 to 1000; got 0',
    );
    expect((caught as TopologyError).cause).toBeInstanceOf(TopologyError);
    expect(((caught as TopologyError).cause as TopologyError).constructPath).toBeUndefined();
  });

  it('rejects an alert email that is not an address, scoped to the stack', () => {
    expect(() => new ClauseReviewStack(app(), 'S', { alertEmails: ['ops'] })).toThrow(
      "alertEmails must hold email addresses like ops@example.com; got 'ops'",
    );
    expect(() => new ClauseReviewStack(app(), 'S', { alertEmails: ['ops'] })).toThrow(
      expect.objectContaining({ name: 'ValidationError', constructPath: 'S' }),
    );
  });
});

describe('WorkQueues', () => {
  it('rejects settings outside the limits of SQS', () => {
    const t = topology();
    const settings = { ...t.queues, batch: { ...t.queues.batch, visibilityTimeoutSeconds: 50_000 } };
    expect(() => new WorkQueues(stack(), 'Q', { settings })).toThrow(
      "WorkQueues 'batch' visibilityTimeoutSeconds must be an integer from 0 to 43200; got 50000",
    );
    const receives = { ...t.queues, intake: { ...t.queues.intake, maxReceiveCount: 0 } };
    expect(() => new WorkQueues(stack(), 'Q', { settings: receives })).toThrow(
      /maxReceiveCount.*1 to 1000; got 0/,
    );
  });
});

describe('StateTable', () => {
  it('rejects a table name DynamoDB does not allow', () => {
    const settings = { ...topology().table, name: 'x' };
    expect(() => new StateTable(stack(), 'T', { settings })).toThrow(/3-255 characters.*got 'x'/);
  });
});

describe('DocumentBuckets', () => {
  it('needs bucket-policy log delivery, since the buckets disable ACLs', () => {
    const bare = new Stack(new App({ outdir }), 'Bare');
    expect(() => new DocumentBuckets(bare, 'B', { settings: topology().buckets })).toThrow(
      "DocumentBuckets needs the feature flag '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy' set to true",
    );
  });

  it('rejects a literal bucket name S3 does not allow', () => {
    const t = topology();
    const settings = { ...t.buckets, results: { ...t.buckets.results, name: 'Results_Bucket' } };
    expect(() => new DocumentBuckets(stack(), 'B', { settings })).toThrow(
      "DocumentBuckets results bucket name must be 3-63 characters of a-z, 0-9, '.' and '-'; got 'Results_Bucket'",
    );
  });

  it('rejects a notification event that is not an S3 event type', () => {
    const s = stack();
    const t = topology();
    expect(
      () =>
        new DocumentBuckets(s, 'B', {
          settings: t.buckets,
          intakeQueue: new sqs.Queue(s, 'Q'),
          notification: { events: ['s3:ObjectMade'], prefix: 'incoming/' },
        }),
    ).toThrow(/S3 event type such as 's3:ObjectCreated:\*'; got 's3:ObjectMade'/);
  });
});

describe('AlertsTopic and DeadLetterAlarms', () => {
  it('reject a topic name SNS does not allow', () => {
    expect(() => new AlertsTopic(stack(), 'A', { topicName: 'alerts topic' })).toThrow(/got 'alerts topic'/);
  });

  it('reject a threshold below one message', () => {
    const s = stack();
    const t = topology();
    const dlqs = Object.fromEntries(QUEUE_ROLES.map((r) => [r, new sqs.Queue(s, r)])) as Record<
      QueueRole,
      sqs.Queue
    >;
    expect(
      () =>
        new DeadLetterAlarms(s, 'D', {
          deadLetterQueues: dlqs,
          settings: t.queues,
          topic: new sns.Topic(s, 'T'),
          threshold: 0,
        }),
    ).toThrow('DeadLetterAlarms threshold must be an integer of at least 1; got 0');
  });
});

describe('model ids', () => {
  it('default to current Claude models through US cross-region inference profiles', () => {
    expect(resolveModelIds()).toEqual({
      primary: 'us.anthropic.claude-haiku-5-5',
      fallback: 'us.anthropic.claude-sonnet-4-6',
      perAnalyst: {},
    });
  });

  it('reject a model without a price at synth time, naming it', () => {
    expect(() => resolveModelIds({ fallback: 'meta.llama3-8b-instruct-v1:0' })).toThrow(
      /modelIds: model 'meta.llama3-8b-instruct-v1:0' has no entry in the price table/,
    );
    expect(() => resolveModelIds({ primary: 'anthropic.claude-3-haiku-20240307-v1:0' })).toThrow(
      /'anthropic.claude-3-haiku-20240307-v1:0' has no entry in the price table/,
    );
  });

  it('reject an override of an analyst that does not exist', () => {
    expect(() => resolveModelIds({ perAnalyst: { 'tax-counsel': { primary: PRIMARY_MODEL_ID } } })).toThrow(
      /unknown analyst 'tax-counsel'/,
    );
  });

  it('grant a cross-region profile and its foundation model in every region it routes to, nothing more', () => {
    const s = new Stack(app(), 'S', { env: { account: '123456789012', region: 'eu-west-1' } });
    const arns = invokeResourcesOf(s, 'eu.anthropic.claude-haiku-4-5-20251001-v1:0').map((a) => s.resolve(a));
    expect(arns).toEqual([
      'arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-haiku-4-5-20251001-v1:0',
      ...['eu-central-1', 'eu-north-1', 'eu-south-1', 'eu-south-2', 'eu-west-1', 'eu-west-3'].map(
        (r) => `arn:aws:bedrock:${r}::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0`,
      ),
    ]);
  });

  it('become foundation-model ARNs with no account', () => {
    const s = new Stack(app(), 'S', { env: { account: '123456789012', region: 'eu-west-1' } });
    expect(s.resolve(foundationModelArn(s, 'amazon.nova-lite-v1:0'))).toBe(
      'arn:aws:bedrock:eu-west-1::foundation-model/amazon.nova-lite-v1:0',
    );
  });
});

describe('runtime tuning', () => {
  it('rejects values outside the runtime limits, naming the range and the value', () => {
    const t = topology();
    expect(() => validateTuning(stack(), { chunkClauses: 0 }, t)).toThrow(
      'tuning.chunkClauses must be an integer from 1 to 200; got 0',
    );
    expect(() => validateTuning(stack(), { callConcurrency: 1.5 }, t)).toThrow(
      /callConcurrency.*1 to 256; got 1.5/,
    );
    expect(() => validateTuning(stack(), { maxJobsPerOwner: -1 }, t)).toThrow(
      'tuning.maxJobsPerOwner must be an integer from 0 to 10000; got -1',
    );
    expect(() => validateTuning(stack(), { defaultLane: 'bulk' as never }, t)).toThrow(
      "tuning.defaultLane must be 'realtime' or 'batch'; got 'bulk'",
    );
  });

  it('checks per-model budgets and hands them to the runtime as MODEL_BUDGETS', () => {
    const t = topology();
    const modelBudgets = { [PRIMARY_MODEL_ID]: { tokensPerMinute: 5_000_000, requestsPerMinute: 10_000 } };
    expect(() => validateTuning(stack(), { modelBudgets }, t)).not.toThrow();
    expect(() => validateTuning(stack(), { modelBudgets: { m: {} } }, t)).toThrow(
      "tuning.modelBudgets['m'] must name tokensPerMinute, requestsPerMinute or both, and nothing else; got {}",
    );
    expect(() => validateTuning(stack(), { modelBudgets: { m: { tokensPerMinute: 0 } } }, t)).toThrow(
      "tuning.modelBudgets['m'].tokensPerMinute must be an integer from 1 to",
    );
    const s = stack();
    const env = runtimeEnvironment({
      ...pipelineResources(s),
      models: { primary: PRIMARY_MODEL_ID, fallback: FALLBACK_MODEL_ID, perAnalyst: {} },
      tuning: { modelBudgets },
    });
    expect(JSON.parse(env.MODEL_BUDGETS ?? '{}')).toEqual(modelBudgets);
    expect(
      loadConfig({ ...env, TABLE_NAME: 't', QUEUE_URLS: queueUrlsVariable('http://q') }).MODEL_BUDGETS,
    ).toEqual(modelBudgets);
  });

  it('rejects a model timeout a chunk worker invocation could not outlast', () => {
    expect(() => validateTuning(stack(), { modelTimeoutMs: 300_000 }, topology())).toThrow(
      'tuning.modelTimeoutMs must be an integer from 100 to 299999; got 300000',
    );
    expect(() =>
      validateTuning(stack(), { modelTimeoutMs: 60_000, leaseSeconds: 120 }, topology()),
    ).not.toThrow();
  });
});

describe('PipelineFunctions', () => {
  it('rejects a handler entry that does not exist, naming the path', () => {
    const s = stack();
    expect(
      () =>
        new PipelineFunctions(s, 'F', {
          ...pipelineResources(s),
          entries: { intake: 'lambdas/nope/handler.ts' },
        }),
    ).toThrow(/entries.intake must name an existing handler file; got '.*lambdas\/nope\/handler.ts'/);
  });

  it('rejects memory outside what Lambda offers', () => {
    const s = stack();
    expect(
      () => new PipelineFunctions(s, 'F', { ...pipelineResources(s), memoryMiB: { worker: 64 } }),
    ).toThrow('PipelineFunctions memoryMiB.worker must be an integer from 128 to 10240; got 64');
  });

  it('rejects a queue whose visibility timeout is under six times its consumer timeout', () => {
    const s = stack();
    const r = pipelineResources(s);
    const t = {
      ...r.topology,
      queues: {
        ...r.topology.queues,
        finalize: { ...r.topology.queues.finalize, visibilityTimeoutSeconds: 600 },
      },
    };
    expect(() => new PipelineFunctions(s, 'F', { ...r, topology: t })).toThrow(
      /finalize.*visibility timeout must be an integer of at least 720 s \(6 × the function timeout\); got 600 s/,
    );
  });
});

describe('BatchLaneService', () => {
  it('rejects task counts, sizes and poller concurrency out of range', () => {
    const s = stack();
    const r = pipelineResources(s);
    expect(() => new BatchLaneService(s, 'B1', { ...r, maxTasks: 0 })).toThrow(
      'BatchLaneService maxTasks must be an integer from 1 to 100; got 0',
    );
    expect(() => new BatchLaneService(s, 'B2', { ...r, cpu: 300 })).toThrow(
      'BatchLaneService cpu must be one of 256, 512, 1024, 2048, 4096; got 300',
    );
    expect(() => new BatchLaneService(s, 'B3', { ...r, pollerConcurrency: 100 })).toThrow(
      'BatchLaneService pollerConcurrency must be an integer from 1 to 64; got 100',
    );
    expect(() => new BatchLaneService(s, 'B4', { ...r, dockerfile: 'nope/Dockerfile' })).toThrow(
      /dockerfile must exist under projectRoot; got '.*nope\/Dockerfile'/,
    );
  });
});

describe('resourcesFromOutputs', () => {
  const outputs = () => {
    const o: Record<string, string> = {
      [STACK_OUTPUTS.prefix]: 'cr',
      [STACK_OUTPUTS.tableName]: 'cr-state',
      [STACK_OUTPUTS.intakeBucket]: 'cr-intake-1',
      [STACK_OUTPUTS.intakePrefix]: 'incoming/',
      [STACK_OUTPUTS.resultsBucket]: 'cr-results-1',
      [STACK_OUTPUTS.resultsPrefix]: 'reports/',
      [STACK_OUTPUTS.alertsTopicArn]: 'arn:aws:sns:eu-west-1:123456789012:cr-alerts',
    };
    for (const role of QUEUE_ROLES) {
      o[STACK_OUTPUTS.queueUrl(role)] = `https://sqs/${role}`;
      o[STACK_OUTPUTS.queueArn(role)] = `arn:${role}`;
      o[STACK_OUTPUTS.dlqUrl(role)] = `https://sqs/${role}-dlq`;
      o[STACK_OUTPUTS.dlqArn(role)] = `arn:${role}-dlq`;
    }
    return o;
  };

  it('reads a deployed stack into the shape the local provisioner returns', () => {
    const r = resourcesFromOutputs(outputs());
    expect(r.prefix).toBe('cr');
    expect(r.queueUrls).toEqual({
      intake: 'https://sqs/intake',
      realtime: 'https://sqs/realtime',
      batch: 'https://sqs/batch',
      finalize: 'https://sqs/finalize',
    });
    expect(r.dlqArns.finalize).toBe('arn:finalize-dlq');
    expect(r.resultsPrefix).toBe('reports/');
  });

  it('names every missing output', () => {
    const o = outputs();
    delete o.TableName;
    delete o.BatchDlqUrl;
    expect(() => resourcesFromOutputs(o)).toThrow(StackOutputsError);
    expect(() => resourcesFromOutputs(o)).toThrow(
      'stack outputs lack BatchDlqUrl, TableName; is this a clause-review stack?',
    );
  });
});
