/**
 * An owner's slots on the run's DynamoDB (moto's launcher): a job takes one in the transaction
 * that starts it and gives it back in the transaction that stops it, whichever status change
 * stops it; two starters of one queued job start it once.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { JobHolds } from '../../lambdas/core/state/job-holds.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { STATUS_INDEX } from '../../lambdas/core/state/keys.js';
import { OwnerSlots } from '../../lambdas/core/state/owner-slots.js';
import { emulatorClients } from '../../localstack/aws-clients.js';
import { provisionTestStack } from '../helpers/local-aws.js';
import { ownerJobMaker, SMALL_PLAN } from '../helpers/owner-jobs.js';

const stack = await provisionTestStack('slots');
const db = DynamoDBDocumentClient.from(stack.clients.dynamodb);
const table = stack.resources.tableName;
const jobs = new Jobs(db, table);
const slots = new OwnerSlots(db, table);
const holds = new JobHolds(db, table);
const plan = SMALL_PLAN;
const newJob = ownerJobMaker(jobs, 'slots');

describe('OwnerSlots', () => {
  it('reads the status index the topology provisions', () => {
    expect(stack.topology.table.indexes.map((i) => i.name)).toContain(STATUS_INDEX);
  });

  it('starts a job while its owner has room, and refuses the one over the cap without changing it', async () => {
    const owner = 'arn:aws:iam::000000000000:user/ann';
    const first = await newJob(owner);
    const second = await newJob(owner);
    expect(await slots.take(first, owner, 'intake', 1, { set: plan })).toBe('running');
    expect(await jobs.get(first)).toMatchObject({ status: 'running', holdsSlot: true, chunkCount: 2 });
    expect(await slots.take(second, owner, 'intake', 1, { set: plan })).toBe('full');
    expect((await jobs.get(second)).status).toBe('intake');
    expect(await slots.held(owner)).toBe(1);
    // Another owner is not held back.
    const other = await newJob('arn:aws:iam::000000000000:user/ben');
    expect(await slots.take(other, 'arn:aws:iam::000000000000:user/ben', 'intake', 1)).toBe('running');
  });

  it('queues a job with its plan, lists it oldest first, and starts it once of two starters', async () => {
    const owner = 'arn:aws:iam::000000000000:user/cy';
    const running = await newJob(owner);
    await slots.take(running, owner, 'intake', 1, { set: plan });
    const [older, newer] = [await newJob(owner), await newJob(owner)];
    expect(await slots.queue(older, owner, plan)).toBe(true);
    await new Promise((r) => setTimeout(r, 5));
    expect(await slots.queue(newer, owner, plan)).toBe(true);
    expect(await slots.queue(newer, owner, plan)).toBe(false);
    expect(await jobs.get(older)).toMatchObject({ status: 'queued', chunkCount: 2 });
    expect((await jobs.get(older)).queuedAt).toBeDefined();
    expect(await slots.queued(owner)).toEqual([older, newer]);
    expect(await slots.ownersWithQueued()).toContain(owner);
    // Full: the cap intake recorded holds for a starter that names none.
    expect(await slots.take(older, owner, 'queued', undefined)).toBe('full');
    expect(await jobs.finish(running, 'completed', {}, ['running'])).toBe(true);
    expect(await slots.held(owner)).toBe(0);
    const outcomes = await Promise.all([
      slots.take(older, owner, 'queued', undefined),
      slots.take(older, owner, 'queued', undefined),
    ]);
    expect(outcomes.filter((o) => o === 'running')).toHaveLength(1);
    expect(await slots.held(owner)).toBe(1);
    expect((await jobs.get(older)).status).toBe('running');
    expect(await slots.take(newer, owner, 'queued', undefined)).toBe('full');
  });

  it("reads one owner's queue as its own key range, and lists the owners one read each", async () => {
    // Clients of its own, to see what each Query read.
    const mine = emulatorClients(stack.endpoint);
    const watched = mine.documents;
    const reads: { scanned: number; returned: number }[] = [];
    watched.middlewareStack.add(
      (next, context) => async (args) => {
        const r = await next(args);
        if (context.commandName === 'QueryCommand') {
          const out = r.output as { ScannedCount?: number; Count?: number };
          reads.push({ scanned: out.ScannedCount ?? 0, returned: out.Count ?? 0 });
        }
        return r;
      },
      { step: 'initialize', name: 'countReads' },
    );
    const own = new OwnerSlots(watched, table);
    const busy = 'arn:aws:iam::000000000000:user/busy';
    const quiet = 'arn:aws:iam::000000000000:user/quiet';
    // An owner whose id extends the quiet one's with '#': its keys fall in the same range.
    const lookalike = `${quiet}#2`;
    const queue = async (owner: string) => {
      const id = await newJob(owner);
      expect(await own.queue(id, owner, plan)).toBe(true);
      return id;
    };
    for (let i = 0; i < 12; i++) await queue(busy);
    const quietJobs = [await queue(quiet), await queue(quiet)];
    await queue(lookalike);
    reads.length = 0;
    expect(await own.queued(quiet)).toEqual(quietJobs);
    // The quiet owner's two jobs and the lookalike's one were read; none of the busy owner's twelve.
    expect(reads.reduce((n, r) => n + r.scanned, 0)).toBe(3);
    reads.length = 0;
    expect(await own.ownersWithQueued()).toEqual(expect.arrayContaining([busy, quiet, lookalike]));
    expect(reads.every((r) => r.scanned <= 1)).toBe(true);
    mine.destroy();
  });

  it('gives the slot back on a cancel, a pause and a refused change keeps it', async () => {
    const owner = 'arn:aws:iam::000000000000:user/di';
    const a = await newJob(owner);
    await slots.take(a, owner, 'intake', 2, { set: plan });
    const b = await newJob(owner);
    await slots.take(b, owner, 'intake', 2, { set: plan });
    expect(await slots.held(owner)).toBe(2);
    // A change whose own condition fails leaves the job and the count alone.
    expect(await jobs.finish(a, 'completed', {}, ['paused'])).toBe(false);
    expect(await slots.held(owner)).toBe(2);
    const cancelled = await jobs.cancel(a, 'by the test');
    expect(cancelled).toMatchObject({ cancelled: true, gaveBackSlot: true, job: { status: 'cancelled' } });
    expect(cancelled.job.holdsSlot).toBeUndefined();
    expect(await slots.held(owner)).toBe(1);
    const paused = await holds.pause(b, 'the test');
    expect(paused).toMatchObject({ changed: true, gaveBackSlot: true, job: { status: 'paused' } });
    expect(await slots.held(owner)).toBe(0);
    // A resumed job takes a slot again, and gives it back when it ends.
    expect(await holds.resume(b)).toMatchObject({
      changed: true,
      job: { status: 'running', holdsSlot: true },
    });
    expect(await slots.held(owner)).toBe(1);
    expect(await jobs.finish(b, 'completed', {}, ['running'])).toBe(true);
    expect(await slots.held(owner)).toBe(0);
    // A job that never held a slot is cancelled, and nothing is given back.
    const c = await newJob(owner);
    const plain = await jobs.cancel(c);
    expect(plain.cancelled).toBe(true);
    expect(plain.gaveBackSlot).toBeUndefined();
    expect(await slots.held(owner)).toBe(0);
  });

  it('queues a job resumed while its owner is full, still paused, and starts nothing over the cap', async () => {
    const owner = 'arn:aws:iam::000000000000:user/eve';
    const a = await newJob(owner);
    await slots.take(a, owner, 'intake', 1, { set: plan });
    const paused = await holds.pause(a, 'the test');
    const b = await newJob(owner);
    expect(await slots.take(b, owner, 'intake', 1, { set: plan })).toBe('running');
    const resumed = await holds.resume(a);
    expect(resumed).toMatchObject({
      changed: true,
      job: { status: 'queued', pausedAt: paused.job.pausedAt },
    });
    expect(resumed.job.holdsSlot).toBeUndefined();
    expect(await slots.held(owner)).toBe(1);
    expect(await slots.queued(owner)).toEqual([a]);
    // A second resume finds it no longer paused.
    expect((await holds.resume(a)).changed).toBe(false);
  });

  it('does not pause a job whose report is on its way', async () => {
    const owner = 'arn:aws:iam::000000000000:user/fay';
    const a = await newJob(owner);
    await slots.take(a, owner, 'intake', 1, { set: { ...plan, chunkCount: 0 } });
    expect(await jobs.claimFinalize(a)).toBe(true);
    const refused = await holds.pause(a, 'the test');
    expect(refused).toMatchObject({ changed: false, job: { status: 'running' } });
    expect(await slots.held(owner)).toBe(1);
  });
});
