/**
 * What `review` does for a round of a negotiation, and for a review held for approvers, on its
 * embedded stack: `--against FILE` uploads our version beside the documents (`against/NAME`, which
 * intake compares with and makes no job of), `--against JOB_ID` names a job of this run's stack;
 * and a job whose playbook escalations or gate hold it for people the embedded stack does not have
 * has its review closed as its deadline would close it, so the report says what is undecided.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { sendFinalize } from '../../lambdas/core/finalize-queue.js';
import type { Job } from '../../lambdas/core/state/job.js';
import { CliError } from './cli-error.js';
import type { Session } from './review-session.js';

/** An earlier job's id, as `--against` may give one. */
const JOB_ID = /^j-[0-9a-f]{20}$/;

/**
 * The `against` metadata of the run's uploads for `--against FILE|JOB_ID`: the file uploaded
 * first (beside the documents, under the intake prefix), or the job checked to be this stack's.
 *
 * @throws CliError when the file cannot be read, or the job is not in this run's stack
 */
export async function againstBeforeUpload(
  { stack, pipeline, stores: { jobs } }: Session,
  given: string,
): Promise<string> {
  if (JOB_ID.test(given)) {
    if (!(await jobs.find(given)))
      throw new CliError(
        `--against: job ${given} is not in this run's local stack (each review starts a fresh one): give our version's file instead`,
      );
    return given;
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(given);
  } catch (error) {
    throw new CliError(`--against: cannot read ${given}: ${(error as Error).message}`);
  }
  const name = basename(given);
  const key = `${stack.resources.intakePrefix}against/${name}`;
  await pipeline.clients.s3.send(
    new PutObjectCommand({ Bucket: stack.resources.intakeBucket, Key: key, Body: bytes }),
  );
  console.log(
    `our version ${given} → s3://${stack.resources.intakeBucket}/${key} (compared with, not reviewed)`,
  );
  return `file:${name}`;
}

/**
 * Closes the review of a job held for approvers, as its deadline would, and sends finalize: the
 * embedded stack has no approver groups and no second person, so nobody else could. Returns a
 * line to print when it closed one.
 */
export async function closeHeldReview(
  { stack, pipeline, stores }: Session,
  job: Job,
): Promise<string | undefined> {
  if (job.status !== 'awaiting_review' || job.reviewCompletedAt || job.reviewExpiredAt) return undefined;
  if (!(await stores.holds.closeReview(job.jobId, 'expired'))) return undefined;
  await sendFinalize(
    { sqs: pipeline.clients.sqs, finalizeQueueUrl: stack.resources.queueUrls.finalize },
    job.jobId,
  );
  const groups = job.approverGroups?.length ? ` for ${job.approverGroups.join(', ')}` : '';
  return (
    `job ${job.jobId}: ${job.gatedFindings ?? 0} finding(s) held${groups}; the embedded stack has no approvers, ` +
    "so the report lists them as undecided ('clause-review local up' keeps a stack where people decide them in the reviewer app)"
  );
}
