import { SNSClient } from '@aws-sdk/client-sns';
import type { DlqDeps } from '../core/dlq/index.js';
import { byLane } from '../core/lanes-and-limits.js';
import type { SweeperDeps } from '../core/sweeper/index.js';
import { clientConfig } from './aws-clients.js';
import { type OperationsConfig, queuesOf } from './ops-config.js';
import type { RuntimeClients } from './runtime.js';

/** An SNS client with the same connection settings as the other clients. */
export function createSnsClient(): SNSClient {
  const { forcePathStyle: _unused, ...common } = clientConfig();
  return new SNSClient(common);
}

/** Sweeper dependencies from the operations configuration. */
export function sweeperDeps(
  c: OperationsConfig,
  clients: RuntimeClients,
  extra: Partial<SweeperDeps> = {},
): SweeperDeps {
  return {
    db: clients.db,
    sqs: clients.sqs,
    s3: clients.s3,
    tableName: c.TABLE_NAME,
    statusIndexName: c.STATUS_INDEX_NAME,
    resultsBucket: c.RESULTS_BUCKET,
    laneQueueUrls: c.QUEUE_URLS,
    finalizeQueueUrl: c.QUEUE_URLS.finalize,
    rules: {
      quietMs: byLane((lane) => c.SWEEP_QUIET_SECONDS[lane] * 1000),
      finalizeQuietMs: c.SWEEP_FINALIZE_QUIET_SECONDS * 1000,
      maxReceiveCount: c.CHUNK_MAX_RECEIVE_COUNT,
      maxSpacingFactor: 8,
    },
    ...extra,
  };
}

/** DLQ triage dependencies from the operations configuration. */
export function dlqDeps(
  c: OperationsConfig,
  clients: Pick<RuntimeClients, 'db' | 'sqs'> & { sns: SNSClient },
  extra: Partial<DlqDeps> = {},
): DlqDeps {
  return {
    db: clients.db,
    sqs: clients.sqs,
    sns: clients.sns,
    tableName: c.TABLE_NAME,
    alertsTopicArn: c.ALERTS_TOPIC_ARN,
    ...queuesOf(c),
    maxRedrives: c.DLQ_MAX_REDRIVES,
    ...extra,
  };
}
