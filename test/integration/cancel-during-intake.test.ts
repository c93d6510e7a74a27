/**
 * A job cancelled while intake reads its document, whose document intake then refuses: the
 * rejection cannot move it to `rejected` (it is cancelled), no chunk will ever run and no
 * finalize will come, so the refusal is recorded on the cancelled job, which ends there.
 * Before, it stayed cancelled and never finalized (a chaos soak found it).
 */
import { describe, expect, it } from 'vitest';
import { Claims } from '../../lambdas/core/state/claims.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { provisionTestStack } from '../helpers/local-aws.js';

const stack = await provisionTestStack('cancel-intake');
const db = stack.clients.documents;
const table = stack.resources.tableName;
const jobs = new Jobs(db, table);

async function newJob(jobId: string): Promise<void> {
  await jobs.createIfAbsent({
    jobId,
    lane: 'realtime',
    bucket: 'b',
    key: 'k',
    analysts: ['liability-counsel'],
    ceilingMicros: 1_000_000,
    deadline: Date.now() + 600_000,
  });
}

describe('a document refused after its job was cancelled in intake', () => {
  it('ends the cancelled job with the refusal recorded, still cancelled', async () => {
    await newJob('j-cancel-then-reject');
    expect((await jobs.cancel('j-cancel-then-reject')).cancelled).toBe(true);
    await jobs.markRejected('j-cancel-then-reject', 'The file is empty (0 bytes).', {
      rejection: 'empty',
      bytes: 0,
    });
    const job = await jobs.get('j-cancel-then-reject');
    expect(job).toMatchObject({
      status: 'cancelled',
      reason: 'The file is empty (0 bytes).',
      rejection: 'empty',
      chunkCount: 0,
    });
    expect(job.cancelledAt).toBeDefined();
    expect(job.finalizedAt).toBeDefined();
  });

  it('leaves a cancelled job that has a plan to its chunks and finalize', async () => {
    await newJob('j-cancel-planned');
    await new Claims(db, table).createAll('j-cancel-planned', 1);
    await jobs.recordPlan('j-cancel-planned', {
      chunkCount: 1,
      clauseCount: 1,
      callsPlanned: 1,
      sha256: 'abc',
      bytes: 10,
      format: 'txt',
    });
    await jobs.cancel('j-cancel-planned');
    await jobs.markRejected('j-cancel-planned', 'late refusal', { rejection: 'empty' });
    const job = await jobs.get('j-cancel-planned');
    expect(job.status).toBe('cancelled');
    expect(job.finalizedAt).toBeUndefined();
    expect(job.rejection).toBeUndefined();
  });

  it('rejects a job still in intake as before', async () => {
    await newJob('j-plain-reject');
    await jobs.markRejected('j-plain-reject', 'The file is empty (0 bytes).', { rejection: 'empty' });
    expect(await jobs.get('j-plain-reject')).toMatchObject({ status: 'rejected', rejection: 'empty' });
  });
});
