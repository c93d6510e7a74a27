import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type FinalizeDeps, finalizeJob } from '../core/finalize/finalize.js';
import { finalizeMessageSchema } from '../core/worker/chunk-message.js';
import { loadConfig } from '../shared/config.js';
import { createClients, finalizeDeps } from '../shared/runtime.js';

const logger = new Logger({ serviceName: 'clause-review-finalize' });
let deps: FinalizeDeps | undefined;

/** Lets tests and the local runtime inject dependencies instead of reading the environment. */
export function configureFinalize(injected: FinalizeDeps): void {
  deps = injected;
}

function ensureDeps(): FinalizeDeps {
  deps ??= finalizeDeps(loadConfig(), createClients());
  return deps;
}

async function recordHandler(record: SQSRecord): Promise<void> {
  const { jobId } = finalizeMessageSchema.parse(JSON.parse(record.body));
  const result = await finalizeJob(jobId, ensureDeps());
  logger.info('finalize', { jobId, finalized: result.finalized, status: result.report?.job.status });
}

/** Finalize: writes the reports once every chunk of a job is terminal. */
export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  return processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), { context });
}
