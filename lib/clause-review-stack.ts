import { Aspects, Aws, CfnOutput, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct, IConstruct } from 'constructs';
import { ANALYSTS, type Lane, lanesConsumedBy, panelModelIds } from '../lambdas/stack-interface.js';
import { AlertsTopic } from './alerts-topic.js';
import { BatchLaneService, type BatchLaneServiceProps } from './batch-lane-service.js';
import { checkPattern, EMAIL_ADDRESS } from './checks.js';
import type { ClauseReviewStackProps } from './clause-review-stack-props.js';
import { DeadLetterAlarms } from './dead-letter-alarms.js';
import { DocumentBuckets } from './document-buckets.js';
import { FunctionLogRetention } from './function-log-retention.js';
import { type ResolvedModelIds, resolveModelIds } from './model-access.js';
import { Observability } from './observability.js';
import { OperationsFunctions } from './operations-functions.js';
import { PipelineFunctions } from './pipeline-functions.js';
import { ReviewerAppHosting } from './reviewer-app-hosting.js';
import { ReviewerSignIn } from './reviewer-sign-in.js';
import { STACK_OUTPUTS } from './stack-outputs.js';
import { StateTable } from './state-table.js';
import { StatusApi } from './status-api.js';
import { isTopologyError, QUEUE_ROLES, type Topology, TopologyError, topology } from './topology.js';
import { WorkQueues } from './work-queues.js';

export type { BatchLaneSettings, ClauseReviewStackProps } from './clause-review-stack-props.js';

/**
 * clause-review on AWS: intake bucket → intake queue → intake function → realtime (Lambda) or
 * batch (Fargate) lane → finalize → reports in the results bucket, with state in one DynamoDB
 * table. Every name and queue setting comes from `topology()`, the module the local emulator
 * is provisioned from too, so the two cannot drift.
 */
export class ClauseReviewStack extends Stack {
  readonly topology: Topology;
  readonly stateTable: StateTable;
  readonly workQueues: WorkQueues;
  readonly documentBuckets: DocumentBuckets;
  readonly alerts: AlertsTopic;
  readonly functions: PipelineFunctions;
  /** The Fargate service of each lane drained by pollers. */
  readonly laneServices: Readonly<Partial<Record<Lane, BatchLaneService>>>;
  readonly deadLetterAlarms: DeadLetterAlarms;
  readonly statusApi: StatusApi;
  /** Sign-in for people: user pool, identity pool, and the roles it hands out. */
  readonly signIn: ReviewerSignIn;
  /** The reviewer app's private bucket behind CloudFront. */
  readonly app: ReviewerAppHosting;
  /** The sweeper and DLQ triage, on their schedules. */
  readonly operations: OperationsFunctions;
  /** Alarms (DLQ bursts, queue ages, function errors) and the dashboard. */
  readonly observability: Observability;

  constructor(scope: Construct, id: string, props: ClauseReviewStackProps = {}) {
    super(scope, id, props);
    for (const email of props.alertEmails ?? []) {
      checkPattern(this, 'alertEmails', email, EMAIL_ADDRESS, 'hold email addresses like ops@example.com');
    }
    this.topology = stackTopology(this, props);
    const t = this.topology;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const shared = {
      ...(props.modelIds ? { modelIds: props.modelIds } : {}),
      ...(props.tuning ? { tuning: props.tuning } : {}),
      ...(props.projectRoot ? { projectRoot: props.projectRoot } : {}),
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
      removalPolicy,
    };

    this.stateTable = new StateTable(this, 'State', { settings: t.table, removalPolicy });
    this.workQueues = new WorkQueues(this, 'Queues', { settings: t.queues });
    this.documentBuckets = new DocumentBuckets(this, 'Documents', {
      settings: t.buckets,
      intakeQueue: this.workQueues.queues.intake,
      notification: t.intakeNotification,
      ...(props.retentionDays !== undefined ? { retentionDays: props.retentionDays } : {}),
      removalPolicy,
    });
    this.alerts = new AlertsTopic(this, 'Alerts', { topicName: t.alertsTopicName, removalPolicy });
    for (const email of props.alertEmails ?? []) {
      this.alerts.topic.addSubscription(new subscriptions.EmailSubscription(email));
    }
    const resources = {
      topology: t,
      table: this.stateTable.table,
      intakeBucket: this.documentBuckets.intakeBucket,
      resultsBucket: this.documentBuckets.resultsBucket,
      queues: this.workQueues.queues,
      alertsTopic: this.alerts.topic,
    };
    this.functions = new PipelineFunctions(this, 'Functions', {
      ...resources,
      ...shared,
      ...(props.entries ? { entries: props.entries } : {}),
      ...(props.functionMemoryMiB ? { memoryMiB: props.functionMemoryMiB } : {}),
    });
    this.laneServices = pollerLaneServices(this, { ...resources, ...shared, ...props.batchLane });
    this.deadLetterAlarms = new DeadLetterAlarms(this, 'DeadLetterAlarms', {
      deadLetterQueues: this.workQueues.deadLetterQueues,
      settings: t.queues,
      topic: this.alerts.topic,
    });
    ({
      signIn: this.signIn,
      statusApi: this.statusApi,
      app: this.app,
    } = this.peopleAndApi(props, removalPolicy));
    // Uploads through the API are made with URLs its role signed; only those may name their
    // submitter in metadata, so intake learns the role's unique id.
    this.functions.intakeFunction.addEnvironment('API_ROLE_ID', this.statusApi.role.roleId);

    this.operations = new OperationsFunctions(this, 'Operations', {
      ...resources,
      ...shared,
      deadLetterQueues: this.workQueues.deadLetterQueues,
    });

    const models = resolveModelIds(props.modelIds, this);
    this.observability = new Observability(this, 'Observability', {
      topology: t,
      queues: this.workQueues.queues,
      deadLetterQueues: this.workQueues.deadLetterQueues,
      functions: {
        ...this.functions.functions,
        sweeper: this.operations.sweeperFunction,
        'dlq-triage': this.operations.triageFunction,
        api: this.statusApi.handler,
      },
      topic: this.alerts.topic,
      modelIds: [...panelModelIds(models)],
    });

    Aspects.of(this).add(
      new FunctionLogRetention({
        retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
        removalPolicy,
      }),
    );
    this.addOutputs(models);
    this.acknowledgeFrameworkFindings();
  }

  /**
   * The status API, the sign-in that hands people credentials for it (the administrators
   * group's role is one of the API's administrators), and the app's hosting.
   */
  private peopleAndApi(props: ClauseReviewStackProps, removalPolicy: RemovalPolicy) {
    const models = resolveModelIds(props.modelIds);
    const signIn = new ReviewerSignIn(this, 'SignIn', { removalPolicy });
    const statusApi = new StatusApi(this, 'StatusApi', {
      topology: this.topology,
      table: this.stateTable.table,
      intakeBucket: this.documentBuckets.intakeBucket,
      resultsBucket: this.documentBuckets.resultsBucket,
      queues: this.workQueues.queues,
      models,
      ...(props.tuning ? { tuning: props.tuning } : {}),
      ...(props.projectRoot ? { projectRoot: props.projectRoot } : {}),
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
      // Members of the user pool's administrators group sign in with this role.
      administrators: [...(props.administrators ?? []), signIn.administratorRole.roleArn],
      ...(props.sessionNamedRoles ? { sessionNamedRoles: props.sessionNamedRoles } : {}),
      userPool: signIn.userPool,
      removalPolicy,
    });
    signIn.allowInvoke(statusApi.httpApi);
    const app = new ReviewerAppHosting(this, 'App', {
      api: statusApi.httpApi,
      documentBuckets: [
        {
          bucket: this.documentBuckets.intakeBucket,
          name: this.topology.buckets.intake.name,
          methods: [s3.HttpMethods.POST],
        },
        {
          bucket: this.documentBuckets.resultsBucket,
          name: this.topology.buckets.results.name,
          methods: [s3.HttpMethods.GET, s3.HttpMethods.HEAD],
        },
      ],
      accessLogsBucket: this.documentBuckets.accessLogsBucket,
      ...(props.officeTenants ? { officeTenants: props.officeTenants } : {}),
      ...(props.appDirectory
        ? { files: { directory: props.appDirectory, config: appConfig(statusApi, signIn) } }
        : {}),
      removalPolicy,
    });
    return { signIn, statusApi, app };
  }

  private addOutputs(models: ResolvedModelIds): void {
    const t = this.topology;
    const output = (key: string, value: string, description: string) =>
      new CfnOutput(this, key, { key, value, description });
    output(STACK_OUTPUTS.prefix, t.prefix, 'Resource name prefix of this deployment');
    output(
      STACK_OUTPUTS.models,
      JSON.stringify(models),
      "The analysts' Bedrock models (clause-review doctor checks them)",
    );
    output(
      STACK_OUTPUTS.tableName,
      this.stateTable.table.tableName,
      'State table (jobs, checkpoints, call ledger)',
    );
    output(STACK_OUTPUTS.intakeBucket, this.documentBuckets.intakeBucket.bucketName, 'Upload contracts here');
    output(STACK_OUTPUTS.intakePrefix, t.buckets.intake.prefix, 'Key prefix that starts a review');
    output(
      STACK_OUTPUTS.resultsBucket,
      this.documentBuckets.resultsBucket.bucketName,
      'Reports are written here',
    );
    output(STACK_OUTPUTS.resultsPrefix, t.buckets.results.prefix, 'Key prefix of the reports');
    output(STACK_OUTPUTS.alertsTopicArn, this.alerts.topic.topicArn, 'Subscribe to pipeline alerts here');
    output(
      STACK_OUTPUTS.apiUrl,
      this.statusApi.url,
      'Status API (IAM authorization): submit, status, cancel, report',
    );
    output(STACK_OUTPUTS.appUrl, this.app.url, 'The reviewer app (CloudFront, HTTPS only)');
    output(
      STACK_OUTPUTS.addinManifestUrl,
      this.app.addinManifestUrl,
      "The Word add-in's manifest.xml: sideload it, or upload it in the Microsoft 365 admin center",
    );
    output(
      STACK_OUTPUTS.userPoolId,
      this.signIn.userPool.userPoolId,
      'Cognito user pool of the people who sign in',
    );
    output(STACK_OUTPUTS.userPoolClientId, this.signIn.client.userPoolClientId, "The app's user pool client");
    output(
      STACK_OUTPUTS.identityPoolId,
      this.signIn.identityPool.ref,
      'Cognito identity pool: temporary credentials for the status API',
    );
    for (const role of QUEUE_ROLES) {
      const { queue, deadLetterQueue } = this.workQueues.pair(role);
      output(STACK_OUTPUTS.queueUrl(role), queue.queueUrl, `URL of the ${role} queue`);
      output(STACK_OUTPUTS.queueArn(role), queue.queueArn, `ARN of the ${role} queue`);
      output(STACK_OUTPUTS.dlqUrl(role), deadLetterQueue.queueUrl, `URL of the ${role} dead-letter queue`);
      output(STACK_OUTPUTS.dlqArn(role), deadLetterQueue.queueArn, `ARN of the ${role} dead-letter queue`);
    }
  }

  /**
   * The one finding on a helper that aws-cdk-lib itself adds to the stack rather than anything
   * this project writes: the function that sets the intake bucket's notification configuration
   * while CloudFormation deploys the stack.
   */
  private acknowledgeFrameworkFindings(): void {
    const helpers = this.node.children.filter((child: IConstruct) =>
      child.node.id.startsWith('BucketNotificationsHandler'),
    );
    for (const helper of helpers) {
      Validations.of(helper).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          "aws-cdk-lib's S3 bucket-notification helper, invoked only by CloudFormation during deployment; " +
          'the AWS-managed AWSLambdaBasicExecutionRole policy only lets it write its own CloudWatch logs.',
      });
    }
  }
}

/** What the app reads from config.json beside it: where the API is and how people sign in. */
function appConfig(api: StatusApi, signIn: ReviewerSignIn): Record<string, unknown> {
  return {
    apiUrl: api.url,
    region: Aws.REGION,
    signIn: {
      kind: 'cognito',
      userPoolId: signIn.userPool.userPoolId,
      clientId: signIn.client.userPoolClientId,
      identityPoolId: signIn.identityPool.ref,
    },
    analysts: ANALYSTS.map((a) => ({ id: a.id, name: a.name })),
  };
}

/** The stack's topology; a {@link TopologyError} is rethrown scoped to the stack. */
function stackTopology(scope: IConstruct, props: ClauseReviewStackProps): Topology {
  try {
    return topologyOf(props);
  } catch (error) {
    if (!isTopologyError(error)) throw error;
    throw new TopologyError(error.message, { scope, cause: error });
  }
}

function topologyOf(props: ClauseReviewStackProps): Topology {
  return topology({
    ...(props.prefix !== undefined ? { prefix: props.prefix } : {}),
    ...(props.chunkMaxReceiveCount !== undefined ? { chunkMaxReceiveCount: props.chunkMaxReceiveCount } : {}),
    ...(props.redeliveryBackoffSeconds !== undefined
      ? { redeliveryBackoffSeconds: props.redeliveryBackoffSeconds }
      : {}),
    ...(props.laneConcurrency !== undefined ? { laneConcurrency: props.laneConcurrency } : {}),
    bucketSuffix: props.bucketSuffix ?? `${Aws.ACCOUNT_ID}-${Aws.REGION}`,
  });
}

/** One Fargate service per lane drained by pollers, `BatchLane` for the batch lane. */
function pollerLaneServices(
  scope: Construct,
  props: Omit<BatchLaneServiceProps, 'lane'>,
): Partial<Record<Lane, BatchLaneService>> {
  return Object.fromEntries(
    lanesConsumedBy('poller').map((lane) => [
      lane,
      new BatchLaneService(scope, `${lane[0]?.toUpperCase()}${lane.slice(1)}Lane`, { ...props, lane }),
    ]),
  );
}
