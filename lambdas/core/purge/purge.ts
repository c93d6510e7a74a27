import { DeleteObjectsCommand, ListObjectVersionsCommand, type S3Client } from '@aws-sdk/client-s3';
import { BatchWriteCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentKey } from '../intake/intake.js';
import { JobNotFoundError } from '../state/errors.js';
import type { Job } from '../state/job.js';
import { JOB_SK, jobPk } from '../state/keys.js';
import { queryAll } from '../state/query-all.js';
import { storesOf } from '../stores.js';
import { JobNotEndedError, PurgeIncompleteError } from './errors.js';

/** What purge works on. */
export interface PurgeDeps {
  readonly db: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly tableName: string;
  readonly resultsBucket: string;
  /** Key prefix of the reports in the results bucket. */
  readonly resultsPrefix: string;
  readonly now?: () => number;
}

/** One object version or delete marker. */
export interface ObjectVersion {
  readonly bucket: string;
  readonly key: string;
  readonly versionId?: string;
  readonly deleteMarker?: boolean;
}

/** What a purge deleted, and what it left on purpose. */
export interface PurgeResult {
  readonly jobId: string;
  readonly purgedAt: string;
  /** Every object version and delete marker deleted: the upload, the work files, the reports. */
  readonly objects: readonly ObjectVersion[];
  /** Versions of the uploaded key holding other bytes: other uploads, with jobs of their own. */
  readonly kept: readonly ObjectVersion[];
  /** State-table items deleted (checkpoints, call ledger); the job item stays as the record. */
  readonly items: number;
  /** Set when the job had been purged before; this run deleted whatever was left. */
  readonly previouslyPurgedAt?: string;
}

/** What the job item keeps of a purge. */
export interface PurgeRecord {
  readonly objects: number;
  readonly items: number;
}

type Listed = ObjectVersion & { readonly etag?: string };

const bareEtag = (etag: string | undefined) => etag?.replaceAll('"', '');

async function versionsUnder(s3: S3Client, bucket: string, prefix: string): Promise<Listed[]> {
  const out: Listed[] = [];
  let keyMarker: string | undefined;
  let versionMarker: string | undefined;
  for (;;) {
    const r = await s3.send(
      new ListObjectVersionsCommand({
        Bucket: bucket,
        Prefix: prefix,
        ...(keyMarker ? { KeyMarker: keyMarker } : {}),
        ...(versionMarker ? { VersionIdMarker: versionMarker } : {}),
      }),
    );
    for (const v of r.Versions ?? []) {
      if (!v.Key) continue;
      out.push({
        bucket,
        key: v.Key,
        ...(v.VersionId ? { versionId: v.VersionId } : {}),
        ...(v.ETag ? { etag: v.ETag } : {}),
      });
    }
    for (const m of r.DeleteMarkers ?? []) {
      if (m.Key)
        out.push({
          bucket,
          key: m.Key,
          ...(m.VersionId ? { versionId: m.VersionId } : {}),
          deleteMarker: true,
        });
    }
    if (!r.IsTruncated) return out;
    keyMarker = r.NextKeyMarker;
    versionMarker = r.NextVersionIdMarker;
  }
}

/** Deletes versions (1,000 per request); returns what S3 refused. */
async function deleteVersions(s3: S3Client, versions: readonly ObjectVersion[]): Promise<string[]> {
  const failures: string[] = [];
  const byBucket = new Map<string, ObjectVersion[]>();
  for (const v of versions) byBucket.set(v.bucket, [...(byBucket.get(v.bucket) ?? []), v]);
  for (const [bucket, list] of byBucket) {
    for (let i = 0; i < list.length; i += 1000) {
      const r = await s3.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: {
            Quiet: true,
            Objects: list
              .slice(i, i + 1000)
              .map((v) => ({ Key: v.key, ...(v.versionId ? { VersionId: v.versionId } : {}) })),
          },
        }),
      );
      for (const e of r.Errors ?? []) {
        failures.push(
          `s3://${bucket}/${e.Key ?? '?'} version ${e.VersionId ?? '-'}: ${e.Code ?? 'error'} ${e.Message ?? ''}`.trim(),
        );
      }
    }
  }
  return failures;
}

/** Deletes table items by key (25 per request, unprocessed ones sent again); returns what was left. */
async function deleteItems(
  db: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly { pk: string; sk: string }[],
): Promise<string[]> {
  const left: string[] = [];
  for (let i = 0; i < keys.length; i += 25) {
    let requests = keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; requests.length > 0 && attempt < 8; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
      const r = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
      requests = (r.UnprocessedItems?.[tableName] ?? []) as typeof requests;
    }
    for (const req of requests) left.push(`item ${req.DeleteRequest.Key.pk} ${req.DeleteRequest.Key.sk}`);
  }
  return left;
}

/**
 * The upload's versions that are this job's: the version the job names, and any other version
 * of the key with the same bytes (same ETag). With neither recorded, every version is. Delete
 * markers go too once no version of the key is left, so the key disappears from listings.
 */
async function uploadVersions(s3: S3Client, job: Job): Promise<{ mine: Listed[]; kept: Listed[] }> {
  const all = (await versionsUnder(s3, job.bucket, job.key)).filter((v) => v.key === job.key);
  const etag = bareEtag(job.etag);
  const isMine = (v: Listed) =>
    (job.versionId !== undefined && v.versionId === job.versionId) ||
    (etag !== undefined && bareEtag(v.etag) === etag) ||
    (job.versionId === undefined && etag === undefined);
  const objects = all.filter((v) => !v.deleteMarker);
  const mine = objects.filter(isMine);
  const kept = objects.filter((v) => !isMine(v));
  if (kept.length === 0) mine.push(...all.filter((v) => v.deleteMarker));
  return { mine, kept };
}

/**
 * Deletes one job's data: every version of its upload (see above), every version of its work
 * files (`work/<job>/`) and reports (`<results prefix><job>/`), and its state-table items but
 * the job item. The job item stays as the record of what happened: it gains `purgedAt` and
 * `purge` (what was deleted) and loses the report keys and the document's fingerprints, so
 * `status` still answers for the job and says it was purged.
 *
 * Only an ended job (finalized, or rejected) is purged: until then workers and finalize may
 * write what purge would delete. Purging again deletes whatever is left (nothing, normally).
 *
 * @throws JobNotFoundError for an unknown job, JobNotEndedError for a job still running,
 *   PurgeIncompleteError when S3 or DynamoDB refused deletions (the job is then not marked).
 */
export async function purgeJob(jobId: string, deps: PurgeDeps): Promise<PurgeResult> {
  const now = deps.now ?? Date.now;
  const job = await storesOf(deps).jobs.find(jobId);
  if (!job) throw new JobNotFoundError(jobId);
  if (job.status !== 'rejected' && !job.finalizedAt) throw new JobNotEndedError(jobId, job.status);

  const upload = await uploadVersions(deps.s3, job);
  const workPrefix = documentKey(jobId).replace(/[^/]*$/, '');
  const results = [
    ...(await versionsUnder(deps.s3, deps.resultsBucket, workPrefix)),
    ...(await versionsUnder(deps.s3, deps.resultsBucket, `${deps.resultsPrefix}${jobId}/`)),
  ];
  const objects: ObjectVersion[] = [...upload.mine, ...results].map(({ etag: _etag, ...v }) => v);
  const failures = await deleteVersions(deps.s3, objects);

  const items = (
    await queryAll<{ pk: string; sk: string }>(deps.db, {
      TableName: deps.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': jobPk(jobId) },
      ProjectionExpression: 'pk, sk',
      ConsistentRead: true,
    })
  ).filter((item) => item.sk !== JOB_SK);
  failures.push(...(await deleteItems(deps.db, deps.tableName, items)));
  if (failures.length > 0) throw new PurgeIncompleteError(jobId, failures);

  const purgedAt = new Date(now()).toISOString();
  const record: PurgeRecord = { objects: objects.length, items: items.length };
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: { pk: jobPk(jobId), sk: JOB_SK },
      UpdateExpression:
        'SET purgedAt = :at, purge = :record, updatedAt = :at REMOVE reportKey, htmlReportKey, docxReportKey, sha256, etag',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':at': purgedAt, ':record': record },
    }),
  );
  return {
    jobId,
    purgedAt,
    objects,
    kept: upload.kept.map(({ etag: _etag, ...v }) => v),
    items: items.length,
    ...(job.purgedAt ? { previouslyPurgedAt: job.purgedAt } : {}),
  };
}
