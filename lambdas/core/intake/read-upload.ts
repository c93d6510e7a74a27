/**
 * Reading an upload within the document limit, and the rejection of one intake cannot read:
 * deleted before it could be, or longer than the limit.
 */
import { GetObjectCommand, type GetObjectCommandOutput, NoSuchKey } from '@aws-sdk/client-s3';
import { tooLargeMessage } from '../documents/index.js';
import type { JobRejection } from '../state/job-rejections.js';
import { type IntakeResult, type IntakeRun, ownerOf } from './intake-run.js';
import { headUpload } from './owner-route.js';
import { dropBody, readCapped } from './read-capped.js';

/** The uploaded object as intake read it: its response (the body consumed) and its bytes. */
export interface Upload {
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
export async function readUpload(run: IntakeRun): Promise<Upload | IntakeResult> {
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
 * Records the job of an upload intake did not read and rejects it. Unless routing worked its
 * owner out, the owner is read from its metadata (with HeadObject when not given; an object
 * deleted meanwhile has none).
 */
async function rejectUnread(
  run: IntakeRun,
  reason: string,
  rejection: JobRejection,
  facts: { readonly bytes?: number; readonly metadata?: Readonly<Record<string, string>> } = {},
): Promise<IntakeResult> {
  const { ref, jobId, jobs, deps, now } = run;
  const owner = await ownerOf(run, async () =>
    rejection === 'deleted' ? undefined : (facts.metadata ?? (await headUpload(deps.s3, ref)).metadata),
  );
  await jobs.createIfAbsent({
    jobId,
    lane: deps.defaultLane,
    bucket: ref.bucket,
    key: ref.key,
    analysts: [],
    ceilingMicros: deps.defaultCeilingMicros,
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
