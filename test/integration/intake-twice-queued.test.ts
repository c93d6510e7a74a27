/**
 * Two intakes of one upload (S3 delivers an event more than once; the owner's routed message
 * can be received twice), the second reading the job before the first queued it behind its
 * owner's cap: the second finds the job queued when it comes to fan out, and leaves it waiting.
 * Before, it sent the queued job's chunk messages (workers dropped them) and recorded its
 * fan-out, so a cancel of the waiting job sent nothing for workers to end and left it to the
 * sweeper's quiet period (a chaos soak found it).
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../lambdas/core/holds/pause.js';
import { intakeObject } from '../../lambdas/core/intake/intake.js';
import type { S3ObjectRef } from '../../lambdas/core/intake/s3-event.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { provisionTestStack } from '../helpers/local-aws.js';
import { intakeOn } from '../helpers/local-intake.js';

const stack = await provisionTestStack('intake-twice');
const r = stack.resources;
// Every owner runs one job at once; nothing consumes the lane queues.
const { clients, deps } = intakeOn(stack, { maxJobsPerOwner: 1 });
const jobs = new Jobs(clients.db, r.tableName);
const owner = `arn:aws:iam::000000000000:user/twice-${Date.now().toString(36)}`;
const contract = '1. Services. The supplier provides the services.\n\n2. Fees. The client pays the fees.\n';

async function upload(name: string): Promise<S3ObjectRef> {
  const key = `${r.intakePrefix}${name}-${Date.now().toString(36)}.txt`;
  const put = await clients.s3.send(
    new PutObjectCommand({
      Bucket: r.intakeBucket,
      Key: key,
      Body: contract,
      Metadata: { 'submitted-by': owner },
    }),
  );
  return {
    bucket: r.intakeBucket,
    key,
    ...(put.VersionId ? { versionId: put.VersionId } : {}),
    ...(put.ETag ? { etag: put.ETag } : {}),
  };
}

/** The lane's chunk messages of `jobId` now on the queue (received and left to come back). */
async function chunkMessagesOf(jobId: string): Promise<number> {
  let found = 0;
  for (let round = 0; round < 5; round++) {
    const got = await clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: r.queueUrls.realtime,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 30,
        WaitTimeSeconds: 1,
      }),
    );
    found += (got.Messages ?? []).filter(
      (m) => (JSON.parse(m.Body ?? '{}') as { jobId?: string }).jobId === jobId,
    ).length;
    if ((got.Messages ?? []).length === 0) break;
  }
  return found;
}

describe('an upload taken in twice while its owner is full', () => {
  it('stays queued with nothing sent, and its cancel sends its chunks for workers to end', async () => {
    const first = await intakeObject(await upload('running'), deps);
    expect(first.outcome).toBe('started');
    const ref = await upload('waiting');
    // The second intake reads the job (none yet) and is held as it reads the upload.
    let reached!: () => void;
    const atRead = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const heldS3 = new Proxy(clients.s3, {
      get(target, prop, receiver) {
        if (prop !== 'send') return Reflect.get(target, prop, receiver);
        return async (command: Parameters<typeof target.send>[0]) => {
          if (command instanceof GetObjectCommand) {
            reached();
            await gate;
          }
          return target.send(command);
        };
      },
    });
    const second = intakeObject(ref, { ...deps, s3: heldS3 });
    await atRead;
    // Meanwhile the first intake of the same upload finds the owner full and queues the job.
    const queued = await intakeObject(ref, deps);
    expect(queued.outcome).toBe('queued');
    release();
    const late = await second;
    expect(late).toMatchObject({ outcome: 'queued', jobId: queued.jobId });
    const job = await jobs.get(queued.jobId);
    expect(job.status).toBe('queued');
    expect(job.fanoutCompletedAt).toBeUndefined();
    expect(await chunkMessagesOf(queued.jobId)).toBe(0);
    // A cancel of the waiting job sends its chunks, for workers to end cancelled without a call.
    expect(
      (
        await cancelJob(queued.jobId, 'cancelled by the test', {
          ...deps,
          finalizeQueueUrl: r.queueUrls.finalize,
        })
      ).cancelled,
    ).toBe(true);
    expect(await chunkMessagesOf(queued.jobId)).toBe(job.chunkCount);
  });
});
