import { Logger } from '@aws-lambda-powertools/logger';
import { type DlqDeps, type TriageSummary, triageDeadLetters } from '../core/dlq/index.js';
import { loadOperationsConfig } from '../shared/ops-config.js';
import { createSnsClient, dlqDeps } from '../shared/ops-runtime.js';
import { createClients } from '../shared/runtime.js';

const logger = new Logger({ serviceName: 'clause-review-dlq-triage' });
let deps: DlqDeps | undefined;

/** DLQ triage, run by an EventBridge schedule every 15 minutes and on demand from the CLI. */
export async function handler(): Promise<
  Pick<TriageSummary, 'seen' | 'escalated'> & { decisions: string[] }
> {
  deps ??= dlqDeps(
    loadOperationsConfig(),
    { ...createClients(), sns: createSnsClient() },
    {
      log: (event, fields) => logger.info(event, fields),
    },
  );
  const summary = await triageDeadLetters(deps);
  const decisions = summary.decisions.map(
    (d) => `${d.queue}/${d.jobId ?? '-'}/${d.chunk ?? '-'}: ${d.errorClass} ${d.decision}`,
  );
  logger.info('triage', { seen: summary.seen, escalated: summary.escalated, decisions });
  return { seen: summary.seen, escalated: summary.escalated, decisions };
}
