/**
 * The analysts a chunk's calls go to: the job's, with the models it was started with, and in a
 * review against a playbook each with the positions of its categories for the job's contract
 * type. Intake already left out the analysts the playbook gives nothing to judge.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type AnalystDefinition, withPositions } from '../analysts/index.js';
import { contractNamesOf, positionBriefs } from '../playbooks/index.js';
import type { Job } from '../state/job.js';
import { storesOf } from '../stores.js';

/** Gives the panel of a job its playbook's positions; the panel as it was without a playbook. */
export async function withJobPlaybook(
  panel: readonly AnalystDefinition[],
  job: Pick<Job, 'playbook' | 'contractType' | 'parties'>,
  deps: { readonly db: DynamoDBDocumentClient; readonly tableName: string },
): Promise<readonly AnalystDefinition[]> {
  if (!job.playbook) return panel;
  const playbook = await storesOf(deps).playbooks.forJob(job.playbook);
  return withPositions(panel, {
    party: playbook.party,
    positions: positionBriefs(playbook, job.contractType?.type),
    names: contractNamesOf(job.parties),
  });
}
