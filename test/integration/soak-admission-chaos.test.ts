/**
 * The soak's hold on admission control, on the run's DynamoDB (moto's launcher): its trail
 * records every slot taken or given back, every job queued or cancelled and every fan-out
 * recorded, as the pipeline's own writes make them, and leaves a refused take out; its dying invocations stop at the landmark they aim for,
 * with the write made and nothing after it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { cancelJob } from '../../lambdas/core/holds/pause.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { JOB_SK, jobPk } from '../../lambdas/core/state/keys.js';
import { OwnerSlots } from '../../lambdas/core/state/owner-slots.js';
import { resendConflicts } from '../../lambdas/core/state/transact.js';
import { clientConfig, EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { provisionTestStack } from '../helpers/local-aws.js';
import { ownerJobMaker, SMALL_PLAN } from '../helpers/owner-jobs.js';
import { InvocationDiedError, Life, mortal, mortalClients } from '../soak/mortal.js';
import { watchSlots } from '../soak/slot-trail.js';

const stack = await provisionTestStack('soakslots');
// A client of this file's own: the trail's middleware goes on its stack only.
const { forcePathStyle: _unused, ...connection } = clientConfig({
  endpoint: stack.endpoint,
  region: LOCAL_REGION,
  credentials: EMULATOR_CREDENTIALS,
});
// Resending transaction conflicts as the runtime's client does: a stamp on the job item just after
// a transaction on it meets moto's hold of that item, as it would meet DynamoDB's.
const raw = resendConflicts(new DynamoDBClient(connection));
afterAll(() => raw.destroy());
const db = DynamoDBDocumentClient.from(raw);
const trail = watchSlots(db);
const table = stack.resources.tableName;
const jobs = new Jobs(db, table);
const slots = new OwnerSlots(db, table);
const plan = SMALL_PLAN;
const newJob = ownerJobMaker(jobs, 'soak');
const run = Date.now().toString(36);

const holdDeps = (clients: { db: DynamoDBDocumentClient }) => ({
  db: clients.db,
  s3: stack.clients.s3,
  sqs: stack.clients.sqs,
  tableName: table,
  resultsBucket: stack.resources.resultsBucket,
  laneQueueUrls: stack.resources.queueUrls,
  finalizeQueueUrl: stack.resources.queueUrls.finalize,
});

describe("the soak's slot trail", () => {
  it('records a take with its start, a fan-out, a queueing and a cancel with its give-back in the order they were made, and no refused take', async () => {
    const owner = `arn:aws:iam::000000000000:user/trail-${run}`;
    const first = await newJob(owner);
    const second = await newJob(owner);
    const from = trail.entries.length;
    expect(await slots.take(first, owner, 'intake', 1, { set: plan })).toEqual({ outcome: 'running' });
    await jobs.markFannedOut(first);
    expect(await slots.take(second, owner, 'intake', 1, { set: plan })).toEqual({ outcome: 'full' });
    expect(await slots.queue(second, owner, plan)).toBe(true);
    expect((await jobs.cancel(first)).gaveBackSlot).toBe(true);
    const written = trail.entries.slice(from);
    expect(written.map((e) => [e.kind, e.jobId, e.outcome])).toEqual([
      ['take', first, 'ok'],
      ['started', first, 'ok'],
      ['fanned-out', first, 'ok'],
      ['queued', second, 'ok'],
      ['release', first, 'ok'],
      ['cancelled', first, 'ok'],
    ]);
    expect(written.filter((e) => 'owner' in e).map((e) => 'owner' in e && e.owner)).toEqual([owner, owner]);
    // Each answered after it was sent, each request after the one before was answered.
    expect(written.every((e) => e.sentSeq < e.answeredSeq)).toBe(true);
    const requests = [
      ...new Map(written.map((e) => [e.sentSeq, [e.sentSeq, e.answeredSeq]])).values(),
    ].flat();
    expect(requests).toEqual([...requests].sort((a, b) => a - b));
  });
});

describe("the soak's dying invocations", () => {
  it('die just after the landmark they aim for: a cancel gives back the slot and starts nothing', async () => {
    const owner = `arn:aws:iam::000000000000:user/dying-${run}`;
    const running = await newJob(owner);
    const waiting = await newJob(owner);
    await slots.take(running, owner, 'intake', 1, { set: plan });
    await slots.take(waiting, owner, 'intake', 1, { set: plan });
    await slots.queue(waiting, owner, plan);
    const { clients, life } = mortalClients(
      { db, s3: stack.clients.s3, sqs: stack.clients.sqs },
      { landmark: 'cancelled', later: 0 },
    );
    await expect(cancelJob(running, 'soak', holdDeps(clients))).rejects.toBeInstanceOf(InvocationDiedError);
    expect(life.died).toBe(true);
    // The cancel and its give-back were made; the start of the owner's queued job never was.
    expect(await jobs.get(running)).toMatchObject({ status: 'cancelled' });
    expect((await jobs.get(running)).holdsSlot).toBeUndefined();
    expect(await slots.held(owner)).toBe(0);
    expect((await jobs.get(waiting)).status).toBe('queued');
    // Nothing the dead invocation sends reaches the table.
    await expect(
      clients.db.send(new GetCommand({ TableName: table, Key: { pk: jobPk(waiting), sk: JOB_SK } })),
    ).rejects.toBeInstanceOf(InvocationDiedError);
  });

  it('die after a count of requests, the last one made', async () => {
    const life = new Life({ afterRequests: 2 });
    const client = mortal(db, life);
    const owner = `arn:aws:iam::000000000000:user/count-${run}`;
    const jobId = await newJob(owner);
    const get = () =>
      client.send(new GetCommand({ TableName: table, Key: { pk: jobPk(jobId), sk: JOB_SK } }));
    expect((await get()).Item?.jobId).toBe(jobId);
    await expect(get()).rejects.toBeInstanceOf(InvocationDiedError);
    expect(life.died).toBe(true);
    await expect(get()).rejects.toBeInstanceOf(InvocationDiedError);
  });

  it('never die on a path that does not reach their landmark', async () => {
    const owner = `arn:aws:iam::000000000000:user/alive-${run}`;
    const jobId = await newJob(owner);
    const { clients, life } = mortalClients(
      { db, s3: stack.clients.s3, sqs: stack.clients.sqs },
      { landmark: 'slot-release', later: 0 },
    );
    // A job that holds no slot is cancelled without giving one back.
    expect((await cancelJob(jobId, 'soak', holdDeps(clients))).cancelled).toBe(true);
    expect(life.died).toBe(false);
  });
});
