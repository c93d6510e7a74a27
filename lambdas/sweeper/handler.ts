import { Logger } from '@aws-lambda-powertools/logger';
import { EmfMetrics } from '../core/metrics/index.js';
import { type SweeperDeps, type SweepSummary, sweep } from '../core/sweeper/index.js';
import { loadOperationsConfig } from '../shared/ops-config.js';
import { createSnsClient, sweeperDeps } from '../shared/ops-runtime.js';
import { createClients } from '../shared/runtime.js';

const logger = new Logger({ serviceName: 'clause-review-sweeper' });
let deps: SweeperDeps | undefined;

/** The sweeper, run by an EventBridge schedule every minute (the event carries nothing it needs). */
export async function handler(): Promise<SweepSummary> {
  if (!deps) {
    const config = loadOperationsConfig();
    deps = sweeperDeps(config, createClients(), {
      log: (event, fields) => logger.info(event, fields),
      alerts: { sns: createSnsClient(), topicArn: config.ALERTS_TOPIC_ARN },
      metrics: new EmfMetrics(),
    });
  }
  const summary = await sweep(deps);
  logger.info('sweep', {
    jobsSeen: summary.jobsSeen,
    resent: summary.resent.length,
    expired: summary.expired.length,
    finalizeEnqueued: summary.finalizeEnqueued.length,
    reviewsExpired: summary.reviewsExpired.length,
    ...summary.held,
  });
  return summary;
}
