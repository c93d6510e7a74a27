import { createHash } from 'node:crypto';
import type { S3ObjectRef } from './s3-event.js';

/**
 * The job id of an uploaded object version: the same (bucket, key, version or ETag) always
 * gives the same id, so a repeated S3 event finds its job instead of starting another.
 */
export function jobIdFor(ref: S3ObjectRef): string {
  const version = ref.versionId ?? ref.etag?.replaceAll('"', '') ?? '';
  const digest = createHash('sha256').update(`${ref.bucket}\n${ref.key}\n${version}`).digest('hex');
  return `j-${digest.slice(0, 20)}`;
}

/** The job id an upload makes, from its bucket, key and what PutObject answered (a version id, else the ETag). */
export function jobIdOfPut(bucket: string, key: string, put: { VersionId?: string; ETag?: string }): string {
  return jobIdFor({
    bucket,
    key,
    ...(put.VersionId ? { versionId: put.VersionId } : {}),
    ...(put.ETag ? { etag: put.ETag } : {}),
  });
}
