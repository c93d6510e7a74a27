import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { LANES } from '../core/lanes-and-limits.js';
import { EmfMetrics } from '../core/metrics/index.js';
import { applyRetryVisibility } from '../core/worker/disposition.js';
import { processChunk, type WorkerDeps } from '../core/worker/process-chunk.js';
import { loadConfig, panelModelsOf } from '../shared/config.js';
import { createClients, lifecycleGuard, reportModelLifecycle, workerDeps } from '../shared/runtime.js';
import { deliveryOf } from '../shared/sqs-records.js';

const logger = new Logger({ serviceName: 'clause-review-worker' });
/** Embedded Metric Format, flushed at the end of every invocation. */
const metrics = new EmfMetrics();
let deps: WorkerDeps | undefined;
let queueUrls: string[] = [];

/** Lets tests and the local runtime inject dependencies instead of reading the environment. */
export function configureWorker(injected: WorkerDeps, urls: string[]): void {
  deps = injected;
  queueUrls = urls;
}

function ensureDeps(): WorkerDeps {
  if (!deps) {
    const config = loadConfig();
    const clients = createClients();
    deps = workerDeps(config, clients, {
      log: (event, fields) => logger.info(event, fields),
      metrics,
    });
    // Once per cold start: a retired or legacy model is said in the log before its calls fail.
    void reportModelLifecycle(lifecycleGuard(clients), panelModelsOf(config), logger);
    queueUrls = LANES.map((lane) => config.QUEUE_URLS[lane]);
  }
  return deps;
}

/** A record that is not acknowledged: the batch processor reports it as a failure. */
class NotAcknowledged extends Error {
  override readonly name = 'NotAcknowledged';
}

async function recordHandler(record: SQSRecord): Promise<string> {
  const d = ensureDeps();
  const delivery = deliveryOf(record, queueUrls);
  const disposition = await processChunk(delivery, d);
  if (disposition.action === 'ack') return disposition.outcome;
  await applyRetryVisibility(d.sqs, delivery, disposition);
  logger.info('chunk-retry', { messageId: delivery.messageId, reason: disposition.reason });
  throw new NotAcknowledged(disposition.reason);
}

/**
 * Realtime-lane chunk worker: SQS event source with partial batch responses. A chunk that
 * must come back later is an expected outcome, not an invocation error, even when every
 * record of the batch is one: the response lists them and the handler does not throw.
 */
export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  try {
    return await processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), {
      context,
      throwOnFullBatchFailure: false,
    });
  } finally {
    // An invocation's metrics leave with it: a frozen sandbox may never run again.
    await deps?.metrics?.flush();
  }
}
