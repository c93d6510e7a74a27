import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { warmParserThread } from '../core/documents/index.js';
import { isIntakeDeferredError } from '../core/intake/errors.js';
import { type IntakeDeps, intakeObject } from '../core/intake/intake.js';
import { routedObject, routesFirst, routeToOwner } from '../core/intake/owner-route.js';
import { objectsCreated } from '../core/intake/s3-event.js';
import { applyRetryVisibility } from '../core/worker/disposition.js';
import { loadConfig } from '../shared/config.js';
import { createClients, intakeDeps, lifecycleGuard, shapeGuard } from '../shared/runtime.js';
import { deliveryOf } from '../shared/sqs-records.js';

const logger = new Logger({ serviceName: 'clause-review-intake' });
let deps: IntakeDeps | undefined;

/** Lets tests and the local runtime inject dependencies instead of reading the environment. */
export function configureIntake(injected: IntakeDeps): void {
  deps = injected;
  warmParserThread();
}

function ensureDeps(): IntakeDeps {
  if (!deps) {
    const clients = createClients();
    const config = loadConfig();
    // The first intake of the stack sends each model the workers' request once and records the
    // answer; a job whose models refused it is rejected with the fix named.
    const shapes = shapeGuard(config, clients, (message, fields) => logger.warn(message, fields));
    deps = intakeDeps(config, clients, { lifecycle: lifecycleGuard(clients), shapes });
    warmParserThread();
  }
  return deps;
}

// In Lambda the parser thread starts during the function's initialisation, not in the first upload's time.
if (process.env.AWS_LAMBDA_FUNCTION_NAME) ensureDeps();

/**
 * An upload routed to its owner is taken in; an S3 event's uploads are first routed to their
 * owners (a HeadObject, the owner's slot count and a SendMessage each) when the event waited
 * behind others on the queue (`routesFirst`) and the owner has no slot free (`routeToOwner`), and
 * taken in at once otherwise or when no intake queue is configured. An intake deferred because a
 * busy machine cut its parse short leaves its message to come back after the backoff (a failed
 * record of the batch, its visibility set to the delay).
 */
async function recordHandler(record: SQSRecord): Promise<void> {
  const d = ensureDeps();
  const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? '1');
  try {
    const routed = routedObject(record.body);
    if (routed) {
      const result = await intakeObject(routed, d, receiveCount);
      logger.info('intake', { key: routed.ref.key, ...result });
      return;
    }
    for (const ref of objectsCreated(record.body)) {
      const routing =
        d.intakeQueueUrl && routesFirst(record.attributes?.SentTimestamp, Date.now())
          ? await routeToOwner(ref, { ...d, intakeQueueUrl: d.intakeQueueUrl })
          : undefined;
      if (routing?.routed) {
        logger.info('routed', { key: ref.key, ...(routing.owner ? { owner: routing.owner } : {}) });
      } else {
        const result = await intakeObject(routing?.upload ?? ref, d, receiveCount);
        logger.info('intake', { key: ref.key, ...result });
      }
    }
  } catch (error) {
    if (isIntakeDeferredError(error) && d.intakeQueueUrl) {
      const visibilitySeconds = error.retryAfterSeconds;
      await applyRetryVisibility(d.sqs, deliveryOf(record, [d.intakeQueueUrl]), {
        action: 'retry',
        reason: error.message,
        visibilitySeconds,
      });
      logger.info('intake-deferred', { jobId: error.jobId, receiveCount, visibilitySeconds });
    } else {
      logger.error('intake-failed', { messageId: record.messageId, receiveCount, error: error as Error });
    }
    throw error;
  }
}

/**
 * Intake: S3 event notifications arrive through the intake queue, then each upload as its owner's
 * message. A deferred intake is an expected outcome, not an invocation error, even when every
 * record of the batch is one: the response lists the records to come back, and the handler does
 * not throw.
 */
export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  return processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), {
    context,
    throwOnFullBatchFailure: false,
  });
}
