import { z } from 'zod';

/** An object named by an S3 event notification. */
export interface S3ObjectRef {
  readonly bucket: string;
  readonly key: string;
  readonly versionId?: string;
  readonly etag?: string;
  readonly size?: number;
  /**
   * The uploader: `userIdentity.principalId`, the unique id of the IAM identity that made the
   * request (https://docs.aws.amazon.com/AmazonS3/latest/userguide/notification-content-structure.html).
   */
  readonly principalId?: string;
}

const record = z.object({
  eventName: z.string(),
  userIdentity: z.object({ principalId: z.string().optional() }).optional(),
  s3: z.object({
    bucket: z.object({ name: z.string() }),
    object: z.object({
      key: z.string(),
      versionId: z.string().optional(),
      eTag: z.string().optional(),
      size: z.number().optional(),
    }),
  }),
});

/**
 * The created objects in an SQS message body holding an S3 event notification. S3's test
 * event (sent when the notification is configured) and non-create events yield nothing.
 * Keys arrive URL-encoded with '+' for spaces, as S3 sends them.
 */
export function objectsCreated(body: string): S3ObjectRef[] {
  const parsed = JSON.parse(body) as { Event?: string; Records?: unknown[] };
  if (parsed.Event === 's3:TestEvent' || !Array.isArray(parsed.Records)) return [];
  const out: S3ObjectRef[] = [];
  for (const raw of parsed.Records) {
    const r = record.parse(raw);
    if (!r.eventName.startsWith('ObjectCreated:')) continue;
    const o = r.s3.object;
    out.push({
      bucket: r.s3.bucket.name,
      key: decodeURIComponent(o.key.replace(/\+/g, ' ')),
      ...(o.versionId ? { versionId: o.versionId } : {}),
      ...(o.eTag ? { etag: o.eTag } : {}),
      ...(o.size !== undefined ? { size: o.size } : {}),
      ...(r.userIdentity?.principalId ? { principalId: r.userIdentity.principalId } : {}),
    });
  }
  return out;
}
