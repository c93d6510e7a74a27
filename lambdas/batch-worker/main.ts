/**
 * Batch-lane worker process (a Fargate task, or a child process of the local runtime):
 * polls the batch queue until SIGTERM, then lets chunks in progress finish.
 */
import { runPoller } from '../core/worker/poller.js';
import { loadConfig } from '../shared/config.js';
import { createClients, workerDeps } from '../shared/runtime.js';

const config = loadConfig();
const stop = new AbortController();
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => stop.abort());

const log = (event: string, fields: Record<string, unknown>) =>
  process.stdout.write(
    `${JSON.stringify({ level: 'info', event, ...fields, at: new Date().toISOString() })}\n`,
  );

const deps = workerDeps(config, createClients(), { log });
log('poller-start', { workerId: deps.workerId, queueUrl: config.BATCH_QUEUE_URL });
await runPoller(deps, {
  queueUrl: config.BATCH_QUEUE_URL,
  concurrency: Number(process.env.POLLER_CONCURRENCY ?? 2),
  waitSeconds: Number(process.env.POLLER_WAIT_SECONDS ?? 20),
  signal: stop.signal,
  onDisposition: (delivery, outcome) => log('chunk', { messageId: delivery.messageId, outcome }),
});
log('poller-stop', { workerId: deps.workerId });
