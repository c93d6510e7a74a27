import type { PanelModels } from '../analysts/index.js';
import type { Lane } from '../clause.js';
import type { DocumentLimits } from '../documents/index.js';
import type { LifecycleGuard } from '../model-lifecycle.js';
import type { ShapeGuard } from '../model-shape-guard.js';
import type { Jobs } from '../state/jobs.js';
import type { JobPlaces } from './admission.js';
import type { S3ObjectRef } from './s3-event.js';
import { ownerOfUpload } from './submitter.js';

/** What intake needs: where the job lives, and how it reads, plans and admits an upload. */
export interface IntakeDeps extends JobPlaces {
  readonly chunkClauses: number;
  readonly maxDocumentBytes: number;
  /** Bounds of the parse (CPU time, wall clock, heap, pages, inflated bytes). @default DEFAULT_DOCUMENT_LIMITS */
  readonly documentLimits?: DocumentLimits;
  readonly defaultCeilingMicros: number;
  readonly defaultLane: Lane;
  /** The shortest review an upload may ask for, in hours. @default DEFAULT_MIN_REVIEW_HOURS (1) */
  readonly minReviewHours?: number;
  readonly jobDeadlineSeconds: number;
  /** The configured models; an upload's `model` option overrides the primary. */
  readonly models: PanelModels;
  /**
   * The unique id (`AROA…`) of the role the status API presigns uploads with: only its uploads
   * may name their submitter in metadata (see `ownerOfUpload`).
   */
  readonly apiRoleId?: string;
  /** A principal id the ground writes into every S3 event (an emulator's placeholder): read as none. */
  readonly placeholderPrincipalId?: string;
  /**
   * Most jobs of one owner running at once; a job over it waits as `queued` until one of the
   * owner's jobs stops (owner-slots.ts). @default no cap (absent or 0)
   */
  readonly maxJobsPerOwner?: number;
  /**
   * Micro-dollars one owner's jobs started on a (UTC) day may spend together; a job whose start
   * would pass it waits as `queued`, and one that could never fit is rejected
   * (owner-spend.ts). @default no cap (absent or 0)
   */
  readonly dailySpendPerOwnerMicros?: number;
  /** The most a job's ceiling may be, in micro-dollars (an upload asking for more is rejected). @default $100,000 */
  readonly maxCeilingMicros?: number;
  /**
   * The intake queue. When set, an S3 event is first put back on it as its owner's message
   * (owner-route.ts), so intake takes owners' uploads fairly; absent, events are taken in turn.
   */
  readonly intakeQueueUrl?: string;
  /** Refuses jobs whose models Bedrock no longer serves (absent: not checked). */
  readonly lifecycle?: Pick<LifecycleGuard, 'check'>;
  /**
   * Refuses jobs whose models refused the request the workers send, as the stack's first intake
   * asked and recorded it (model-shape-guard.ts). @default not checked
   */
  readonly shapes?: Pick<ShapeGuard, 'check'>;
  /**
   * How a parse the wall clock stopped (a busy machine, not a costly document) is tried again:
   * the intake message comes back after a backoff until its last receive, when the job is
   * rejected as `parse-timeout-under-load`. @default no retry: rejected at once
   */
  readonly parseRetry?: ParseRetry;
}

/** How intake retries a parse the machine was too busy for. */
export interface ParseRetry {
  /** The intake queue's maxReceiveCount: the receive after which the message would be dead. */
  readonly maxReceiveCount: number;
  /** Seconds the message stays away after the 1st, 2nd, … receive (the last entry repeats). */
  readonly backoffSeconds: readonly number[];
}

/** What became of one object. */
export type IntakeResult =
  | { readonly outcome: 'started'; readonly jobId: string; readonly chunks: number; readonly calls: number }
  | { readonly outcome: 'queued'; readonly jobId: string; readonly chunks: number; readonly calls: number }
  | { readonly outcome: 'duplicate'; readonly jobId: string }
  /**
   * A version uploaded beside another (`…/against/NAME`), for that upload's intake to compare
   * with: no job is made of it (`jobId` is the one its event would name).
   */
  | { readonly outcome: 'version'; readonly jobId: string; readonly key: string }
  | { readonly outcome: 'rejected'; readonly jobId: string; readonly reason: string };

/** One intake's fixed facts. */
export interface IntakeRun {
  readonly ref: S3ObjectRef;
  readonly jobId: string;
  readonly jobs: Jobs;
  readonly deps: IntakeDeps;
  readonly now: () => number;
  readonly receiveCount: number;
  /** The owner routing worked out (`null`: nobody); absent: worked out here, from the metadata. */
  readonly owner?: string | null;
}

/**
 * The owner to record: the one routing worked out, else the one the upload's metadata names
 * (`metadata` is read only then).
 */
export async function ownerOf(
  run: IntakeRun,
  metadata: () => Promise<Readonly<Record<string, string>> | undefined>,
): Promise<string | undefined> {
  if (run.owner !== undefined) return run.owner ?? undefined;
  return ownerOfUpload(run.ref, await metadata(), run.deps);
}
