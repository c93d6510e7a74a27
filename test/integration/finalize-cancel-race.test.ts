/**
 * A cancel that lands while finalize writes the report, on the run's DynamoDB: the job's one
 * finalize message (the cancel finds finalize already enqueued and sends no other) still ends it,
 * as cancelled, instead of leaving it unfinalized until the sweeper's next try. The bursts of the
 * thousand bench met this: a job cancelled 2 s after its last chunk was done stayed unfinalized.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { expect, it } from 'vitest';
import { finalizeJob } from '../../lambdas/core/finalize/finalize.js';
import { documentKey, type StoredDocument } from '../../lambdas/core/intake/stored-document.js';
import { Claims } from '../../lambdas/core/state/claims.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { emulatorClients } from '../../localstack/aws-clients.js';
import { provisionTestStack } from '../helpers/local-aws.js';

const stack = await provisionTestStack('finalize-race');
const r = stack.resources;
const text = '1. The Supplier shall not be liable for any indirect or consequential damages.';

it('finalizes a job cancelled while its report was being written, as cancelled', async () => {
  const jobId = `j-race-${Date.now().toString(36)}`;
  const jobs = new Jobs(stack.clients.documents, r.tableName);
  await jobs.createIfAbsent({
    jobId,
    lane: 'realtime',
    bucket: r.intakeBucket,
    key: 'incoming/race.txt',
    analysts: ['liability-counsel'],
    ceilingMicros: 1_000_000,
    deadline: Date.now() + 3_600_000,
  });
  const doc: StoredDocument = {
    jobId,
    format: 'txt',
    sha256: 'ab',
    text,
    chunks: [{ index: 0, clauses: [{ index: 0, id: 'c0001', start: 0, end: text.length, text }] }],
  };
  await stack.clients.s3.send(
    new PutObjectCommand({ Bucket: r.resultsBucket, Key: documentKey(jobId), Body: JSON.stringify(doc) }),
  );
  await new Claims(stack.clients.documents, r.tableName).createAll(jobId, 1);
  expect(
    await jobs.recordPlan(jobId, {
      chunkCount: 1,
      clauseCount: 1,
      callsPlanned: 1,
      sha256: 'ab',
      bytes: text.length,
      format: 'txt',
    }),
  ).toBe('running');

  // Finalize's own client: just before its first write that would end the job, a person cancels it.
  const mine = emulatorClients(stack.endpoint);
  let cancelled = false;
  mine.documents.middlewareStack.add(
    (next) => async (args) => {
      const input = JSON.stringify(args.input);
      if (!cancelled && input.includes('finalizedAt')) {
        cancelled = true;
        expect((await jobs.cancel(jobId, 'by the test')).cancelled).toBe(true);
      }
      return next(args);
    },
    { step: 'initialize', name: 'cancelMidFinalize' },
  );
  const outcome = await finalizeJob(jobId, {
    db: mine.documents,
    s3: mine.s3,
    tableName: r.tableName,
    resultsBucket: r.resultsBucket,
    resultsPrefix: 'reports/',
  });
  mine.destroy();
  expect(cancelled).toBe(true);
  expect(outcome.finalized).toBe(true);
  expect(outcome.report?.job.status).toBe('cancelled');
  const job = await jobs.get(jobId);
  expect([job.status, job.finalizedAt !== undefined]).toEqual(['cancelled', true]);
});
