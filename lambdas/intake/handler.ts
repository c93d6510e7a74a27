import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type IntakeDeps, intakeObject } from '../core/intake/intake.js';
import { objectsCreated } from '../core/intake/s3-event.js';
import { loadConfig } from '../shared/config.js';
import { createClients, intakeDeps, lifecycleGuard } from '../shared/runtime.js';

const logger = new Logger({ serviceName: 'clause-review-intake' });
let deps: IntakeDeps | undefined;

/** Lets tests and the local runtime inject dependencies instead of reading the environment. */
export function configureIntake(injected: IntakeDeps): void {
  deps = injected;
}

function ensureDeps(): IntakeDeps {
  if (!deps) {
    const clients = createClients();
    deps = intakeDeps(loadConfig(), clients, { lifecycle: lifecycleGuard(clients) });
  }
  return deps;
}

async function recordHandler(record: SQSRecord): Promise<void> {
  const d = ensureDeps();
  for (const ref of objectsCreated(record.body)) {
    const result = await intakeObject(ref, d);
    logger.info('intake', { key: ref.key, ...result });
  }
}

/** Intake: S3 event notifications arrive through the intake queue. */
export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  return processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), { context });
}
