import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Job } from './job.js';
import { JOB_SK, jobPk } from './keys.js';

/**
 * Records the panel intake leaves a job with, once it has read the document: the analysts to
 * ask, those a playbook left out and why, the contract type, and how many pairs of clause and
 * analyst the relevance screen leaves out, and the contract's parties with the side a playbook's
 * review takes. Written again alike by an
 * intake that is resumed.
 */
export async function recordJobPanel(
  db: DynamoDBDocumentClient,
  tableName: string,
  jobId: string,
  panel: Pick<Job, 'analysts'> &
    Partial<Pick<Job, 'contractType' | 'notAsked' | 'callsScreened' | 'parties'>>,
  now: () => number,
): Promise<void> {
  const set = ['analysts = :analysts', 'updatedAt = :at'];
  const values: Record<string, unknown> = {
    ':analysts': panel.analysts,
    ':at': new Date(now()).toISOString(),
  };
  if (panel.contractType) {
    set.push('contractType = :type');
    values[':type'] = panel.contractType;
  }
  if (panel.callsScreened) {
    set.push('callsScreened = :screened');
    values[':screened'] = panel.callsScreened;
  }
  if (panel.parties && (panel.parties.found.length > 0 || panel.parties.problem)) {
    set.push('parties = :parties');
    values[':parties'] = panel.parties;
  }
  if (panel.notAsked && panel.notAsked.length > 0) {
    set.push('notAsked = :notAsked');
    values[':notAsked'] = panel.notAsked;
  }
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { pk: jobPk(jobId), sk: JOB_SK },
      UpdateExpression: `SET ${set.join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: values,
    }),
  );
}
