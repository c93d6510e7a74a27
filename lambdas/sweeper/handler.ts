import { Logger } from '@aws-lambda-powertools/logger';
import { type SweeperDeps, type SweepSummary, sweep } from '../core/sweeper/index.js';
import { loadOperationsConfig } from '../shared/ops-config.js';
import { sweeperDeps } from '../shared/ops-runtime.js';
import { createClients } from '../shared/runtime.js';

const logger = new Logger({ serviceName: 'clause-review-sweeper' });
let deps: SweeperDeps | undefined;

/** The sweeper, run by an EventBridge schedule every minute (the event carries nothing it needs). */
export async function handler(): Promise<SweepSummary> {
  deps ??= sweeperDeps(loadOperationsConfig(), createClients(), {
    log: (event, fields) => logger.info(event, fields),
  });
  const summary = await sweep(deps);
  logger.info('sweep', {
    jobsSeen: summary.jobsSeen,
    resent: summary.resent.length,
    expired: summary.expired.length,
    finalizeEnqueued: summary.finalizeEnqueued.length,
  });
  return summary;
}
