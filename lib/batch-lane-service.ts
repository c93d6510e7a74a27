import { join } from 'node:path';
import { Duration, RemovalPolicy, Token, Validations } from 'aws-cdk-lib';
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as ecsPatterns from 'aws-cdk-lib/aws-ecs-patterns';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct, type IConstruct } from 'constructs';
import {
  BATCH_IDLE_MINUTES,
  LANE_COMPUTE,
  LANE_CONSUMERS,
  type Lane,
  lanesConsumedBy,
  METRICS_NAMESPACE,
} from '../lambdas/stack-interface.js';
import { checkFileExists, checkRange } from './checks.js';
import { ValidationError } from './errors.js';
import {
  grantInvokeModels,
  grantModelLifecycleReads,
  type ModelIds,
  type ResolvedModelIds,
  resolveModelIds,
} from './model-access.js';
import { DEFAULT_POLLER_CONCURRENCY } from './owner-cap.js';
import { PROJECT_ROOT } from './project-root.js';
import { type PipelineResourcesProps, runtimeEnvironment, validateTuning } from './runtime-environment.js';
import { grantItemAccess } from './state-table.js';

/** Properties of {@link BatchLaneService}. */
export interface BatchLaneServiceProps extends PipelineResourcesProps {
  /**
   * The lane whose queue the tasks poll (`POLLER_LANE`): one that `LANE_CONSUMERS` gives to pollers.
   * @default 'batch'
   */
  readonly lane?: Lane;
  /**
   * The Bedrock models the worker may call.
   * @default the primary and fallback of lambdas/core/model-catalogue.ts
   */
  readonly modelIds?: ModelIds;
  /**
   * Docker build context.
   * @default the repository this file belongs to
   */
  readonly projectRoot?: string;
  /**
   * Dockerfile of the worker image, relative to `projectRoot`.
   * @default 'lambdas/batch-worker/Dockerfile'
   */
  readonly dockerfile?: string;
  /**
   * VPC to run the tasks in; they need outbound HTTPS to SQS, DynamoDB, S3, Bedrock, ECR and
   * CloudWatch Logs (a NAT gateway or VPC endpoints), and run in its private subnets.
   * @default a new two-AZ VPC with public subnets only, no NAT gateway (see the class comment)
   */
  readonly vpc?: ec2.IVpc;
  /**
   * Most tasks running at once. The service scales to zero when the lane's queue is empty.
   * @default topology.queues[lane].maxConcurrency
   */
  readonly maxTasks?: number;
  /**
   * Chunks one task works on at once (`POLLER_CONCURRENCY`), 1-64.
   * @default 2
   */
  readonly pollerConcurrency?: number;
  /**
   * vCPU units of a task (256 = 0.25 vCPU); one of 256, 512, 1024, 2048, 4096.
   * @default 512
   */
  readonly cpu?: number;
  /**
   * Memory of a task in MiB; must be a valid Fargate combination with `cpu`.
   * @default 1024
   */
  readonly memoryMiB?: number;
  /**
   * How long task logs and VPC flow logs are kept.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * What happens to the log groups when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/** ECS stops a task with SIGTERM, then SIGKILL after this; the worker finishes its chunks in between. */
const STOP_TIMEOUT = Duration.seconds(120);
/** Minutes the batch queue must hold nothing, visible or in flight, before every task is stopped. */
const IDLE_MINUTES_BEFORE_SCALE_IN = BATCH_IDLE_MINUTES;
const FARGATE_CPU = [256, 512, 1024, 2048, 4096];

/**
 * `QueueProcessingFargateService` with a scale-in rule that never stops a task mid-chunk.
 *
 * The pattern scales in when no message is *visible*, but a message being worked on is
 * invisible: with a queue of in-flight chunks it would stop the very tasks holding them, each
 * stop costing the message a receive toward its DLQ. Here tasks are added while messages wait
 * (visible) and removed only when the queue holds nothing at all (visible + in flight) for
 * {@link IDLE_MINUTES_BEFORE_SCALE_IN} minutes. CPU-based scaling is left off: the work waits
 * on Bedrock, so CPU says nothing about backlog.
 */
class BacklogScaledQueueProcessingFargateService extends ecsPatterns.QueueProcessingFargateService {
  // Runs inside the base constructor, so only state the base has set is available here.
  protected override configureAutoscalingForService(service: ecs.BaseService): void {
    const target = service.autoScaleTaskCount({
      minCapacity: this.minCapacity,
      maxCapacity: this.maxCapacity,
    });
    const period = Duration.minutes(1);
    const visible = this.sqsQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' });
    target.scaleOnMetric('QueueMessagesVisibleScaling', {
      metric: visible,
      scalingSteps: this.scalingSteps,
      adjustmentType: appscaling.AdjustmentType.CHANGE_IN_CAPACITY,
      cooldown: Duration.minutes(1),
    });
    const backlog = new cloudwatch.MathExpression({
      expression: 'visible + inFlight',
      usingMetrics: {
        visible,
        inFlight: this.sqsQueue.metricApproximateNumberOfMessagesNotVisible({ period, statistic: 'Maximum' }),
      },
      period,
      label: 'Batch queue backlog (visible + in flight)',
    });
    target.scaleOnMetric('QueueDrainedScaleIn', {
      metric: backlog,
      scalingSteps: [
        { upper: 0, change: -this.maxCapacity },
        { lower: 1, change: 0 },
      ],
      adjustmentType: appscaling.AdjustmentType.CHANGE_IN_CAPACITY,
      evaluationPeriods: IDLE_MINUTES_BEFORE_SCALE_IN,
      cooldown: Duration.minutes(1),
    });
  }
}

/**
 * A lane drained by pollers (the batch lane unless told): long-running Fargate workers
 * (lambdas/batch-worker/main.ts) polling the lane's queue, scaled from zero on queue depth.
 *
 * Networking, when no VPC is given: public subnets in two AZs, a public IP per task, and no
 * NAT gateway. The tasks only make outbound HTTPS calls to AWS APIs, which a NAT gateway
 * (~$32/month per AZ) or six interface endpoints (~$90/month) would carry at a fixed cost for a
 * lane that is idle most of the time. The security group admits nothing inbound and lets out
 * HTTPS only; S3 and DynamoDB traffic stays on the AWS network through free gateway endpoints;
 * VPC flow logs record every connection.
 */
export class BatchLaneService extends Construct {
  readonly vpc: ec2.IVpc;
  readonly cluster: ecs.Cluster;
  readonly taskDefinition: ecs.FargateTaskDefinition;
  readonly service: ecsPatterns.QueueProcessingFargateService;
  readonly securityGroup: ec2.SecurityGroup;

  constructor(scope: Construct, id: string, props: BatchLaneServiceProps) {
    super(scope, id);
    const t = props.topology;
    const models = resolveModelIds(props.modelIds, this);
    validateTuning(this, props.tuning ?? {}, t);
    const projectRoot = props.projectRoot ?? PROJECT_ROOT;
    const dockerfile = props.dockerfile ?? 'lambdas/batch-worker/Dockerfile';
    checkFileExists(
      this,
      'BatchLaneService dockerfile',
      join(projectRoot, dockerfile),
      'exist under projectRoot',
    );
    const { lane, maxTasks, pollerConcurrency, cpu, memoryMiB } = checkedSettings(this, props);
    const retention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    const ownVpc = props.vpc === undefined;
    this.vpc = props.vpc ?? this.createVpc(retention, removalPolicy);
    this.securityGroup = new ec2.SecurityGroup(this, 'TaskSecurityGroup', {
      vpc: this.vpc,
      description: 'clause-review batch workers: no inbound; outbound HTTPS to AWS APIs only',
      allowAllOutbound: false,
    });
    this.securityGroup.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'HTTPS to AWS service endpoints');

    this.cluster = new ecs.Cluster(this, 'Cluster', {
      vpc: this.vpc,
      containerInsightsV2: ecs.ContainerInsights.ENABLED,
    });

    this.taskDefinition = new ecs.FargateTaskDefinition(this, 'TaskDefinition', {
      cpu,
      memoryLimitMiB: memoryMiB,
      runtimePlatform: {
        cpuArchitecture: ecs.CpuArchitecture.ARM64,
        operatingSystemFamily: ecs.OperatingSystemFamily.LINUX,
      },
    });
    const logGroup = new logs.LogGroup(this, 'WorkerLogs', { retention, removalPolicy });
    const environment = runtimeEnvironment({ ...props, models });
    this.taskDefinition.addContainer('Worker', {
      // Synth only stages the build context; the image is built at deploy time. The Dockerfile
      // builds in the build host's own architecture and only copies into the arm64 stage, so
      // building it needs no emulation.
      image: ecs.ContainerImage.fromAsset(projectRoot, { file: dockerfile, platform: Platform.LINUX_ARM64 }),
      environment: { ...environment, POLLER_LANE: lane, POLLER_CONCURRENCY: String(pollerConcurrency) },
      logging: ecs.LogDrivers.awsLogs({ streamPrefix: `${lane}-worker`, logGroup }),
      readonlyRootFilesystem: true,
      stopTimeout: STOP_TIMEOUT,
    });

    this.service = new BacklogScaledQueueProcessingFargateService(this, 'Service', {
      cluster: this.cluster,
      taskDefinition: this.taskDefinition,
      queue: props.queues[lane],
      minScalingCapacity: 0,
      maxScalingCapacity: maxTasks,
      scalingSteps: [
        { lower: 1, change: +1 },
        { lower: 20, change: +2 },
        { lower: 100, change: +4 },
      ],
      disableCpuBasedScaling: true,
      securityGroups: [this.securityGroup],
      assignPublicIp: ownVpc,
      taskSubnets: { subnetType: ownVpc ? ec2.SubnetType.PUBLIC : ec2.SubnetType.PRIVATE_WITH_EGRESS },
      platformVersion: ecs.FargatePlatformVersion.LATEST,
      circuitBreaker: { rollback: true },
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      propagateTags: ecs.PropagatedTagSource.SERVICE,
      enableECSManagedTags: true,
    });

    this.grantTaskRole(props, models);
  }

  /**
   * What the worker needs besides consuming its queue (which the pattern grants): the table,
   * finalize messages, the models and metrics; and the reviewed cdk-nag acknowledgements.
   */
  private grantTaskRole(props: BatchLaneServiceProps, models: ResolvedModelIds): void {
    const taskRole = this.taskDefinition.taskRole;
    grantItemAccess(props.table, taskRole);
    props.queues.finalize.grantSendMessages(taskRole);
    grantInvokeModels(taskRole, this, models);
    grantModelLifecycleReads(taskRole, this, models);
    // The worker sends its metrics with PutMetricData (lambdas/core/metrics/put-metric-data.ts).
    taskRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['cloudwatch:PutMetricData'],
        resources: ['*'],
        conditions: { StringEquals: { 'cloudwatch:namespace': METRICS_NAMESPACE } },
      }),
    );
    Validations.of(taskRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'cloudwatch:PutMetricData supports no resource-level permissions (IAM requires "*"); the statement is ' +
        `confined to the '${METRICS_NAMESPACE}' namespace by the cloudwatch:namespace condition key.`,
    });

    Validations.of(this.taskDefinition).acknowledge({
      id: 'AwsSolutions-ECS2',
      reason:
        'The environment holds only non-secret configuration (table, bucket and queue names, model ids, ' +
        'tuning numbers) produced by this stack; the worker uses its task role and holds no credentials.',
    });
    const executionRole = this.taskDefinition.executionRole;
    if (executionRole) {
      Validations.of(executionRole).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'ecr:GetAuthorizationToken does not support resource-level permissions (IAM requires "*"); the ' +
          "image pull actions themselves are scoped to this stack's asset repository.",
      });
    }
  }

  private createVpc(retention: logs.RetentionDays, removalPolicy: RemovalPolicy): ec2.Vpc {
    const flowLogs = new logs.LogGroup(this, 'FlowLogs', { retention, removalPolicy });
    return new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 }],
      gatewayEndpoints: {
        S3: { service: ec2.GatewayVpcEndpointAwsService.S3 },
        DynamoDB: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB },
      },
      flowLogs: {
        All: {
          trafficType: ec2.FlowLogTrafficType.ALL,
          destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogs),
        },
      },
    });
  }
}

/** The service's settings with their defaults, each checked against what ECS and the lane allow. */
function checkedSettings(
  scope: IConstruct,
  props: BatchLaneServiceProps,
): {
  lane: Lane;
  maxTasks: number;
  pollerConcurrency: number;
  cpu: number;
  memoryMiB: number;
} {
  const lane = props.lane ?? 'batch';
  if (LANE_CONSUMERS[lane] !== 'poller') {
    throw new ValidationError(
      'BadValue',
      `BatchLaneService lane must be one drained by pollers (${lanesConsumedBy('poller').join(', ')}); got '${lane}'`,
      scope,
    );
  }
  const maxTasks = checkRange(
    scope,
    'BatchLaneService maxTasks',
    props.maxTasks ?? props.topology.queues[lane].maxConcurrency,
    { min: 1, max: 100 },
  );
  const pollers = props.pollerConcurrency ?? DEFAULT_POLLER_CONCURRENCY;
  const pollerConcurrency = checkRange(scope, 'BatchLaneService pollerConcurrency', pollers, {
    min: 1,
    max: 64,
  });
  const cpu = props.cpu ?? LANE_COMPUTE.batch.cpuUnits;
  if (!Token.isUnresolved(cpu) && !FARGATE_CPU.includes(cpu)) {
    throw new ValidationError(
      'BadValue',
      `BatchLaneService cpu must be one of ${FARGATE_CPU.join(', ')}; got ${cpu}`,
      scope,
    );
  }
  const memoryMiB = checkRange(
    scope,
    'BatchLaneService memoryMiB',
    props.memoryMiB ?? LANE_COMPUTE.batch.memoryMiB,
    {
      min: 512,
      max: 30_720,
    },
  );
  return { lane, maxTasks, pollerConcurrency, cpu, memoryMiB };
}
