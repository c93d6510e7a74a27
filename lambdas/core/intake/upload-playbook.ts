/**
 * The playbook an upload names, as intake resolves it: the stored version (its latest when the
 * upload names none), or why the job is refused: a playbook or version the stack does not hold
 * (`unknown-playbook`), or a contract type the playbook does not list (`invalid-options`).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { contractTypeIssue, isPlaybookNotFoundError, type StoredPlaybook } from '../playbooks/index.js';
import type { JobRejection } from '../state/job-rejections.js';
import { storesOf } from '../stores.js';
import type { JobOptions } from './job-options.js';

/** The stored playbook, or the refusal; undefined for an upload that names none. */
export async function uploadPlaybook(
  deps: { readonly db: DynamoDBDocumentClient; readonly tableName: string },
  options: Pick<JobOptions, 'playbook' | 'contractType'>,
): Promise<{ stored: StoredPlaybook } | { refused: string; rejection: JobRejection } | undefined> {
  if (!options.playbook) return undefined;
  let stored: StoredPlaybook;
  try {
    stored = await storesOf(deps).playbooks.get(options.playbook);
  } catch (error) {
    if (!isPlaybookNotFoundError(error)) throw error;
    return { refused: `the 'playbook' option is not valid: ${error.message}`, rejection: 'unknown-playbook' };
  }
  const typeIssue = contractTypeIssue(stored.playbook, options.contractType);
  return typeIssue ? { refused: typeIssue, rejection: 'invalid-options' } : { stored };
}
