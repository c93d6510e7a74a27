/**
 * Intake's first step on the ground, through the real clients: an S3 event's upload goes back on
 * the intake queue as its owner's message (the owner read from the object's metadata), the second
 * receipt makes the job, and on the moto launcher's fair queues one owner's backlog of uploads no
 * longer puts another owner's upload behind it. With an owner cap, only an owner at its cap is
 * sent back; an owner with a slot free is taken in at the first receipt. The file's intake runs
 * without a cap unless a test sets one.
 */
import { DeleteObjectCommand, ListObjectVersionsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { type Message, type MessageSystemAttributeName, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jobIdFor, jobIdOfPut } from '../../lambdas/core/intake/job-id.js';
import { UNOWNED_GROUP } from '../../lambdas/core/intake/message-group.js';
import { routedObject } from '../../lambdas/core/intake/owner-route.js';
import { objectsCreated } from '../../lambdas/core/intake/s3-event.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { configureIntake, handler } from '../../lambdas/intake/handler.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { provisionTestStack } from '../helpers/local-aws.js';
import { intakeOn } from '../helpers/local-intake.js';

const stack = await provisionTestStack('owner-route');
const r = stack.resources;
const { clients, deps } = intakeOn(stack, { maxJobsPerOwner: 0 });
configureIntake(deps);
const { s3, sqs } = clients;
const jobs = new Jobs(clients.db, r.tableName);
const context = { getRemainingTimeInMillis: () => 60_000 } as Context;
const contract = '1. Services. The supplier provides the services.\n\n2. Fees. The client pays the fees.\n';
let uploads = 0;

async function upload(owner: string): Promise<string> {
  return (await uploadJob(owner)).key;
}

/** An upload of `owner`'s, and the job id it makes. */
async function uploadJob(owner: string): Promise<{ key: string; jobId: string }> {
  const key = `${r.intakePrefix}route-${++uploads}.txt`;
  const put = await s3.send(
    new PutObjectCommand({
      Bucket: r.intakeBucket,
      Key: key,
      Body: contract,
      Metadata: { 'submitted-by': owner },
    }),
  );
  return { key, jobId: jobIdOfPut(r.intakeBucket, key, put) };
}

/** Receives up to `max` messages of the intake queue (they stay in flight), with their group. */
async function receive(max = 10): Promise<Message[]> {
  const out = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: r.queueUrls.intake,
      MaxNumberOfMessages: max,
      WaitTimeSeconds: 1,
      VisibilityTimeout: 120,
      MessageSystemAttributeNames: ['MessageGroupId' as MessageSystemAttributeName],
    }),
  );
  return out.Messages ?? [];
}

/**
 * Hands messages to the intake handler as the Lambda event source would; `sentAt` is the records'
 * SentTimestamp (absent: unknown, as if they had waited).
 */
async function invoke(messages: readonly Message[], sentAt?: number): Promise<void> {
  const event = {
    Records: messages.map((m) => ({
      messageId: m.MessageId ?? '',
      receiptHandle: m.ReceiptHandle ?? '',
      body: m.Body ?? '',
      attributes: sentAt === undefined ? {} : { SentTimestamp: String(sentAt) },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: r.queueArns.intake,
      awsRegion: LOCAL_REGION,
    })),
  } as unknown as SQSEvent;
  const result = await handler(event, context);
  expect(result.batchItemFailures).toEqual([]);
}

/**
 * The S3 events of `count` uploads, as S3 put them on the intake queue (a ground's test event,
 * sent when the notification was configured, names no upload and is passed over).
 */
async function s3Events(count: number): Promise<Message[]> {
  const out: Message[] = [];
  for (let i = 0; i < 50 && out.length < count; i++)
    out.push(...(await receive()).filter((m) => objectsCreated(m.Body ?? '').length > 0));
  return out;
}

/** `count` uploads routed to their owners, as the intake queue gives them back. */
async function routedMessages(count: number): Promise<Message[]> {
  const out: Message[] = [];
  for (let i = 0; i < 50 && out.length < count; i++)
    out.push(...(await receive()).filter((m) => routedObject(m.Body ?? '') !== undefined));
  return out;
}

describe('intake routes each upload to its owner', () => {
  it("puts the upload back on the intake queue as its owner's message, and the second receipt makes the job", async () => {
    const keys = [await upload('arn:aws:iam::1:user/alice'), await upload('arn:aws:iam::1:user/bob')];
    await invoke(await s3Events(2));
    const routed = await routedMessages(2);
    expect(
      routed
        .map((m) => {
          const upload = routedObject(m.Body ?? '');
          return [upload?.ref.key, upload?.owner, m.Attributes?.MessageGroupId];
        })
        .sort(),
    ).toEqual([
      [keys[0], 'arn:aws:iam::1:user/alice', 'arn:aws:iam::1:user/alice'],
      [keys[1], 'arn:aws:iam::1:user/bob', 'arn:aws:iam::1:user/bob'],
    ]);
    // The version is read with the owner, so the second step needs no HeadObject of its own.
    expect(routed.every((m) => routedObject(m.Body ?? '')?.ref.versionId)).toBe(true);
    await invoke(routed);
    const made = await Promise.all(routed.map((m) => jobs.find(jobIdOf(m))));
    expect(made.map((j) => [j?.owner, j?.status]).sort()).toEqual([
      ['arn:aws:iam::1:user/alice', 'running'],
      ['arn:aws:iam::1:user/bob', 'running'],
    ]);
  });

  it('records the owner the routed message carries, and reads it from the metadata on a message routed without one', async () => {
    const [carried, older] = [
      await upload('arn:aws:iam::1:user/frank'),
      await upload('arn:aws:iam::1:user/gina'),
    ];
    await invoke(await s3Events(2));
    const routed = await routedMessages(2);
    const bodies = routed.map((m) => JSON.parse(m.Body ?? '') as { intakeObject: { key: string } });
    // The carried owner stands as routing worked it out (a stand-in here, so a second reading of
    // the metadata would show); a message from before the owner was carried has the metadata read.
    const rewritten = routed.map((m, i) => {
      const body = bodies[i];
      if (body?.intakeObject.key === carried)
        return { ...m, Body: JSON.stringify({ ...body, owner: 'routed-owner' }) };
      const { owner: _owner, ...without } = body as { owner?: unknown };
      return { ...m, Body: JSON.stringify(without) };
    });
    await invoke(rewritten);
    const owners = await Promise.all(
      rewritten.map(async (m) => [routedObject(m.Body)?.ref.key, (await jobs.find(jobIdOf(m)))?.owner]),
    );
    expect(owners.sort()).toEqual(
      [
        [carried, 'routed-owner'],
        [older, 'arn:aws:iam::1:user/gina'],
      ].sort(),
    );
  });

  it('takes an upload whose event waited behind nothing in at once, its owner read from the metadata', async () => {
    const key = `${r.intakePrefix}route-${++uploads}.txt`;
    const put = await s3.send(
      new PutObjectCommand({
        Bucket: r.intakeBucket,
        Key: key,
        Body: contract,
        Metadata: { 'submitted-by': 'arn:aws:iam::1:user/dana' },
      }),
    );
    const events = await s3Events(1);
    await invoke(events, Date.now());
    const job = await jobs.find(jobIdOfPut(r.intakeBucket, key, put));
    expect([job?.owner, job?.status]).toEqual(['arn:aws:iam::1:user/dana', 'running']);
    // No second receipt: nothing went back on the intake queue for it.
    const back = await receive();
    expect(back.filter((m) => routedObject(m.Body ?? '')?.ref.key === key)).toEqual([]);
  });

  it('sends an upload whose version was deleted before it was read back unowned, and its job records the deletion', async () => {
    const key = await upload('arn:aws:iam::1:user/carol');
    const [event] = await s3Events(1);
    // The version itself, as deleting the key of a versioned bucket only adds a delete marker
    // and the uploaded version stays readable by its id, on S3 as on LocalStack.
    const { Versions } = await s3.send(
      new ListObjectVersionsCommand({ Bucket: r.intakeBucket, Prefix: key }),
    );
    for (const v of Versions ?? [])
      await s3.send(new DeleteObjectCommand({ Bucket: r.intakeBucket, Key: key, VersionId: v.VersionId }));
    await invoke(event ? [event] : []);
    const routed = await routedMessages(1);
    expect(routed.map((m) => m.Attributes?.MessageGroupId)).toEqual([UNOWNED_GROUP]);
    expect(routed.map((m) => routedObject(m.Body ?? '')?.owner)).toEqual([null]);
    await invoke(routed);
    const job = await jobs.find(jobIdOf(routed[0] as Message));
    expect([job?.status, job?.rejection]).toEqual(['rejected', 'deleted']);
  });

  it("with an owner cap, takes the upload of an owner with a slot free in at once and routes the full owner's", async () => {
    configureIntake({ ...deps, maxJobsPerOwner: 1 });
    try {
      const first = await uploadJob('arn:aws:iam::1:user/hana');
      await invoke(await s3Events(1));
      const started = await jobs.find(first.jobId);
      expect([started?.owner, started?.status]).toEqual(['arn:aws:iam::1:user/hana', 'running']);
      const second = await upload('arn:aws:iam::1:user/hana');
      await invoke(await s3Events(1));
      const routed = await routedMessages(1);
      expect(routed.map((m) => [routedObject(m.Body ?? '')?.ref.key, m.Attributes?.MessageGroupId])).toEqual([
        [second, 'arn:aws:iam::1:user/hana'],
      ]);
      // Nothing of the first went back on the queue: it was taken in at its first receipt.
      expect(routed.some((m) => routedObject(m.Body ?? '')?.ref.key === first.key)).toBe(false);
      await invoke(routed);
      const queued = await jobs.find(jobIdOf(routed[0] as Message));
      expect(queued?.status).toBe('queued');
    } finally {
      configureIntake(deps);
    }
  });

  it.skipIf(process.env.CLAUSE_REVIEW_LOCALSTACK_SUITE)(
    "takes a quiet owner's upload ahead of a busy owner's backlog (the moto launcher's fair queues)",
    async () => {
      for (let i = 0; i < 150; i++) await upload('arn:aws:iam::1:user/busy');
      const quiet = await upload('arn:aws:iam::1:user/quiet');
      const events = await s3Events(151);
      for (let i = 0; i < events.length; i += 10) await invoke(events.slice(i, i + 10));
      // Taken ten at a time and left in flight, as intake's consumers hold them while they work.
      let receives = 0;
      for (let seen = false; !seen && receives < 20; receives++)
        seen = (await receive()).some((m) => routedObject(m.Body ?? '')?.ref.key === quiet);
      // In send order it would be the 16th receive; the busy owner is noisy once 30 of its
      // uploads are in flight, and the quiet owner's comes next.
      expect(receives).toBeLessThanOrEqual(5);
    },
  );
});

function jobIdOf(m: Message): string {
  const routed = routedObject(m.Body ?? '');
  if (!routed) throw new Error(`not a routed upload: ${m.Body}`);
  return jobIdFor(routed.ref);
}
