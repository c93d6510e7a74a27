import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { SNSClient } from '@aws-sdk/client-sns';
import type { IntakeDeps } from '../../lambdas/core/intake/intake.js';
import { LANES, type Lane, lanesConsumedBy, type QueueRole } from '../../lambdas/core/lanes-and-limits.js';
import { LifecycleGuard } from '../../lambdas/core/model-lifecycle.js';
import { type SweeperDeps, type SweepRules, sweep, sweepRules } from '../../lambdas/core/sweeper/index.js';
import type { WorkerDeps } from '../../lambdas/core/worker/process-chunk.js';
import { configureFinalize, handler as finalizeHandler } from '../../lambdas/finalize/handler.js';
import { configureIntake, handler as intakeHandler } from '../../lambdas/intake/handler.js';
import { clientConfig, EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { loadConfig } from '../../lambdas/shared/config.js';
import {
  createClients,
  finalizeDeps,
  intakeDeps,
  type RuntimeClients,
  workerDeps,
} from '../../lambdas/shared/runtime.js';
import { configureWorker, handler as workerHandler } from '../../lambdas/worker/handler.js';
import { SWEEP_EVERY_MINUTES, type Topology } from '../../lib/topology.js';
import { LOCAL_REGION } from '../aws-clients.js';
import type { ProvisionedResources } from '../provision.js';
import { PROJECT_ROOT } from '../python-venv.js';
import { LocalSqsEventSource } from './event-source.js';
import { type LocalRunSettings, localEnvironment } from './local-env.js';

/** Options of {@link startLocalPipeline}. */
export interface LocalPipelineOptions {
  readonly awsEndpoint: string;
  readonly bedrockEndpoint: string;
  readonly topology: Topology;
  readonly resources: ProvisionedResources;
  readonly settings: LocalRunSettings;
  /** Worker processes of each lane drained by pollers (real child processes, as Fargate tasks are). @default 2 */
  readonly batchWorkers?: number;
  /** Concurrent invocations of each Lambda-drained lane. @default the topology's maxConcurrency */
  readonly realtimeConcurrency?: number;
  /** Shown at the top of every report. */
  readonly notice?: string;
  /** Extra worker dependencies for the in-process realtime lane (tests). */
  readonly workerOverrides?: Partial<WorkerDeps>;
  /** Extra intake dependencies (tests: the parse's limits). */
  readonly intakeOverrides?: Partial<IntakeDeps>;
  readonly log?: (line: string) => void;
  /**
   * How often the in-process sweeper runs; 0 turns it off. @default the deployed schedule's
   * (`SWEEP_EVERY_MINUTES`): a sweep queries every running job's checkpoints, and more sweeps
   * than the deployed stack makes would load the ground with reads it never sees
   */
  readonly sweepIntervalMs?: number;
  /** Overrides of the sweeper's timing (tests shorten the quiet periods). @default from the topology and lease */
  readonly sweepRules?: Partial<SweepRules>;
}

/** A running local pipeline. */
export interface LocalPipeline {
  readonly env: Record<string, string>;
  readonly clients: RuntimeClients;
  /** The realtime lane's limiters (one per model), for benches that watch them. */
  readonly limiters: WorkerDeps['limiters'];
  /** The poller worker processes, for tests that kill one. */
  readonly batchWorkers: ChildProcess[];
  /** Starts another poller worker process for `lane` (the first lane drained by pollers). */
  addBatchWorker(lane?: Lane): ChildProcess;
  stop(): Promise<void>;
}

/** A poller worker process for `lane`, as a Fargate task runs it, that leaves with this process. */
function spawnBatchWorker(
  env: Record<string, string>,
  lane: Lane,
  log: (line: string) => void,
): ChildProcess {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(PROJECT_ROOT, 'lambdas/batch-worker/main.ts')],
    {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        ...env,
        POLLER_WAIT_SECONDS: '1',
        POLLER_CONCURRENCY: '2',
        POLLER_LANE: lane,
        PARENT_PID: String(process.pid),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stderr?.on('data', (d: Buffer) => log(`batch worker ${child.pid}: ${d.toString().trim()}`));
  child.stdout?.resume();
  return child;
}

/**
 * Runs the deployed topology's handlers locally: intake, the realtime worker and finalize
 * in this process behind local SQS event sources (batches, partial failures, visibility, as
 * Lambda does), and the batch lane as separate poller processes (as Fargate tasks).
 */
export function startLocalPipeline(options: LocalPipelineOptions): LocalPipeline {
  const { resources, topology: t } = options;
  const env = localEnvironment(options.awsEndpoint, options.bedrockEndpoint, resources, options.settings);
  const config = loadConfig(env);
  const clients = createClients({
    endpoint: options.awsEndpoint,
    bedrockEndpoint: options.bedrockEndpoint,
    region: LOCAL_REGION,
    credentials: EMULATOR_CREDENTIALS,
    // Every realtime invocation of the run shares this process (in Lambda each has its own).
    maxSockets: 256,
  });
  const log = options.log ?? (() => {});
  // The guard asks the stand-in's control plane; a short memory lets a test change a model's
  // lifecycle and see the next upload refused.
  configureIntake(
    intakeDeps(config, clients, {
      lifecycle: new LifecycleGuard(clients.bedrockControl, LOCAL_REGION, 1000),
      ...options.intakeOverrides,
    }),
  );
  // Stopping the pipeline aborts the realtime lane's chunks in progress (as a Lambda timeout or
  // shutdown would): their leases are released and the ledger keeps what they finished.
  const shutdown = new AbortController();
  const realtimeDeps = workerDeps(config, clients, { signal: shutdown.signal, ...options.workerOverrides });
  configureWorker(
    realtimeDeps,
    LANES.map((lane) => config.QUEUE_URLS[lane]),
  );
  configureFinalize(finalizeDeps(config, clients, options.notice ? { notice: options.notice } : {}));

  const source = (role: QueueRole, handler: typeof intakeHandler, concurrency?: number) =>
    new LocalSqsEventSource({
      sqs: clients.sqs,
      queueUrl: resources.queueUrls[role],
      queueArn: resources.queueArns[role],
      region: LOCAL_REGION,
      handler,
      batchSize: t.queues[role].batchSize,
      maxConcurrency: concurrency ?? t.queues[role].maxConcurrency,
      onInvoke: ({ error }) => {
        if (error) log(`${role} handler error: ${String(error)}`);
      },
    }).start();
  const sources = [
    source('intake', intakeHandler, 2),
    ...lanesConsumedBy('lambda').map((lane) => source(lane, workerHandler, options.realtimeConcurrency)),
    source('finalize', finalizeHandler, 1),
  ];

  const batchWorkers: ChildProcess[] = [];
  const addBatchWorker = (lane: Lane = lanesConsumedBy('poller')[0] ?? 'batch') => {
    const child = spawnBatchWorker(env, lane, log);
    batchWorkers.push(child);
    return child;
  };
  for (const lane of lanesConsumedBy('poller')) {
    for (let i = 0; i < (options.batchWorkers ?? 2); i++) addBatchWorker(lane);
  }
  const stopSweeper = startSweeper(options, config, clients, log);

  return {
    env,
    clients,
    limiters: realtimeDeps.limiters,
    batchWorkers,
    addBatchWorker,
    async stop() {
      shutdown.abort();
      await stopSweeper();
      await Promise.all(sources.map((s) => s.stop()));
      await Promise.all(
        batchWorkers.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 5000).unref();
            }),
        ),
      );
      for (const c of [clients.sqs, clients.s3, clients.bedrock]) c.destroy();
    },
  };
}

/**
 * Runs the sweeper in this process every `sweepIntervalMs`, as the EventBridge schedule does
 * when deployed; one sweep at a time. Returns a stop function that waits for a running sweep.
 */
function startSweeper(
  options: LocalPipelineOptions,
  config: ReturnType<typeof loadConfig>,
  clients: RuntimeClients,
  log: (line: string) => void,
): () => Promise<void> {
  const every = options.sweepIntervalMs ?? SWEEP_EVERY_MINUTES * 60_000;
  if (every <= 0) return async () => {};
  const { resources, topology: t } = options;
  const rules = { ...sweepRules(t, config.LEASE_SECONDS * 1000), ...options.sweepRules };
  const { forcePathStyle: _unused, ...connection } = clientConfig({
    endpoint: options.awsEndpoint,
    region: LOCAL_REGION,
    credentials: EMULATOR_CREDENTIALS,
  });
  const sns = new SNSClient(connection);
  const deps: SweeperDeps = {
    db: clients.db,
    sqs: clients.sqs,
    s3: clients.s3,
    alerts: { sns, topicArn: resources.alertsTopicArn },
    tableName: resources.tableName,
    statusIndexName: t.table.indexes[0]?.name ?? 'byStatus',
    resultsBucket: resources.resultsBucket,
    laneQueueUrls: resources.queueUrls,
    finalizeQueueUrl: resources.queueUrls.finalize,
    rules,
    log: (event: string, fields: Record<string, unknown>) => log(`${event} ${JSON.stringify(fields)}`),
  };
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    // A sweep slower than the interval is not stacked on: the next tick finds it running.
    running ??= sweep(deps)
      .catch((error) => log(`sweeper error: ${String(error)}`))
      .finally(() => {
        running = undefined;
      });
  }, every);
  timer.unref?.();
  return async () => {
    clearInterval(timer);
    await running;
    sns.destroy();
  };
}
