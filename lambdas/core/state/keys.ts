/**
 * Key layout of the single state table (see docs/architecture.md). Chunk numbers are
 * zero-padded so that a Query with `begins_with` returns them in order.
 */

/** The stages a chunk passes through, in order. */
export type Stage = 'analyze' | 'consolidate';

/** Stages in order; a stage's number in `cancelled-at-stage-N` is its index + 1. */
export const STAGES: readonly Stage[] = ['analyze', 'consolidate'];

const pad = (n: number, width = 4) => String(n).padStart(width, '0');

/** Partition key of everything belonging to a job. */
export const jobPk = (jobId: string) => `JOB#${jobId}`;
/** Sort key of the job item. */
export const JOB_SK = 'JOB';
/** Sort key of a chunk-stage checkpoint. */
export const checkpointSk = (chunk: number, stage: Stage) => `CHUNK#${pad(chunk)}#${stage}`;
/** Prefix of every checkpoint sort key. */
export const CHECKPOINT_PREFIX = 'CHUNK#';
/** Sort key of a call-ledger entry: one per (chunk, clause, analyst). */
export const callSk = (chunk: number, clauseId: string, analystId: string) =>
  `CALL#${pad(chunk)}#${clauseId}#${analystId}`;
/** Prefix of a chunk's call-ledger entries. */
export const chunkCallPrefix = (chunk: number) => `CALL#${pad(chunk)}#`;
/** Prefix of every call-ledger entry of a job. */
export const CALL_PREFIX = 'CALL#';
/** Partition key of the jobs-by-status index. */
export const statusGsiPk = (status: string) => `STATUS#${status}`;
/** Name of the index of jobs by owner: `OWNER#<owner>` / `<createdAt>#<jobId>`, newest last. */
export const OWNER_INDEX = 'byOwner';
/** Partition key of the jobs-by-owner index (attribute `gsi2pk`). */
export const ownerGsiPk = (owner: string) => `OWNER#${owner}`;
/** Sort key of the jobs-by-owner index (attribute `gsi2sk`): creation time first, so newest sorts last. */
export const ownerGsiSk = (createdAt: string, jobId: string) => `${createdAt}#${jobId}`;
/** Partition key of a model's concurrency shared by every process that calls it. */
export const modelLimitPk = (modelId: string) => `MODEL#${modelId}`;
/** Sort key of a model's shared concurrency. */
export const MODEL_LIMIT_SK = 'LIMIT';
/** Name of the index of jobs by status: `STATUS#<status>` / `<since>#<jobId>`, oldest first. */
export const STATUS_INDEX = 'byStatus';
/** Prefix of the partition key of an owner's running-job count (for IAM's `dynamodb:LeadingKeys`). */
export const OWNER_SLOTS_PREFIX = 'OWNER#';
/** Partition key of an owner's running-job count (admission control, `core/state/owner-slots.ts`). */
export const ownerSlotsPk = (owner: string) => `${OWNER_SLOTS_PREFIX}${owner}`;
/** Sort key of an owner's running-job count. */
export const OWNER_SLOTS_SK = 'SLOTS';
/** Sort key of a model's shared tokens- and requests-per-minute budgets. */
export const MODEL_BUDGET_SK = 'BUDGET';
/** Prefix of the partition keys of playbooks (for IAM's `dynamodb:LeadingKeys`). */
export const PLAYBOOK_KEY_PREFIX = 'PLAYBOOK';
/** Partition key of one playbook's versions. */
export const playbookPk = (name: string) => `${PLAYBOOK_KEY_PREFIX}#${name}`;
/** Sort key of one version of a playbook; zero-padded, so a Query returns them in order. */
export const playbookVersionSk = (version: number) => `V#${pad(version, 6)}`;
/** Partition key of the playbook list: one item per name (sort key), with its latest version. */
export const PLAYBOOK_LIST_PK = `${PLAYBOOK_KEY_PREFIX}S`;
/** Prefix of the partition key of a caller's request budgets (for IAM's `dynamodb:LeadingKeys`). */
export const CALLER_RATE_PREFIX = 'RATE#';
/** Partition key of a caller's request budgets (`lambdas/api/caller-limits.ts`). */
export const callerRatePk = (caller: string) => `${CALLER_RATE_PREFIX}${caller}`;
