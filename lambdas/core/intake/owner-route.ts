/**
 * Intake's first step: an upload's S3 event is put back on the intake queue as its owner's
 * message, so intake itself is fair between owners.
 *
 * S3 sends its event notifications to the intake queue without a MessageGroupId (S3 cannot set
 * one), and the owner of an upload through the status API is in the object's metadata, which the
 * event does not carry. Every event would then be a tenant of its own, and one person's 800
 * uploads would be read, parsed and fanned out before anybody else's. This step reads the owner
 * with one HeadObject and sends the object back to the same queue with the owner as its
 * MessageGroupId: SQS fair queues then deliver quiet owners' uploads ahead of the noisy owner's
 * backlog (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues.html),
 * and the second receipt does the work (`intakeObject`) with the owner the message carries.
 *
 * An event received as soon as it was sent had nothing ahead of it on the queue: there is no
 * backlog to be fair in, and a second receipt would only make the upload wait. Such an event is
 * taken in at once ({@link routesFirst}); one that waited is routed, unless its owner holds fewer
 * running jobs than the owner cap: such an owner is not the one the backlog is of, and its job
 * would start at once, so it is taken in at once too rather than sent behind the same backlog
 * again ({@link routeToOwner}). Only an owner at its cap, whose job would wait as `queued`
 * anyway, goes back to the queue, where its uploads come after the quiet owners'.
 */
import { HeadObjectCommand, NoSuchKey, NotFound, type S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { OwnerSlots } from '../state/owner-slots.js';
import { messageGroupOf } from './message-group.js';
import type { S3ObjectRef } from './s3-event.js';
import { type OwnerRule, ownerOfUpload } from './submitter.js';

/**
 * How long an S3 event may have waited on the intake queue and still be taken in at once: past
 * it, other uploads were waiting too, and the event goes back as its owner's message.
 */
export const ROUTE_AFTER_WAIT_MS = 1000;

/**
 * True when an S3 event is to be routed to its owner before intake, rather than taken in at
 * once: it waited on the queue at least {@link ROUTE_AFTER_WAIT_MS}, or its send time is unknown.
 *
 * @param sentTimestamp the SQS record's `attributes.SentTimestamp` (epoch ms, as text)
 * @example
 * routesFirst(String(Date.now() - 50), Date.now()); // false: nothing was waiting ahead of it
 */
export function routesFirst(sentTimestamp: string | undefined, now: number): boolean {
  const sentAt = Number(sentTimestamp);
  return !(sentTimestamp && Number.isFinite(sentAt)) || now - sentAt >= ROUTE_AFTER_WAIT_MS;
}

/** An upload as intake read it with HeadObject: its version, length and user metadata. */
export interface UploadHead {
  readonly ref: S3ObjectRef;
  /** Absent when the object was deleted before it could be read. */
  readonly metadata?: Readonly<Record<string, string>>;
}

/**
 * Reads an upload's metadata, and its version and length when the event left them out: S3 names
 * the object version in every event from a versioned bucket, emulators may not. The version is taken only
 * when the ETag matches the event's, so the job id is the one an uploader computes from its
 * PutObject response.
 */
export async function headUpload(s3: S3Client, ref: S3ObjectRef): Promise<UploadHead> {
  try {
    const head = await s3.send(
      new HeadObjectCommand({
        Bucket: ref.bucket,
        Key: ref.key,
        ...(ref.versionId ? { VersionId: ref.versionId } : {}),
      }),
    );
    const versioned =
      !ref.versionId &&
      head.VersionId &&
      head.VersionId !== 'null' &&
      head.ETag?.replaceAll('"', '') === ref.etag?.replaceAll('"', '');
    return {
      ref: {
        ...ref,
        ...(versioned ? { versionId: head.VersionId } : {}),
        // The length intake bounds before it reads a byte, where the event did not say it.
        ...(ref.size === undefined && head.ContentLength !== undefined ? { size: head.ContentLength } : {}),
      },
      metadata: head.Metadata ?? {},
    };
  } catch (error) {
    if (error instanceof NotFound || error instanceof NoSuchKey || (error as Error).name === 'NoSuchVersion')
      return { ref };
    throw error;
  }
}

const routedSchema = z.object({
  intakeObject: z.object({
    bucket: z.string().min(1),
    key: z.string().min(1),
    versionId: z.string().optional(),
    etag: z.string().optional(),
    size: z.number().optional(),
    principalId: z.string().optional(),
  }),
  // null: the upload has no owner; absent: a message routed before the owner was carried.
  owner: z.string().min(1).nullable().optional(),
});

/** An upload routed to its owner, as the intake message names it. */
export interface RoutedUpload {
  readonly ref: S3ObjectRef;
  /**
   * The owner routing worked out (`null`: nobody), which intake records without working it out
   * again; absent on a message routed before it was carried, whose owner intake works out.
   */
  readonly owner?: string | null;
}

/**
 * The upload an intake message names once it was routed to its owner, or undefined for any other
 * body (an S3 event notification).
 */
export function routedObject(body: string): RoutedUpload | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const r = routedSchema.safeParse(parsed);
  if (!r.success) return undefined;
  const o = r.data.intakeObject;
  const ref = {
    bucket: o.bucket,
    key: o.key,
    ...(o.versionId ? { versionId: o.versionId } : {}),
    ...(o.etag ? { etag: o.etag } : {}),
    ...(o.size !== undefined ? { size: o.size } : {}),
    ...(o.principalId ? { principalId: o.principalId } : {}),
  };
  return { ref, ...(r.data.owner !== undefined ? { owner: r.data.owner } : {}) };
}

/** What routing needs. */
export interface OwnerRouteDeps extends OwnerRule {
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  readonly db: DynamoDBDocumentClient;
  readonly tableName: string;
  /** The intake queue, where the routed message goes back. */
  readonly intakeQueueUrl: string;
  /** Most jobs of one owner running at once (absent or 0: no cap, and every upload is routed). */
  readonly maxJobsPerOwner?: number;
}

/** What routing did with an upload. */
export type Routing =
  /** Sent back to the intake queue as its owner's message. */
  | { readonly routed: true; readonly owner?: string }
  /** Its owner has a slot free: to be taken in now, the owner as routing read it. */
  | { readonly routed: false; readonly upload: RoutedUpload };

/**
 * Reads the upload's owner and, when the owner holds fewer running jobs than the cap, leaves the
 * upload to be taken in now; otherwise sends it back to the intake queue as its owner's message,
 * the owner in it. An upload with no owner, or with no cap set, is always sent back. An object
 * deleted meanwhile goes back as its uploader's: the second step records why its job was refused.
 */
export async function routeToOwner(event: S3ObjectRef, deps: OwnerRouteDeps): Promise<Routing> {
  const { ref, metadata } = await headUpload(deps.s3, event);
  const owner = ownerOfUpload(ref, metadata, deps);
  if (metadata && owner && (await hasFreeSlot(owner, deps))) return { routed: false, upload: { ref, owner } };
  await deps.sqs.send(
    new SendMessageCommand({
      QueueUrl: deps.intakeQueueUrl,
      MessageBody: JSON.stringify({ intakeObject: ref, owner: owner ?? null }),
      MessageGroupId: messageGroupOf(owner),
    }),
  );
  return { routed: true, ...(owner ? { owner } : {}) };
}

/** True when a cap is set and the owner's slot count is below it (one consistent read). */
async function hasFreeSlot(owner: string, deps: OwnerRouteDeps): Promise<boolean> {
  const cap = deps.maxJobsPerOwner ?? 0;
  if (cap <= 0) return false;
  return (await new OwnerSlots(deps.db, deps.tableName).held(owner)) < cap;
}
