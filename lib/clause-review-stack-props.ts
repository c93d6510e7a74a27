/**
 * What a deployer (or a test) may set on the stack: {@link ClauseReviewStackProps}, each with its
 * default, apart from the stack's construction so both stay readable.
 */
import type { RemovalPolicy, StackProps } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Lane } from '../lambdas/stack-interface.js';
import type { ModelIds } from './model-access.js';
import type { PipelineEntries, PipelineMemory } from './pipeline-functions.js';
import type { RuntimeTuning } from './runtime-environment.js';

/** Settings of the Fargate batch lane. */
export interface BatchLaneSettings {
  /** @default a new two-AZ VPC with public subnets and no NAT gateway */
  readonly vpc?: ec2.IVpc;
  /** @default the lane's `topology.queues[lane].maxConcurrency` */
  readonly maxTasks?: number;
  /** @default 2 */
  readonly pollerConcurrency?: number;
  /** @default 512 */
  readonly cpu?: number;
  /** @default 1024 */
  readonly memoryMiB?: number;
  /** @default 'lambdas/batch-worker/Dockerfile' */
  readonly dockerfile?: string;
}

/** Properties of {@link ClauseReviewStack}. */
export interface ClauseReviewStackProps extends StackProps {
  /**
   * Prefix of every resource name (see `topology()` for the allowed form).
   * @default 'clause-review'
   */
  readonly prefix?: string;
  /**
   * Receives of a chunk message before it goes to its DLQ (the tier-2 retry budget).
   * @default 3
   */
  readonly chunkMaxReceiveCount?: number;
  /**
   * Tier-2 visibility backoff by receive count, in seconds.
   * @default [30, 120, 300]
   */
  readonly redeliveryBackoffSeconds?: readonly number[];
  /**
   * Suffix that makes the bucket names globally unique.
   * @default '<account>-<region>' of the stack
   */
  readonly bucketSuffix?: string;
  /**
   * The Bedrock models the analysts call.
   * @default the primary and fallback of lambdas/core/model-catalogue.ts
   */
  readonly modelIds?: ModelIds;
  /**
   * Runtime tuning for every handler and worker.
   * @default none: the runtime's defaults apply
   */
  readonly tuning?: RuntimeTuning;
  /**
   * Directory holding package-lock.json, the handlers and the batch worker's Dockerfile.
   * @default the repository this file belongs to
   */
  readonly projectRoot?: string;
  /**
   * Handler entry files, relative to `projectRoot`.
   * @default the handlers under lambdas/
   */
  readonly entries?: PipelineEntries;
  /**
   * Memory of the Lambda functions.
   * @default intake 1024, worker 512, finalize 1024 MiB
   */
  readonly functionMemoryMiB?: PipelineMemory;
  /**
   * Settings of the Fargate service of each lane drained by pollers (the batch lane).
   * @default see {@link BatchLaneSettings}
   */
  readonly batchLane?: BatchLaneSettings;
  /**
   * Email addresses subscribed to the alerts topic (each must confirm the subscription).
   * @default none
   */
  readonly alertEmails?: readonly string[];
  /**
   * IAM principals who may act on every job through the status API (see `StatusApiProps`).
   * @default none: callers act only on the jobs they submitted
   */
  readonly administrators?: readonly string[];
  /**
   * IAM roles whose sessions may own jobs, their names not being the caller's choice (see
   * `StatusApiProps`). @default none: other role sessions are refused
   */
  readonly sessionNamedRoles?: readonly string[];
  /**
   * Microsoft 365 tenants whose SharePoint (`<tenant>.sharepoint.com`) and OneDrive for work
   * (`<tenant>-my.sharepoint.com`) may frame the Word add-in's task pane in Word on the web (see
   * `ReviewerAppHostingProps.officeTenants`).
   * @default none: Office for the web's own hosts and personal OneDrive only
   */
  readonly officeTenants?: readonly string[];
  /**
   * The reviewer app's built files (a directory holding index.html), deployed into the app's
   * bucket with a config.json naming the API and the sign-in pools.
   * @default none: the app's bucket is left as it is
   */
  readonly appDirectory?: string;
  /**
   * How long the logs of every function (aws-cdk-lib's own helpers included), task and flow are kept.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * Days contracts, work files and reports are kept before S3 expires them (1-3650).
   * `clause-review purge <job>` deletes one job's data at once.
   * @default 90
   */
  readonly retentionDays?: number;
  /**
   * What happens to stateful resources (table, buckets, key, log groups) when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Concurrency of each lane's consumer: concurrent invocations of a Lambda-drained lane
   * (2-1000), Fargate tasks of a poller lane (1-100, unless `batchLane.maxTasks` says otherwise).
   * @default each lane's `topology().queues[lane].maxConcurrency` (realtime 20, batch 4)
   */
  readonly laneConcurrency?: Readonly<Partial<Record<Lane, number>>>;
}
