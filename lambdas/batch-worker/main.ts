/**
 * Lane worker process (a Fargate task, or a child process of the local runtime): polls the
 * queue of the lane POLLER_LANE names (the batch lane unless set) until SIGTERM, then lets
 * chunks in progress finish.
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { isLane, LANE_CHOICES } from '../core/lanes-and-limits.js';
import { PutMetricDataMetrics } from '../core/metrics/index.js';
import { runPoller } from '../core/worker/poller.js';
import { loadConfig, panelModelsOf } from '../shared/config.js';
import { createClients, lifecycleGuard, reportModelLifecycle, workerDeps } from '../shared/runtime.js';

const config = loadConfig();
const lane = process.env.POLLER_LANE ?? 'batch';
if (!isLane(lane)) throw new Error(`POLLER_LANE must be ${LANE_CHOICES}; got '${lane}'`);
const queueUrl = config.QUEUE_URLS[lane];
const stop = new AbortController();
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => stop.abort());

// A local run's worker is a child of the command that started it (PARENT_PID): if that command
// is killed outright, no one would stop this process, so it leaves with its parent. The ledger
// makes the chunks it abandons safe to take over.
const parentPid = Number(process.env.PARENT_PID ?? 0);
if (parentPid > 0) {
  setInterval(() => {
    try {
      process.kill(parentPid, 0);
    } catch {
      process.exit(1);
    }
  }, 1000).unref();
}

const log = (event: string, fields: Record<string, unknown>) =>
  process.stdout.write(
    `${JSON.stringify({ level: 'info', event, ...fields, at: new Date().toISOString() })}\n`,
  );

// Fargate's awslogs driver does not mark log lines as Embedded Metric Format, so CloudWatch would
// not extract EMF here: the process sends its metrics with PutMetricData. METRICS_FLUSH_SECONDS=0
// turns them off. The SDK honours AWS_ENDPOINT_URL, so local runs send them to the emulator.
const flushSeconds = Number(process.env.METRICS_FLUSH_SECONDS ?? 30);
if (!(flushSeconds >= 0 && Number.isFinite(flushSeconds))) {
  throw new Error(
    `METRICS_FLUSH_SECONDS must be a number of seconds ≥ 0; got '${process.env.METRICS_FLUSH_SECONDS}'`,
  );
}
const metrics =
  flushSeconds > 0
    ? new PutMetricDataMetrics({
        client: new CloudWatchClient({}),
        flushIntervalMs: flushSeconds * 1000,
        onError: (error, datums) => log('metrics-failed', { datums, error: String(error) }),
      })
    : undefined;
const clients = createClients();
const deps = workerDeps(config, clients, { log, ...(metrics ? { metrics } : {}) });
// Once per start: a retired or legacy model is said in the log before its calls fail.
void reportModelLifecycle(lifecycleGuard(clients), panelModelsOf(config), {
  error: (m, f) => log(m, { level: 'error', ...f }),
  warn: (m, f) => log(m, { level: 'warn', ...f }),
});
log('poller-start', { workerId: deps.workerId, lane, queueUrl });
await runPoller(deps, {
  queueUrl,
  concurrency: Number(process.env.POLLER_CONCURRENCY ?? 2),
  waitSeconds: Number(process.env.POLLER_WAIT_SECONDS ?? 20),
  signal: stop.signal,
  onDisposition: (delivery, outcome) => log('chunk', { messageId: delivery.messageId, outcome }),
});
await metrics?.close();
log('poller-stop', { workerId: deps.workerId });
