import { createHash } from 'node:crypto';
import {
  GetObjectCommand,
  type GetObjectCommandOutput,
  GetObjectTaggingCommand,
  NoSuchKey,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type PanelModels, panelModelIds } from '../analysts/index.js';
import {
  type DocumentLimits,
  isDocumentRejectedError,
  isParseOvertimeError,
  parseDocumentBounded,
  tooLargeMessage,
} from '../documents/index.js';
import type { Lane } from '../model.js';
import { blockingReason, type LifecycleGuard } from '../model-lifecycle.js';
import { jobPlaybookOf, type Playbook } from '../playbooks/index.js';
import type { DocumentScreen } from '../screen/index.js';
import { Claims } from '../state/claims.js';
import { recordJobPanel } from '../state/job-panel.js';
import { type Job, Jobs } from '../state/jobs.js';
import { OwnerSlots } from '../state/owner-slots.js';
import { startQueued } from './admission.js';
import { IntakeDeferredError } from './errors.js';
import { jobIdFor } from './job-id.js';
import { isJobOptionError, type JobOptions, readJobOptions } from './job-options.js';
import { headUpload } from './owner-route.js';
import { type CostQuote, ceilingCovers, quoteDocument } from './quote.js';
import { dropBody, readCapped } from './read-capped.js';
import type { JobRejection } from './rejections.js';
import type { S3ObjectRef } from './s3-event.js';
import { chunkMessagesOf, documentKey, type StoredDocument, sendChunkMessages } from './stored-document.js';
import { submitterOf, uploaderOf } from './submitter.js';
import { uploadPlaybook } from './upload-playbook.js';

export { jobIdFor } from './job-id.js';

const usd = (micros: number) => `$${(micros / 1_000_000).toFixed(2)}`;

/** What intake needs. */
export interface IntakeDeps {
  readonly db: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  readonly tableName: string;
  readonly resultsBucket: string;
  readonly laneQueueUrls: Readonly<Record<Lane, string>>;
  readonly chunkClauses: number;
  readonly maxDocumentBytes: number;
  /** Bounds of the parse (CPU time, wall clock, heap, pages, inflated bytes). @default DEFAULT_DOCUMENT_LIMITS */
  readonly documentLimits?: DocumentLimits;
  readonly defaultCostLimit: number;
  readonly defaultLane: Lane;
  readonly jobDeadlineSeconds: number;
  /** The configured models; an upload's `model` option overrides the primary. */
  readonly models: PanelModels;
  /**
   * The unique id (`AROA…`) of the role the status API presigns uploads with: only its uploads
   * may name their submitter in metadata (see `submitterOf`).
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
   * The intake queue. When set, an S3 event is first put back on it as its owner's message
   * (owner-route.ts), so intake takes owners' uploads fairly; absent, events are taken in turn.
   */
  readonly intakeQueueUrl?: string;
  /** Refuses jobs whose models Bedrock no longer serves (absent: not checked). */
  readonly lifecycle?: Pick<LifecycleGuard, 'check'>;
  /**
   * How a parse the wall clock stopped (a busy machine, not a costly document) is tried again:
   * the intake message comes back after a backoff until its last receive, when the job is
   * rejected as `parse-timeout-under-load`. @default no retry: rejected at once
   */
  readonly parseRetry?: ParseRetry;
  readonly now?: () => number;
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
  | { readonly outcome: 'rejected'; readonly jobId: string; readonly reason: string };

/** Where intake keeps a job's normalised text and clauses for finalize and the sweeper. */
export { documentKey, type StoredDocument } from './stored-document.js';

async function readTags(s3: S3Client, ref: S3ObjectRef): Promise<Record<string, string>> {
  try {
    const r = await s3.send(
      new GetObjectTaggingCommand({
        Bucket: ref.bucket,
        Key: ref.key,
        ...(ref.versionId ? { VersionId: ref.versionId } : {}),
      }),
    );
    return Object.fromEntries((r.TagSet ?? []).map((t) => [t.Key ?? '', t.Value ?? '']));
  } catch {
    // Tags are optional; metadata and defaults still apply.
    return {};
  }
}

/**
 * Intake of one uploaded object: parse, split into clauses and chunks, record the job and
 * its checkpoints, fan out one message per chunk. Bad input ends as a `rejected` job with a
 * reason a person understands; the object itself is never touched.
 *
 * Resumable: if a previous attempt died after creating the job, this one finishes the
 * fan-out (duplicate chunk messages are harmless: claims let one worker through).
 *
 * @param receiveCount Which receive of the intake message this is (1 for the first).
 * @throws IntakeDeferredError when the parse is to be tried again on a later receive.
 */
export async function intakeObject(
  event: S3ObjectRef,
  deps: IntakeDeps,
  receiveCount = 1,
): Promise<IntakeResult> {
  const now = deps.now ?? Date.now;
  const ref = event.versionId ? event : (await headUpload(deps.s3, event)).ref;
  const jobId = jobIdFor(ref);
  const jobs = new Jobs(deps.db, deps.tableName, now);
  const existing = await jobs.find(jobId);
  if (
    existing &&
    ((existing.status !== 'intake' && existing.status !== 'running') || existing.fanoutCompletedAt)
  ) {
    return { outcome: 'duplicate', jobId };
  }
  const run: IntakeRun = { ref, jobId, jobs, deps, now, receiveCount };
  const upload = await readUpload(run);
  if ('outcome' in upload) return upload;
  const recorded = await recordJob(run, upload);
  if ('outcome' in recorded) return recorded;
  const parsed = await parseUpload(run, upload);
  if ('outcome' in parsed) return parsed;
  const { context, quote, panel, screen } = quoteDocument(
    parsed,
    recorded.options,
    recorded.playbook
      ? { playbook: recorded.playbook, fileName: ref.key.split('/').pop() ?? ref.key }
      : undefined,
  );
  // A playbook's panel replaces the selection: the analysts it asks are the job's. Every pair
  // of the selection is planned; those not asked (the playbook's, the screen's) are screened.
  const options = panel ? { ...recorded.options, analysts: panel.analysts } : recorded.options;
  const calls = {
    planned: parsed.clauses.length * recorded.options.analysts.length,
    screened: quote.screened?.calls ?? 0,
  };
  if (panel || calls.screened > 0)
    await recordJobPanel(
      deps.db,
      deps.tableName,
      jobId,
      { analysts: options.analysts, ...panel, callsScreened: calls.screened },
      now,
    );
  if (!ceilingCovers(quote, options)) {
    const reason =
      `the cost ceiling ${usd(options.costLimit)} is below this job's expected cost ${usd(quote.expectedMicros)} ` +
      `(worst case ${usd(quote.worstCaseMicros)}; ${calls.planned - calls.screened} calls asked of ` +
      `${parsed.clauses.length} clauses × ${recorded.options.analysts.length} analysts): ` +
      `upload it again with a ceiling of at least ${usd(quote.expectedMicros)} (cost-ceiling-usd), or with ` +
      `allow-partial=true to review as much as ${usd(options.costLimit)} allows`;
    await jobs.markRejected(jobId, reason, {
      sha256: parsed.sha256,
      bytes: parsed.bytes,
      rejection: 'budget-below-quote',
      // Kept so that a submission made to learn the price reads it from the job: nothing was spent.
      quote,
    });
    return { outcome: 'rejected', jobId, reason };
  }
  return fanOut(run, options, parsed, { context, quote, calls, ...(screen ? { screen } : {}) });
}

/** One intake's fixed facts. */
interface IntakeRun {
  readonly ref: S3ObjectRef;
  readonly jobId: string;
  readonly jobs: Jobs;
  readonly deps: IntakeDeps;
  readonly now: () => number;
  readonly receiveCount: number;
}

/** The uploaded object as intake read it: its response (the body consumed) and its bytes. */
interface Upload {
  readonly object: Omit<GetObjectCommandOutput, 'Body'>;
  readonly bytes: Uint8Array;
}

/**
 * The object's bytes, or the rejection of a job whose object cannot be read: deleted before it
 * could be, or longer than the document limit. The length is checked before a byte is read: the
 * event's `size` (or HeadObject's, owner-route.ts), then GetObject's `ContentLength`; the body is
 * read as a stream that is dropped as soon as it passes the limit. An upload of any size costs
 * intake no more memory than the limit.
 */
async function readUpload(run: IntakeRun): Promise<Upload | IntakeResult> {
  const { ref, deps } = run;
  const max = deps.maxDocumentBytes;
  if (ref.size !== undefined && ref.size > max) return rejectTooLarge(run, ref.size);
  let object: GetObjectCommandOutput;
  try {
    object = await deps.s3.send(
      new GetObjectCommand({
        Bucket: ref.bucket,
        Key: ref.key,
        ...(ref.versionId ? { VersionId: ref.versionId } : {}),
      }),
    );
  } catch (error) {
    if (!(error instanceof NoSuchKey || (error as Error).name === 'NoSuchVersion')) throw error;
    return rejectUnread(run, `The document ${ref.key} was deleted before it could be read.`, 'deleted');
  }
  const { Body: body, ...response } = object;
  if (object.ContentLength !== undefined && object.ContentLength > max) {
    dropBody(body);
    return rejectTooLarge(run, object.ContentLength, object.Metadata ?? {});
  }
  const read = await readCapped(body, max);
  if ('over' in read) return rejectTooLarge(run, read.over, object.Metadata ?? {});
  return { object: response, bytes: read.bytes };
}

/** Rejects an upload longer than the document limit, by its length, without reading it. */
function rejectTooLarge(
  run: IntakeRun,
  bytes: number,
  metadata?: Readonly<Record<string, string>>,
): Promise<IntakeResult> {
  const message = tooLargeMessage(bytes, run.deps.maxDocumentBytes);
  return rejectUnread(run, message, 'too-large', { bytes, ...(metadata ? { metadata } : {}) });
}

/**
 * Records the job of an upload intake did not read and rejects it. Its owner is the submitter
 * its metadata names (read with HeadObject when not given; an object deleted meanwhile has
 * none), or the uploader.
 */
async function rejectUnread(
  { ref, jobId, jobs, deps, now }: IntakeRun,
  reason: string,
  rejection: JobRejection,
  facts: { readonly bytes?: number; readonly metadata?: Readonly<Record<string, string>> } = {},
): Promise<IntakeResult> {
  const metadata =
    facts.metadata ?? (rejection === 'deleted' ? undefined : (await headUpload(deps.s3, ref)).metadata);
  const uploader = uploaderOf(ref, deps);
  const owner = metadata ? submitterOf(uploader, metadata, deps.apiRoleId) : uploader;
  await jobs.createIfAbsent({
    jobId,
    lane: deps.defaultLane,
    bucket: ref.bucket,
    key: ref.key,
    analysts: [],
    costLimit: deps.defaultCostLimit,
    deadline: now() + deps.jobDeadlineSeconds * 1000,
    ...(ref.versionId ? { versionId: ref.versionId } : {}),
    ...(ref.etag ? { etag: ref.etag } : {}),
    ...(owner ? { owner } : {}),
  });
  await jobs.markRejected(jobId, reason, {
    rejection,
    ...(facts.bytes !== undefined ? { bytes: facts.bytes } : {}),
  });
  return { outcome: 'rejected', jobId, reason };
}

/** A recorded job's options, and the content of the playbook it names. */
interface Recorded {
  readonly options: JobOptions;
  readonly playbook?: Playbook;
}

/**
 * Reads the upload's options and records the job with them; a bad option, or a model Bedrock
 * no longer serves, ends it as rejected.
 */
async function recordJob(run: IntakeRun, { object }: Upload): Promise<Recorded | IntakeResult> {
  const { ref, jobId, jobs, deps, now } = run;
  const metadata = object.Metadata ?? {};
  const tags = await readTags(deps.s3, ref);
  const owner = submitterOf(uploaderOf(ref, deps), metadata, deps.apiRoleId);
  const base = {
    jobId,
    ...(owner ? { owner } : {}),
    bucket: ref.bucket,
    key: ref.key,
    deadline: now() + deps.jobDeadlineSeconds * 1000,
    ...(ref.versionId ? { versionId: ref.versionId } : {}),
    ...(ref.etag ? { etag: ref.etag } : {}),
  };
  let options: JobOptions;
  try {
    options = readJobOptions(metadata, tags, {
      lane: deps.defaultLane,
      costLimit: deps.defaultCostLimit,
      models: deps.models,
    });
  } catch (error) {
    if (!isJobOptionError(error)) throw error;
    await jobs.createIfAbsent({
      ...base,
      lane: deps.defaultLane,
      analysts: [],
      costLimit: deps.defaultCostLimit,
    });
    await jobs.markRejected(jobId, error.message, { rejection: 'invalid-options' });
    return { outcome: 'rejected', jobId, reason: error.message };
  }
  const playbook = await uploadPlaybook(deps, now, options);
  await jobs.createIfAbsent({
    ...base,
    lane: options.lane,
    analysts: options.analysts,
    costLimit: options.costLimit,
    models: options.models,
    ...(options.gate !== 'none' ? { gate: options.gate, reviewHours: options.reviewHours } : {}),
    ...(playbook && 'stored' in playbook ? { playbook: jobPlaybookOf(playbook.stored) } : {}),
  });
  if (playbook && 'refused' in playbook) {
    await jobs.markRejected(jobId, playbook.refused, { rejection: playbook.rejection });
    return { outcome: 'rejected', jobId, reason: playbook.refused };
  }
  const unavailable =
    deps.lifecycle && blockingReason(await deps.lifecycle.check(panelModelIds(options.models)));
  if (unavailable) {
    await jobs.markRejected(jobId, unavailable, { rejection: 'model-unavailable' });
    return { outcome: 'rejected', jobId, reason: unavailable };
  }
  return { options, ...(playbook && 'stored' in playbook ? { playbook: playbook.stored.playbook } : {}) };
}

type Parsed = Awaited<ReturnType<typeof parseDocumentBounded>>;

/**
 * The document parsed in a bounded worker, or the rejection that names why it cannot be. A
 * parse the wall clock stopped with CPU time to spare is tried again on a later receive of the
 * intake message (IntakeDeferredError), and rejected only on the last.
 */
async function parseUpload(run: IntakeRun, { object, bytes }: Upload): Promise<Parsed | IntakeResult> {
  const { ref, jobId, jobs, deps, receiveCount } = run;
  const sha256 = () => createHash('sha256').update(bytes).digest('hex');
  try {
    // In a worker thread with CPU-time, heap and wall-clock limits: a hostile file is refused in seconds.
    return await parseDocumentBounded(bytes, {
      key: ref.key,
      ...(object.ContentType ? { contentType: object.ContentType } : {}),
      maxBytes: deps.maxDocumentBytes,
      chunk: { maxClauses: deps.chunkClauses },
      ...(deps.documentLimits ? { limits: deps.documentLimits } : {}),
    });
  } catch (error) {
    if (isParseOvertimeError(error)) {
      const retry = deps.parseRetry;
      if (retry && receiveCount < retry.maxReceiveCount) {
        const i = Math.min(receiveCount, retry.backoffSeconds.length) - 1;
        throw new IntakeDeferredError(jobId, receiveCount, retry.backoffSeconds[i] ?? 0, { cause: error });
      }
      const tries = receiveCount === 1 ? '' : ` on each of ${receiveCount} tries, the last time`;
      const reason =
        `The service was too busy to read the document: reading it was cut short${tries} after ` +
        `${error.wallMs / 1000} s, having used ${error.cpuMs / 1000} s of the ${error.cpuLimitMs / 1000} s of ` +
        'processing it may take. Nothing was found wrong with the document: upload it again later.';
      await jobs.markRejected(jobId, reason, {
        sha256: sha256(),
        bytes: bytes.length,
        rejection: 'parse-timeout-under-load',
      });
      return { outcome: 'rejected', jobId, reason };
    }
    if (!isDocumentRejectedError(error)) throw error;
    await jobs.markRejected(jobId, error.message, {
      sha256: sha256(),
      bytes: bytes.length,
      rejection: error.reason,
    });
    return { outcome: 'rejected', jobId, reason: error.message };
  }
}

/** What intake planned for a read document. */
interface Plan {
  readonly context: StoredDocument['context'];
  readonly quote: CostQuote;
  /** Pairs of clause and analyst of the selection, and those not asked. */
  readonly calls: { readonly planned: number; readonly screened: number };
  readonly screen?: DocumentScreen;
}

/** Stores the document, records the checkpoints and the plan, and sends one message per chunk. */
async function fanOut(
  run: IntakeRun,
  options: JobOptions,
  parsed: Parsed,
  { context, quote, calls: { planned: calls }, screen }: Plan,
): Promise<IntakeResult> {
  const { jobId, jobs, deps, now } = run;
  const stored: StoredDocument = {
    jobId,
    format: parsed.format,
    sha256: parsed.sha256,
    text: parsed.text,
    chunks: parsed.chunks,
    ...(context ? { context } : {}),
    ...(screen && screen.calls > 0 ? { screened: screen.screened } : {}),
  };
  // The document and the checkpoints go together, then the plan, which makes the job running
  // (a pause or resume from then on finds both), then the chunk messages. An intake that dies
  // before the fan-out is done is resumed and does each again.
  const [, , current] = await Promise.all([
    deps.s3.send(
      new PutObjectCommand({
        Bucket: deps.resultsBucket,
        Key: documentKey(jobId),
        Body: JSON.stringify(stored),
        ContentType: 'application/json',
      }),
    ),
    new Claims(deps.db, deps.tableName, now).createAll(jobId, parsed.chunks.length),
    jobs.get(jobId),
  ]);
  // A job cancelled while it was read still records its plan: its report accounts for every
  // planned call as cancelled, once workers have ended its chunks.
  if (current.status === 'intake' || (current.status === 'cancelled' && current.chunkCount === 0)) {
    const plan = {
      chunkCount: parsed.chunks.length,
      clauseCount: parsed.clauses.length,
      callsPlanned: calls,
      sha256: parsed.sha256,
      bytes: parsed.bytes,
      format: parsed.format,
      quote,
    };
    const admitted = await admit(run, current, plan);
    if (admitted !== 'start') {
      const outcome = admitted === 'queued' ? 'queued' : 'started';
      return { outcome, jobId, chunks: parsed.chunks.length, calls };
    }
  }
  await sendChunkMessages(
    deps.sqs,
    deps.laneQueueUrls[options.lane],
    chunkMessagesOf(stored, options.lane),
    current.owner,
  );
  await jobs.markFannedOut(jobId);
  return { outcome: 'started', jobId, chunks: parsed.chunks.length, calls };
}

/**
 * Records the plan and lets the job start (`start`: its messages are to be sent), or, when its
 * owner already has `maxJobsPerOwner` jobs running, records it as `queued` (its document and
 * checkpoints stay where they are) and tries the owner's queue once, in case a slot was given
 * back meanwhile (`started`: that start sent its messages). A job cancelled meanwhile records
 * its plan all the same.
 */
async function admit(
  { jobId, jobs, deps, now }: IntakeRun,
  current: Job,
  plan: Parameters<Jobs['recordPlan']>[1],
): Promise<'start' | 'queued' | 'started'> {
  const cap = deps.maxJobsPerOwner;
  if (cap && current.owner && current.status === 'intake') {
    const slots = new OwnerSlots(deps.db, deps.tableName, now);
    const took = await slots.take(jobId, current.owner, 'intake', cap, { set: plan });
    if (took === 'running') return 'start';
    if (took === 'full' && (await slots.queue(jobId, current.owner, plan))) {
      const started = await startQueued(current.owner, { ...deps, now });
      return started.includes(jobId) ? 'started' : 'queued';
    }
  }
  await jobs.recordPlan(jobId, plan);
  return 'start';
}
