import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type FinalizeDeps, finalizeJob } from '../core/finalize/finalize.js';
import { EmfMetrics, type PipelineMetrics } from '../core/metrics/index.js';
import { finalizeMessageSchema } from '../core/worker/chunk-message.js';
import { loadConfig } from '../shared/config.js';
import { createClients, finalizeDeps } from '../shared/runtime.js';

const logger = new Logger({ serviceName: 'clause-review-finalize' });
let deps: FinalizeDeps | undefined;
/** Embedded Metric Format, flushed at the end of every invocation. */
let metrics: PipelineMetrics | undefined = new EmfMetrics();

/**
 * Lets tests and the local runtime inject dependencies instead of reading the environment.
 * Injected dependencies come without metrics unless `injectedMetrics` is given.
 */
export function configureFinalize(injected: FinalizeDeps, injectedMetrics?: PipelineMetrics): void {
  deps = injected;
  metrics = injectedMetrics;
}

function ensureDeps(): FinalizeDeps {
  deps ??= finalizeDeps(loadConfig(), createClients());
  return deps;
}

async function recordHandler(record: SQSRecord): Promise<void> {
  const { jobId } = finalizeMessageSchema.parse(JSON.parse(record.body));
  const result = await finalizeJob(jobId, ensureDeps());
  logger.info('finalize', {
    jobId,
    finalized: result.finalized,
    status: result.report?.job.status,
    ...(result.docx ? { docx: { source: result.docx.source, comments: result.docx.comments } } : {}),
  });
  if (result.docx?.fallback) {
    logger.warn('report.docx was generated from the text: the uploaded DOCX could not be used', {
      jobId,
      reason: result.docx.fallback,
    });
  }
  if (result.finalized && result.report) {
    metrics?.job({ lane: result.report.job.lane, costSpentMicros: result.report.cost.spentMicros });
  }
}

/** Finalize: writes the reports once every chunk of a job is terminal. */
export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  try {
    return await processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), { context });
  } finally {
    await metrics?.flush();
  }
}
