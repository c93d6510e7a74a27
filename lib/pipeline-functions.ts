import { join } from 'node:path';
import { Duration, RemovalPolicy, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, type IConstruct } from 'constructs';
import { LANE_COMPUTE, LANES, lanesConsumedBy, STATUS_INDEX } from '../lambdas/stack-interface.js';
import { bucketLogicalId } from './bucket-logical-id.js';
import { checkFileExists, checkProjectRoot, checkRange } from './checks.js';
import {
  grantInvokeModels,
  grantModelLifecycleReads,
  type ModelIds,
  type ResolvedModelIds,
  resolveModelIds,
} from './model-access.js';
import { PROJECT_ROOT } from './project-root.js';
import { type PipelineResourcesProps, runtimeEnvironment, validateTuning } from './runtime-environment.js';
import { grantItemAccess } from './state-table.js';
import type { QueueRole, QueueSettings } from './topology.js';

/** The Lambda functions of the pipeline. */
export type PipelineFunctionName = 'intake' | 'worker' | 'finalize';

/** Handler entry files, relative to the project root. */
export interface PipelineEntries {
  /** @default 'lambdas/intake/handler.ts' */
  readonly intake?: string;
  /** @default 'lambdas/worker/handler.ts' */
  readonly worker?: string;
  /** @default 'lambdas/finalize/handler.ts' */
  readonly finalize?: string;
}

/** Memory of each function in MiB (128-10240); CPU grows with it. */
export interface PipelineMemory {
  /** Parses PDF and DOCX uploads of up to 10 MiB. @default 1024 */
  readonly intake?: number;
  /** Mostly waits on Bedrock. @default 512 */
  readonly worker?: number;
  /** Renders the report from every finding of a job. @default 1024 */
  readonly finalize?: number;
}

/** Properties of {@link PipelineFunctions}. */
export interface PipelineFunctionsProps extends PipelineResourcesProps {
  /**
   * The Bedrock models the worker may call.
   * @default the primary and fallback of lambdas/core/model-catalogue.ts
   */
  readonly modelIds?: ModelIds;
  /**
   * Directory holding package-lock.json and the handler sources.
   * @default the repository this file belongs to
   */
  readonly projectRoot?: string;
  /**
   * Handler entry files, relative to `projectRoot`.
   * @default the handlers under lambdas/
   */
  readonly entries?: PipelineEntries;
  /**
   * Memory of each function.
   * @default intake 1024, worker 512, finalize 1024
   */
  readonly memoryMiB?: PipelineMemory;
  /**
   * How long function logs are kept.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * What happens to the log groups when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The prefix under which intake stores a job's normalised document in the results bucket and
 * finalize reads it back (`documentKey` in lambdas/core/intake/intake.ts).
 */
export const WORK_PREFIX = 'work/';

const DEFAULT_ENTRIES: Required<PipelineEntries> = {
  intake: 'lambdas/intake/handler.ts',
  worker: 'lambdas/worker/handler.ts',
  finalize: 'lambdas/finalize/handler.ts',
};
const DEFAULT_MEMORY: Required<PipelineMemory> = {
  intake: 1024,
  worker: LANE_COMPUTE.realtime.memoryMiB,
  finalize: 1024,
};

/** Lambda runtime of every function; esbuild targets the same Node.js major. */
export const FUNCTION_RUNTIME = lambda.Runtime.NODEJS_24_X;
const ESBUILD_TARGET = 'node24';

/**
 * esbuild emits ESM; some bundled CommonJS dependencies still call `require` for Node.js
 * built-ins, which ESM lacks, so the bundle defines one.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * How every handler is bundled: ESM for Node 24, minified with source maps, and with the SDK
 * versions package-lock.json pins instead of the runtime's copy, so what the tests ran is
 * what runs in Lambda.
 */
export const HANDLER_BUNDLING: nodejs.BundlingOptions = {
  format: nodejs.OutputFormat.ESM,
  target: ESBUILD_TARGET,
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  bundleAwsSDK: true,
};

/** Options of {@link handlerFunction}. */
export interface HandlerFunctionOptions {
  /** Absolute path of the handler file. */
  readonly entry: string;
  /** Directory holding package-lock.json (checked by the caller). */
  readonly projectRoot: string;
  readonly description: string;
  readonly roleDescription: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly environment: Record<string, string>;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * A handler function as every construct of the stack builds it: its own log group, its own
 * role (holding nothing until the construct grants what the handler does), ARM64 on
 * {@link FUNCTION_RUNTIME}, bundled by {@link HANDLER_BUNDLING}, stack traces mapped to the
 * TypeScript sources. Construct ids: `${id}Logs`, `${id}Role` and `id`.
 */
export function handlerFunction(
  scope: Construct,
  id: string,
  o: HandlerFunctionOptions,
): { fn: nodejs.NodejsFunction; role: iam.Role } {
  const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
    retention: o.logRetention ?? logs.RetentionDays.ONE_MONTH,
    removalPolicy: o.removalPolicy ?? RemovalPolicy.RETAIN,
  });
  const role = new iam.Role(scope, `${id}Role`, {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: o.roleDescription,
  });
  logGroup.grantWrite(role);
  const fn = new nodejs.NodejsFunction(scope, id, {
    entry: o.entry,
    handler: 'handler',
    projectRoot: o.projectRoot,
    depsLockFilePath: join(o.projectRoot, 'package-lock.json'),
    description: o.description,
    runtime: FUNCTION_RUNTIME,
    architecture: lambda.Architecture.ARM_64,
    memorySize: o.memorySize,
    timeout: o.timeout,
    role,
    logGroup,
    // Stack traces point into the TypeScript sources through the bundle's source map.
    environment: { ...o.environment, NODE_OPTIONS: '--enable-source-maps' },
    bundling: HANDLER_BUNDLING,
  });
  return { fn, role };
}

/**
 * The three Lambda functions of the pipeline, each behind its SQS queue: intake (S3 events →
 * job + chunk messages), the realtime-lane chunk worker (11 analysts on Bedrock) and finalize
 * (reports).
 *
 * Event sources report partial batch failures and cap concurrency with the event source's
 * maximum concurrency, not reserved concurrency: with reserved concurrency Lambda throttles the
 * poller's invocations, and throttled messages burn receives until good work lands in the DLQ.
 *
 * Each function has its own role with only what its handler does: no managed policies, table
 * access on item level without indexes, S3 access per prefix, Bedrock on the configured models.
 */
export class PipelineFunctions extends Construct {
  readonly intakeFunction: nodejs.NodejsFunction;
  readonly workerFunction: nodejs.NodejsFunction;
  readonly finalizeFunction: nodejs.NodejsFunction;

  constructor(scope: Construct, id: string, props: PipelineFunctionsProps) {
    super(scope, id);
    const t = props.topology;
    const models = resolveModelIds(props.modelIds, this);
    validateTuning(this, props.tuning ?? {}, t);
    const projectRoot = props.projectRoot ?? PROJECT_ROOT;
    const entries = { ...DEFAULT_ENTRIES, ...props.entries };
    const memory = { ...DEFAULT_MEMORY, ...props.memoryMiB };
    for (const [name, mib] of Object.entries(memory)) {
      checkRange(this, `PipelineFunctions memoryMiB.${name}`, mib, { min: 128, max: 10_240 });
    }
    checkProjectRoot(this, 'PipelineFunctions', projectRoot);
    const environment = runtimeEnvironment({ ...props, models });

    // A function drains each queue of `roles` through an event source of its own; its timeout is
    // the longest consumer timeout among them.
    const make = (name: PipelineFunctionName, roles: readonly QueueRole[], description: string) => {
      const entry = join(projectRoot, entries[name]);
      checkFileExists(this, `PipelineFunctions entries.${name}`, entry, 'name an existing handler file');
      for (const role of roles) validateConsumer(this, name, t.queues[role]);
      const timeoutSeconds = Math.max(...roles.map((role) => t.queues[role].consumerTimeoutSeconds));
      const { fn } = handlerFunction(this, pascal(name), {
        entry,
        projectRoot,
        description,
        roleDescription: `clause-review ${name} function`,
        memorySize: memory[name],
        timeout: Duration.seconds(timeoutSeconds),
        environment,
        ...(props.logRetention ? { logRetention: props.logRetention } : {}),
        ...(props.removalPolicy ? { removalPolicy: props.removalPolicy } : {}),
      });
      for (const role of roles) {
        fn.addEventSource(
          new SqsEventSource(props.queues[role], {
            batchSize: t.queues[role].batchSize,
            maxConcurrency: t.queues[role].maxConcurrency,
            reportBatchItemFailures: true,
          }),
        );
      }
      grantItemAccess(props.table, fn);
      return fn;
    };

    this.intakeFunction = make(
      'intake',
      ['intake'],
      'clause-review intake: S3 upload → job, checkpoints, chunk messages',
    );
    this.workerFunction = make(
      'worker',
      lanesConsumedBy('lambda'),
      `clause-review ${lanesConsumedBy('lambda').join(' and ')} lane: 11 analysts × each clause of a chunk`,
    );
    this.finalizeFunction = make(
      'finalize',
      ['finalize'],
      'clause-review finalize: report.json and report.html',
    );

    this.grantAccess(props, models);
  }

  /**
   * What each function's handler does beyond its queue and the table: intake reads uploads,
   * stores documents and sends chunk messages; the worker calls the models and sends finalize;
   * finalize reads documents, writes reports and sends the chunk messages of a queued job it
   * starts. Each S3 grant is confined to one key prefix.
   */
  private grantAccess(props: PipelineFunctionsProps, models: ResolvedModelIds): void {
    const t = props.topology;
    // Intake reads the upload (a version of it: the bucket is versioned) and its tags. ListBucket
    // makes S3 answer NoSuchKey instead of AccessDenied for an object deleted before intake ran,
    // which intake records as a clear rejection rather than retrying into the DLQ.
    const intakePrefix = t.buckets.intake.prefix;
    this.intakeFunction.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject', 's3:GetObjectVersion', 's3:GetObjectTagging', 's3:GetObjectVersionTagging'],
        resources: [props.intakeBucket.arnForObjects(`${intakePrefix}*`)],
      }),
    );
    this.intakeFunction.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [props.intakeBucket.bucketArn] }),
    );
    this.intakeFunction.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [props.resultsBucket.arnForObjects(`${WORK_PREFIX}*`)],
      }),
    );
    for (const lane of LANES) props.queues[lane].grantSendMessages(this.intakeFunction);
    // Intake's first step puts each upload back on its own queue as its owner's message (owner-route.ts).
    props.queues.intake.grantSendMessages(this.intakeFunction);

    props.queues.finalize.grantSendMessages(this.workerFunction);
    // A job's end gives back its owner's slot, and finalize sends the next queued job's chunks.
    for (const lane of LANES) props.queues[lane].grantSendMessages(this.finalizeFunction);
    // Intake and finalize start an owner's oldest queued job, found on the jobs-by-status index.
    for (const f of [this.intakeFunction, this.finalizeFunction]) {
      f.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:Query'],
          resources: [`${props.table.tableArn}/index/${STATUS_INDEX}`],
        }),
      );
    }
    // Intake sends each model the workers' request once, the stack's day-one check (model-shape-guard.ts).
    for (const f of [this.intakeFunction, this.workerFunction]) grantInvokeModels(f, this, models);
    for (const f of [this.intakeFunction, this.workerFunction]) grantModelLifecycleReads(f, this, models);

    const resultsPrefix = t.buckets.results.prefix;
    // Finalize reads a DOCX upload, at the version reviewed, to put report.docx's comments in it.
    this.finalizeFunction.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject', 's3:GetObjectVersion'],
        resources: [props.intakeBucket.arnForObjects(`${intakePrefix}*`)],
      }),
    );
    this.finalizeFunction.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [props.resultsBucket.arnForObjects(`${WORK_PREFIX}*`)],
      }),
    );
    this.finalizeFunction.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [props.resultsBucket.arnForObjects(`${resultsPrefix}*`)],
      }),
    );

    // Object-level S3 actions need an object ARN pattern. Each one is confined to a single key
    // prefix of a bucket this stack owns; job ids, and so object keys, exist only at run time.
    const objectPatterns: [iam.IRole | undefined, s3.IBucket, string, string][] = [
      [this.intakeFunction.role, props.intakeBucket, intakePrefix, 'reads uploads'],
      [this.intakeFunction.role, props.resultsBucket, WORK_PREFIX, 'stores normalised documents'],
      [this.finalizeFunction.role, props.resultsBucket, WORK_PREFIX, 'reads normalised documents'],
      [this.finalizeFunction.role, props.intakeBucket, intakePrefix, 'reads DOCX uploads to comment them'],
      [this.finalizeFunction.role, props.resultsBucket, resultsPrefix, 'writes reports'],
    ];
    for (const [role, bucket, prefix, what] of objectPatterns) {
      if (!role) continue;
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId(bucket)}.Arn>/${prefix}*]`,
        reason:
          `The function ${what}: object-level S3 actions need an object ARN pattern, and this one is confined ` +
          `to the '${prefix}' prefix of a bucket this stack owns; the keys (job ids) exist only at run time.`,
      });
    }
  }

  /** The functions by name. */
  get functions(): Readonly<Record<PipelineFunctionName, nodejs.NodejsFunction>> {
    return { intake: this.intakeFunction, worker: this.workerFunction, finalize: this.finalizeFunction };
  }
}

function pascal(name: string): string {
  return `${name[0]?.toUpperCase() ?? ''}${name.slice(1)}`;
}

/**
 * Checks a queue against the function that drains it: Lambda's timeout, batch size and event
 * source concurrency limits, and a visibility timeout of at least six times the function's
 * timeout, as AWS advises for SQS event sources
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-configure-lambda-function-trigger.html).
 */
function validateConsumer(scope: IConstruct, name: PipelineFunctionName, q: QueueSettings): void {
  const timeout = checkRange(
    scope,
    `PipelineFunctions ${name} timeout (consumerTimeoutSeconds)`,
    q.consumerTimeoutSeconds,
    {
      min: 1,
      max: 900,
      unit: 's',
    },
  );
  // Six times a timeout known only at deploy time is not known here either.
  if (!Token.isUnresolved(timeout)) {
    checkRange(
      scope,
      `PipelineFunctions ${name}: queue '${q.name}' visibility timeout`,
      q.visibilityTimeoutSeconds,
      {
        min: 6 * timeout,
        unit: 's',
        why: '6 × the function timeout',
      },
    );
  }
  checkRange(scope, `PipelineFunctions ${name} batchSize`, q.batchSize, { min: 1, max: 10 });
  checkRange(scope, `PipelineFunctions ${name} maxConcurrency`, q.maxConcurrency, {
    min: 2,
    max: 1000,
    why: "Lambda's limits",
  });
}
