import { createHash } from 'node:crypto';
import { GetObjectTaggingCommand, type S3Client } from '@aws-sdk/client-s3';
import { money } from '../../text/money.js';
import { panelModelIds } from '../analysts/index.js';
import {
  isDocumentRejectedError,
  isParseOvertimeError,
  parseDocumentBounded,
  readParties,
} from '../documents/index.js';
import { blockingReason } from '../model-lifecycle.js';
import { shapeRefusal } from '../model-shape-guard.js';
import { contractNamesOf, jobPlaybookOf, type Playbook, reviewedFor } from '../playbooks/index.js';
import type { CostQuote } from '../state/job.js';
import { recordJobPanel } from '../state/job-panel.js';
import { spendBoundOf } from '../state/owner-spend.js';
import { IntakeDeferredError } from './errors.js';
import { fanOut } from './fan-out.js';
import type { IntakeDeps, IntakeResult, IntakeRun } from './intake-run.js';
import { ownerOf } from './intake-run.js';
import { jobIdFor } from './job-id.js';
import { isJobOptionError, type JobOptions, readJobOptions } from './job-options.js';
import { isVersionUpload, negotiationRound, type RoundDocument } from './negotiation-round.js';
import { headUpload, type RoutedUpload } from './owner-route.js';
import { ceilingCovers, quoteDocument } from './quote.js';
import { readUpload, type Upload } from './read-upload.js';
import type { S3ObjectRef } from './s3-event.js';
import { uploadPlaybook } from './upload-playbook.js';

export { type EarlierVersion, withComparison } from './against.js';
export type { IntakeDeps, IntakeResult, ParseRetry } from './intake-run.js';
export { jobIdFor } from './job-id.js';
/** Where intake keeps a job's normalised text and clauses for finalize and the sweeper. */
export {
  type AgainstVersion,
  documentKey,
  type StoredDocument,
  type StoredRevisions,
  storedClauses,
} from './stored-document.js';

import { storesOf } from '../stores.js';

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
 * @param object An S3 event's object, or an upload routed to its owner (whose owner is recorded
 *   as routing worked it out).
 * @param receiveCount Which receive of the intake message this is (1 for the first).
 * @throws IntakeDeferredError when the parse is to be tried again on a later receive.
 */
export async function intakeObject(
  object: S3ObjectRef | RoutedUpload,
  deps: IntakeDeps,
  receiveCount = 1,
): Promise<IntakeResult> {
  const now = deps.now ?? Date.now;
  const { ref: event, owner } = 'ref' in object ? object : { ref: object, owner: undefined };
  // A version uploaded beside another, for it to be compared with: read by that upload's intake.
  if (isVersionUpload(event.key)) return { outcome: 'version', jobId: jobIdFor(event), key: event.key };
  const ref = event.versionId ? event : (await headUpload(deps.s3, event)).ref;
  const jobId = jobIdFor(ref);
  const { jobs } = storesOf(deps);
  const existing = await jobs.find(jobId);
  if (
    existing &&
    ((existing.status !== 'intake' && existing.status !== 'running') || existing.fanoutCompletedAt)
  ) {
    return { outcome: 'duplicate', jobId };
  }
  const run: IntakeRun = {
    ref,
    jobId,
    jobs,
    deps,
    now,
    receiveCount,
    ...(owner !== undefined ? { owner } : {}),
  };
  const upload = await readUpload(run);
  if ('outcome' in upload) return upload;
  const recorded = await recordJob(run, upload);
  if ('outcome' in recorded) return recorded;
  const read = await parseUpload(run, upload);
  if ('outcome' in read) return read;
  const parsed = await negotiationRound(run, read, recorded.options.against, recorded.owner);
  if ('outcome' in parsed) return parsed;
  const parties = reviewedFor(
    readParties(parsed.text),
    recorded.options.party,
    recorded.playbook?.party,
    parsed.text,
  );
  if ('refused' in parties) {
    await jobs.markRejected(jobId, parties.refused, { rejection: 'invalid-options' });
    return { outcome: 'rejected', jobId, reason: parties.refused };
  }
  const { context, quote, panel, screen } = quoteDocument(
    parsed,
    recorded.options,
    recorded.playbook
      ? {
          playbook: recorded.playbook,
          fileName: ref.key.split('/').pop() ?? ref.key,
          names: contractNamesOf(parties),
        }
      : undefined,
  );
  // A playbook's panel replaces the selection: the analysts it asks are the job's. Every pair
  // of the panel is planned; those the relevance screen leaves out are screened.
  const options = panel ? { ...recorded.options, analysts: panel.analysts } : recorded.options;
  const calls = {
    planned: parsed.clauses.length * options.analysts.length,
    screened: quote.screened?.calls ?? 0,
  };
  await recordJobPanel(
    deps.db,
    deps.tableName,
    jobId,
    { analysts: options.analysts, ...panel, callsScreened: calls.screened, parties },
    now,
  );
  const overDay = overDailyCap(quote, options, deps);
  if (overDay) {
    await jobs.markRejected(jobId, overDay, {
      sha256: parsed.sha256,
      bytes: parsed.bytes,
      rejection: 'daily-spend-cap',
      quote,
    });
    return { outcome: 'rejected', jobId, reason: overDay };
  }
  if (!ceilingCovers(quote, options)) {
    const reason =
      `the cost ceiling ${money(options.ceilingMicros)} is below this job's expected cost ${money(quote.expectedMicros)} ` +
      `(worst case ${money(quote.worstCaseMicros)}; ${clausesOf(parsed)} × ${options.analysts.length} analysts` +
      `${calls.screened > 0 ? `, ${calls.screened} pairs screened` : ''}): ` +
      `upload it again with a ceiling of at least ${money(quote.expectedMicros)} (ceiling-usd), or with ` +
      `allow-partial=true to review as much as ${money(options.ceilingMicros)} allows`;
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

/**
 * Why a job can never start under its owner's daily spend cap, with the figures: the most it
 * may spend (its ceiling, or its worst case when lower) is more than an owner may spend in a day.
 * Undefined when there is no cap, or the job fits it.
 */
function overDailyCap(quote: CostQuote, options: JobOptions, deps: IntakeDeps): string | undefined {
  const cap = deps.dailySpendPerOwnerMicros;
  if (!cap) return undefined;
  const bound = spendBoundOf({ ceilingMicros: options.ceilingMicros, quote });
  if (bound <= cap) return undefined;
  return (
    `this job may spend up to ${money(bound)} (its ceiling ${money(options.ceilingMicros)}, worst case ` +
    `${money(quote.worstCaseMicros)}), more than the ${money(cap)} one owner's jobs may spend in a day ` +
    `on this stack: upload it again with a ceiling of at most ${money(cap)} (ceiling-usd) and ` +
    'allow-partial=true, or ask for a higher cap (-c dailySpendPerOwner)'
  );
}

/** The clauses a quote counts: the contract's, and those judged as they read before their changes. */
function clausesOf(doc: RoundDocument): string {
  const before = doc.clauses.length - doc.contractClauses;
  return `${doc.contractClauses} clauses${before > 0 ? ` and ${before} as they read before their changes` : ''}`;
}

/** A recorded job's options, the content of the playbook it names, and its owner. */
interface Recorded {
  readonly options: JobOptions;
  readonly playbook?: Playbook;
  readonly owner?: string;
}

/**
 * Reads the upload's options and records the job with them; a bad option, or a model Bedrock
 * no longer serves, ends it as rejected.
 */
async function recordJob(run: IntakeRun, { object }: Upload): Promise<Recorded | IntakeResult> {
  const { ref, jobId, jobs, deps, now } = run;
  const metadata = object.Metadata ?? {};
  const tags = await readTags(deps.s3, ref);
  const owner = await ownerOf(run, async () => metadata);
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
      ceilingMicros: deps.defaultCeilingMicros,
      models: deps.models,
      ...(deps.minReviewHours !== undefined ? { minReviewHours: deps.minReviewHours } : {}),
      ...(deps.maxCeilingMicros !== undefined ? { maxCeilingMicros: deps.maxCeilingMicros } : {}),
    });
  } catch (error) {
    if (!isJobOptionError(error)) throw error;
    await jobs.createIfAbsent({
      ...base,
      lane: deps.defaultLane,
      analysts: [],
      ceilingMicros: deps.defaultCeilingMicros,
    });
    await jobs.markRejected(jobId, error.message, { rejection: 'invalid-options' });
    return { outcome: 'rejected', jobId, reason: error.message };
  }
  const playbook = await uploadPlaybook(deps, options);
  await jobs.createIfAbsent({
    ...base,
    lane: options.lane,
    analysts: options.analysts,
    ceilingMicros: options.ceilingMicros,
    models: options.models,
    ...(options.gate !== 'none' ? { gate: options.gate } : {}),
    // A playbook's escalations are held whatever the gate: their review window counts too.
    ...(options.gate !== 'none' || options.playbook ? { reviewHours: options.reviewHours } : {}),
    ...(playbook && 'stored' in playbook ? { playbook: jobPlaybookOf(playbook.stored) } : {}),
  });
  if (playbook && 'refused' in playbook) {
    await jobs.markRejected(jobId, playbook.refused, { rejection: playbook.rejection });
    return { outcome: 'rejected', jobId, reason: playbook.refused };
  }
  const ids = panelModelIds(options.models);
  const unavailable =
    (deps.lifecycle && blockingReason(await deps.lifecycle.check(ids))) ||
    (deps.shapes && shapeRefusal(await deps.shapes.check(ids), options.models));
  if (unavailable) {
    await jobs.markRejected(jobId, unavailable, { rejection: 'model-unavailable' });
    return { outcome: 'rejected', jobId, reason: unavailable };
  }
  return {
    options,
    ...(playbook && 'stored' in playbook ? { playbook: playbook.stored.playbook } : {}),
    ...(owner ? { owner } : {}),
  };
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
