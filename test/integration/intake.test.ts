import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { textBefore } from '../../lambdas/core/documents/index.js';
import { jobIdFor, storedClauses } from '../../lambdas/core/intake/intake.js';
import { readStoredDocument } from '../../lambdas/core/intake/stored-document.js';
import { Claims } from '../../lambdas/core/state/claims.js';
import { buildPdf, sampleLines } from '../fixtures/documents/builders.js';
import {
  commentEnd,
  commentStart,
  del,
  ins,
  OTHER,
  para,
  revisedDocx,
  run,
} from '../helpers/docx-revisions.js';
import { fixture, LARGE, SMALL, startHarness } from '../helpers/pipeline.js';

// A low size limit, so that "too large" is a real contract rather than 10 MB of filler.
const h = await startHarness('intake', { settings: { maxDocumentBytes: 64 * 1024 } });
const { s3, sqs, db } = h.pipeline.clients;
const utf8 = (s: string) => new TextEncoder().encode(s);

async function queueIsIdle(url: string): Promise<boolean> {
  const r = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(r.Attributes?.ApproximateNumberOfMessages) === 0 &&
    Number(r.Attributes?.ApproximateNumberOfMessagesNotVisible) === 0
  );
}

async function untilIntakeIdle(): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await queueIsIdle(h.stack.resources.queueUrls.intake))) {
    if (Date.now() > deadline) throw new Error('the intake queue did not drain within 30 s');
    await new Promise((r) => setTimeout(r, 200));
  }
}

const badInputs: [string, string, () => Uint8Array, string, RegExp][] = [
  ['an empty file', 'empty.txt', () => new Uint8Array(), 'empty', /empty/],
  [
    'binary bytes named .txt',
    'blob.txt',
    () => Uint8Array.from([0x31, 0x2e, 0x20, 0xc3, 0x28, 0xff, 0x41]),
    'binary',
    /UTF-8/,
  ],
  ['a corrupt PDF', 'cut.pdf', () => buildPdf([sampleLines()]).slice(0, 400), 'corrupt', /PDF is damaged/],
  [
    'an encrypted PDF',
    'locked.pdf',
    () => buildPdf([sampleLines()], { encrypted: true }),
    'encrypted',
    /password/,
  ],
  ['a contract over the size limit', 'big.txt', () => fixture(LARGE), 'too-large', /over the 64 KB limit/],
  ['an unsupported type', 'sheet.xlsx', () => utf8('1. Fees. Client pays.'), 'unsupported-type', /\.xlsx/],
  [
    'a document with no clauses',
    'dots.txt',
    () => utf8('--- *** ...\n\n!!! ___'),
    'no-clauses',
    /No clauses/,
  ],
  [
    'a scan without a text layer',
    'scan.pdf',
    () => buildPdf([sampleLines()], { imageOnly: true }),
    'empty',
    /scanned/,
  ],
];

describe('intake of bad input', () => {
  it.each(badInputs)(
    'rejects %s with its reason, keeps the object and sends no chunk',
    async (_what, name, bytes, rejection, message) => {
      const body = bytes();
      const jobId = await h.upload(name, body);
      const job = await h.waitForEnd(jobId, 30_000);
      expect(job.status).toBe('rejected');
      expect(job.rejection).toBe(rejection);
      expect(job.reason).toMatch(message);
      const head = await s3.send(
        new HeadObjectCommand({ Bucket: h.stack.resources.intakeBucket, Key: `incoming/${name}` }),
      );
      expect(head.ContentLength).toBe(body.length);
      expect(await new Claims(db, h.stack.resources.tableName).list(jobId)).toEqual([]);
    },
  );

  it('rejects upload options it does not understand, naming the option', async () => {
    const jobId = await h.upload('options.txt', fixture(SMALL), { lane: 'express' });
    const job = await h.waitForEnd(jobId, 30_000);
    expect(job.status).toBe('rejected');
    expect(job.rejection).toBe('invalid-options');
    expect(job.reason).toMatch(/lane/);
  });

  it('refuses a ceiling below the quote, naming the amount needed, and keeps the quote on the job', async () => {
    const jobId = await h.upload('under-quote.txt', fixture(SMALL), { 'ceiling-usd': '0.0001' });
    const job = await h.waitForEnd(jobId, 30_000);
    expect(job.status).toBe('rejected');
    expect(job.rejection).toBe('budget-below-quote');
    expect(job.reason).toMatch(
      /the cost ceiling \$0\.0001 is below this job's expected cost \$0\.\d{4} \(worst case \$0\.\d{2,4}/,
    );
    expect(job.reason).toMatch(/allow-partial=true/);
    expect(job.quote?.expectedMicros).toBeGreaterThan(1000);
    expect(job.quote?.worstCaseMicros).toBeGreaterThanOrEqual(job.quote?.expectedMicros ?? 0);
    expect(job.costSpent).toBe(0);
  });

  it('refuses a job whose model Bedrock no longer serves, before any call', async () => {
    h.bedrock.setPlan({
      catalogue: {
        lifecycle: { 'anthropic.claude-haiku-5-5': { endOfLifeTime: '2026-01-01T00:00:00Z' } },
      },
    });
    try {
      // The guard remembers a verdict for a second.
      await new Promise((r) => setTimeout(r, 1100));
      const jobId = await h.upload('retired-model.txt', fixture(SMALL));
      const job = await h.waitForEnd(jobId, 30_000);
      expect(job.status).toBe('rejected');
      expect(job.rejection).toBe('model-unavailable');
      expect(job.reason).toMatch(/'us\.anthropic\.claude-haiku-5-5' has reached end of life/);
    } finally {
      h.bedrock.setPlan({ catalogue: { lifecycle: { 'anthropic.claude-haiku-5-5': null } } });
      await new Promise((r) => setTimeout(r, 1100));
    }
  });

  it('made no model call and left no chunk message for any of them', async () => {
    expect(h.bedrock.accounting().totals.calls).toBe(0);
    expect(await queueIsIdle(h.stack.resources.queueUrls.realtime)).toBe(true);
    expect(await queueIsIdle(h.stack.resources.queueUrls.batch)).toBe(true);
  });
});

describe('a repeated S3 event', () => {
  it('finds the job it already started: one job, no call made twice', async () => {
    const key = `incoming/${SMALL}`;
    const put = await s3.send(
      new PutObjectCommand({ Bucket: h.stack.resources.intakeBucket, Key: key, Body: fixture(SMALL) }),
    );
    const jobId = jobIdFor({
      bucket: h.stack.resources.intakeBucket,
      key,
      ...(put.VersionId ? { versionId: put.VersionId } : {}),
    });
    const first = await h.waitForEnd(jobId, 60_000);
    expect(first.status).toBe('completed');
    const callsBefore = h.bedrock.accounting().totals.calls;

    const event = JSON.stringify({
      Records: [
        {
          eventVersion: '2.1',
          eventSource: 'aws:s3',
          eventName: 'ObjectCreated:Put',
          s3: {
            bucket: { name: h.stack.resources.intakeBucket },
            object: { key, size: fixture(SMALL).length, eTag: put.ETag, versionId: put.VersionId },
          },
        },
      ],
    });
    await Promise.all(
      [1, 2, 3].map(() =>
        sqs.send(
          new SendMessageCommand({ QueueUrl: h.stack.resources.queueUrls.intake, MessageBody: event }),
        ),
      ),
    );
    await untilIntakeIdle();

    const after = await h.jobs.get(first.jobId);
    expect(after.createdAt).toBe(first.createdAt);
    expect(after.finalizedAt).toBe(first.finalizedAt);
    expect(h.bedrock.accounting().totals.calls).toBe(callsBefore);
    const items = await db.send(
      new ScanCommand({
        TableName: h.stack.resources.tableName,
        FilterExpression: 'sk = :job AND #key = :key AND versionId = :v',
        ExpressionAttributeNames: { '#key': 'key' },
        ExpressionAttributeValues: { ':job': 'JOB', ':key': key, ':v': put.VersionId },
      }),
    );
    expect(items.Items).toHaveLength(1);
  });
});

describe('the submitter of a direct upload', () => {
  it('is the principal the S3 event names, whatever submitter the metadata claims', async () => {
    // Outside the notified prefix, so the only event is the one sent here, shaped as S3 sends it.
    const key = `direct/owned-${Date.now()}.txt`;
    const put = await s3.send(
      new PutObjectCommand({
        Bucket: h.stack.resources.intakeBucket,
        Key: key,
        Body: fixture(SMALL),
        Metadata: { 'submitted-by': 'arn:aws:iam::000000000000:user/victim', lane: 'batch' },
      }),
    );
    const event = JSON.stringify({
      Records: [
        {
          eventVersion: '2.1',
          eventSource: 'aws:s3',
          eventName: 'ObjectCreated:Put',
          userIdentity: { principalId: 'AWS:AIDAUPLOADEREXAMPLE' },
          s3: {
            bucket: { name: h.stack.resources.intakeBucket },
            object: { key, size: fixture(SMALL).length, eTag: put.ETag, versionId: put.VersionId },
          },
        },
      ],
    });
    await sqs.send(
      new SendMessageCommand({ QueueUrl: h.stack.resources.queueUrls.intake, MessageBody: event }),
    );
    const jobId = jobIdFor({
      bucket: h.stack.resources.intakeBucket,
      key,
      ...(put.VersionId ? { versionId: put.VersionId } : {}),
    });
    const deadline = Date.now() + 30_000;
    let job = await h.jobs.find(jobId);
    while (!job && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      job = await h.jobs.find(jobId);
    }
    expect(job?.owner).toBe('AWS:AIDAUPLOADEREXAMPLE');
    await h.jobs.cancel(jobId);
  });
});

describe('a ceiling below the quote, on purpose', () => {
  it('runs a ceiling below the quote with allow-partial, and records the quote', async () => {
    const jobId = await h.upload('partial.txt', fixture(SMALL), {
      'ceiling-usd': '0.0005',
      'allow-partial': 'true',
    });
    const job = await h.waitForEnd(jobId, 60_000);
    expect(job.status).toBe('budget_exceeded');
    expect(job.quote?.expectedMicros).toBeGreaterThan(1000);
    expect(job.quote?.worstCaseMicros).toBeGreaterThan(job.quote?.expectedMicros ?? 0);
    expect(job.costSpent).toBeLessThanOrEqual(10_000);
  });
});

describe('a job cancelled while intake reads it', () => {
  it('keeps cancelled but records its plan, so its report accounts for every planned call', async () => {
    const plan = {
      chunkCount: 3,
      clauseCount: 20,
      callsPlanned: 220,
      sha256: 'abc',
      bytes: 10,
      format: 'txt' as const,
    };
    const base = {
      lane: 'realtime' as const,
      bucket: 'b',
      key: 'k',
      analysts: [],
      ceilingMicros: 1_000_000,
      deadline: Date.now() + 60_000,
    };
    await h.jobs.createIfAbsent({ ...base, jobId: 'j-cancelled-in-intake' });
    await h.jobs.cancel('j-cancelled-in-intake');
    expect(await h.jobs.recordPlan('j-cancelled-in-intake', plan)).toBe('cancelled');
    expect(await h.jobs.get('j-cancelled-in-intake')).toMatchObject({ status: 'cancelled', ...plan });
    // Once only: a repeated intake does not count the plan again.
    expect(await h.jobs.recordPlan('j-cancelled-in-intake', { ...plan, chunkCount: 9 })).toBe('cancelled');
    expect((await h.jobs.get('j-cancelled-in-intake')).chunkCount).toBe(3);

    await h.jobs.createIfAbsent({ ...base, jobId: 'j-running-after-intake' });
    expect(await h.jobs.recordPlan('j-running-after-intake', plan)).toBe('running');
    expect(await h.jobs.get('j-running-after-intake')).toMatchObject({ status: 'running', ...plan });
  });
});

describe("an S3 event naming the ground's placeholder principal", () => {
  it('is read as naming nobody, so the submitter the upload names owns the job', async () => {
    // Outside the notified prefix, so that the only event is the one sent below.
    const key = 'not-notified/placeholder-principal.txt';
    const put = await h.pipeline.clients.s3.send(
      new PutObjectCommand({
        Bucket: h.stack.resources.intakeBucket,
        Key: key,
        Body: fixture(SMALL),
        Metadata: { 'submitted-by': 'arn:aws:iam::000000000000:user/alice' },
      }),
    );
    const jobId = jobIdFor({
      bucket: h.stack.resources.intakeBucket,
      key,
      ...(put.VersionId ? { versionId: put.VersionId } : {}),
    });
    // LocalStack writes this principal into every event, whoever uploaded.
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: h.stack.resources.queueUrls.intake,
        MessageBody: JSON.stringify({
          Records: [
            {
              eventVersion: '2.1',
              eventSource: 'aws:s3',
              eventName: 'ObjectCreated:Put',
              userIdentity: { principalId: 'AIDAJDPLRKLG7UEXAMPLE' },
              s3: {
                bucket: { name: h.stack.resources.intakeBucket },
                object: { key, size: fixture(SMALL).length, eTag: put.ETag, versionId: put.VersionId },
              },
            },
          ],
        }),
      }),
    );
    const job = await h.waitForEnd(jobId, 60_000);
    expect(job.owner).toBe('arn:aws:iam::000000000000:user/alice');
  });
});

describe('a Word document with the other side’s markup', () => {
  it('stores their tracked changes and comment with the document, placed by the clauses’ offsets', async () => {
    const body =
      para(
        run('1. Fees. The Customer shall pay each invoice within '),
        del('thirty (30)'),
        ins('ninety (90)'),
        run(' days.'),
      ) +
      para(
        commentStart(0),
        run('2. Term. This agreement renews for one year unless ended on notice.'),
        commentEnd(0),
      );
    const docx = revisedDocx(body, { comments: [{ id: 0, author: OTHER, text: 'Five years, please.' }] });
    const jobId = await h.upload('their-answer.docx', docx);
    const job = await h.waitForEnd(jobId, 60_000);
    expect(job.status).toBe('completed');
    const stored = await readStoredDocument(s3, h.stack.resources.resultsBucket, jobId);
    const clauses = storedClauses(stored);
    expect(stored.text).toContain('within ninety (90) days');
    expect(stored.revisions?.changes.map((c) => [c.kind, c.text, c.author, c.clauseIds])).toEqual([
      ['deletion', 'thirty (30)', OTHER, [clauses[0]?.id]],
      ['insertion', 'ninety (90)', OTHER, [clauses[0]?.id]],
    ]);
    const comment = stored.revisions?.comments[0];
    expect([comment?.text, stored.text.slice(comment?.start, comment?.end)]).toEqual([
      'Five years, please.',
      '2. Term. This agreement renews for one year unless ended on notice.',
    ]);
    expect(textBefore(stored.text, stored.revisions?.restore ?? [])).toContain('within thirty (30) days');
  });

  it('stores no revisions for a document with none', async () => {
    const jobId = await h.upload(
      'plain.docx',
      revisedDocx(para(run('1. Fees. The Customer pays every invoice in full.'))),
    );
    expect((await h.waitForEnd(jobId, 60_000)).status).toBe('completed');
    const stored = await readStoredDocument(s3, h.stack.resources.resultsBucket, jobId);
    expect(stored.revisions).toBeUndefined();
    expect(storedClauses(stored)).toHaveLength(1);
  });
});
