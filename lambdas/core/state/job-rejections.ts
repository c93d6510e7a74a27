import type { RejectionReason } from '../documents/errors.js';

/**
 * Why intake rejects a job for something other than its document, each with what it means. With
 * the document reasons ({@link RejectionReason}) this is every value a rejected job's
 * `rejection` may hold: a new one is an entry here, and the compiler refuses any other.
 */
export const JOB_REJECTIONS = {
  'budget-below-quote':
    "the cost ceiling is below the job's expected cost, and partial review was not asked for",
  deleted: 'the object was deleted before intake could read it',
  'invalid-options': "the upload's options (metadata) are not valid",
  'model-unavailable': 'a model the job would use has reached end of life or is not offered in the region',
  'unknown-playbook': 'the upload names a playbook, or a version of one, that the stack does not hold',
  'unknown-version':
    "the upload names a version it answers (an earlier job, or a file beside it) that cannot be read, or is not its owner's",
  'parse-timeout-under-load':
    'the service was too busy to read the document on every try (it did not run out of its own processing time)',
  'daily-spend-cap':
    "the most the job may spend is more than its owner may spend in a day (the stack's daily spend cap per owner)",
} as const satisfies Record<string, string>;

/** Why a job was rejected: its document, or one of {@link JOB_REJECTIONS}. */
export type JobRejection = RejectionReason | keyof typeof JOB_REJECTIONS;
