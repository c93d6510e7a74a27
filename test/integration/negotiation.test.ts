/**
 * A round of a negotiation through the local pipeline and the stand-in: their tracked answer, and
 * the same answer as a clean copy compared with our version (an earlier job, or a file uploaded
 * beside it). Intake plans the changed clauses as they read before as clauses of their own
 * (priced in the quote, counted in coverage, never reported as the contract's); finalize judges
 * each change and answers it; the clean copy finds the same changes with the same verdicts.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient, uploadDocument, uploadVersion } from '../../bin/client/api-client.js';
import { ANALYSTS } from '../../lambdas/core/analysts/index.js';
import { jobIdFor } from '../../lambdas/core/intake/intake.js';
import { readStoredDocument } from '../../lambdas/core/intake/stored-document.js';
import { encodeFindingsCursor, readLiveFindings } from '../../lambdas/core/live/index.js';
import type { Job } from '../../lambdas/core/state/job.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { localCallerArn, startPipelineApi } from '../../localstack/runtime/local-api.js';
import { apiRefusal } from '../helpers/cli-target.js';
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
import { startHarness } from '../helpers/pipeline.js';
import { partText } from '../helpers/tracked-changes.js';

const h = await startHarness('negotiation');
const { s3 } = h.pipeline.clients;

const TITLE = 'HOSTING SERVICES AGREEMENT';
const FEES =
  '2. Fees. The Customer shall pay each valid invoice within forty-five (45) days of receiving it.';
const LAW = '6. Governing Law. This Agreement is governed by the laws of England and Wales.';
/** Our version's clauses, and what their answer made of three of them. */
const OURS = [
  '1. Services. The Supplier shall provide the hosting services described in Schedule A.',
  FEES,
  "3. Limitation of Liability. Each party's total aggregate liability is limited to the fees paid in the twenty-four (24) months before the claim.",
  '4. Term. This Agreement renews for successive periods of twelve (12) months unless the Customer gives notice of non-renewal at least thirty (30) days before the end of the term.',
  '5. Suspension. The Supplier may suspend the services on thirty (30) days written notice for non-payment.',
  LAW,
];
const THEIRS = [
  OURS[0],
  FEES,
  "3. Limitation of Liability. Each party's total aggregate liability is limited to the fees paid in the one (1) month before the claim.",
  '4. Term. This Agreement renews for successive periods of five (5) years unless the Customer gives notice of non-renewal at least one hundred eighty (180) days before the end of the term.',
  '5. Suspension. The Supplier may suspend the services at any time in its sole discretion and without notice for non-payment.',
  LAW,
] as string[];

const plain = (lines: readonly string[]) => revisedDocx([TITLE, ...lines].map((l) => para(run(l))).join(''));

/** Their answer with its changes tracked, and a comment on the cap. */
const tracked = revisedDocx(
  [
    para(run(TITLE)),
    para(run(OURS[0] as string)),
    para(run(FEES)),
    para(
      commentStart(0),
      run(
        "3. Limitation of Liability. Each party's total aggregate liability is limited to the fees paid in the ",
      ),
      del('twenty-four (24) months'),
      ins('one (1) month'),
      run(' before the claim.'),
      commentEnd(0),
    ),
    para(
      run('4. Term. This Agreement renews for successive periods of '),
      del('twelve (12) months'),
      ins('five (5) years'),
      run(' unless the Customer gives notice of non-renewal at least '),
      del('thirty (30)'),
      ins('one hundred eighty (180)'),
      run(' days before the end of the term.'),
    ),
    para(
      run('5. Suspension. The Supplier may suspend the services '),
      del('on thirty (30) days written notice'),
      ins('at any time in its sole discretion and without notice'),
      run(' for non-payment.'),
    ),
    para(run(LAW)),
  ].join(''),
  { comments: [{ id: 0, author: OTHER, text: 'One month of fees is our standard cap.' }] },
);

const ended = async (jobId: string): Promise<Job> => {
  const job = await h.waitForEnd(jobId, 120_000);
  expect(job.status, job.reason).toBe('completed');
  return job;
};

const ours = await ended(await h.upload('ours.docx', plain(OURS)));
const theirTracked = await ended(await h.upload('their-answer.docx', tracked));

describe('their tracked answer', () => {
  it('plans each changed clause as it read before as one more clause, priced, counted and never reported as the contract’s', async () => {
    const report = await h.report(theirTracked);
    const stored = await readStoredDocument(s3, h.stack.resources.resultsBucket, theirTracked.jobId);
    const before = stored.chunks.flatMap((c) => c.clauses).filter((c) => c.id.startsWith('b'));
    // The title joins the first clause: the cap, the term and the suspension are clauses 3 to 5.
    expect(before.map((c) => c.id)).toEqual(['b0003', 'b0004', 'b0005']);
    expect(before.map((c) => c.text)).toEqual([OURS[2], OURS[3], OURS[4]]);
    expect(theirTracked.clauseCount).toBe(6);
    expect(theirTracked.callsPlanned).toBe((6 + 3) * ANALYSTS.length);
    expect(report.clauses.map((c) => c.id)).toEqual(['c0001', 'c0002', 'c0003', 'c0004', 'c0005', 'c0006']);
    expect(report.coverage.callsPlanned).toBe(theirTracked.callsPlanned);
    expect(report.coverage.callsDone + report.coverage.callsScreened).toBe(report.coverage.callsPlanned);
    // The quote priced the calls about the text before: dearer than our version of the same length.
    expect(theirTracked.quote?.expectedMicros ?? 0).toBeGreaterThan(ours.quote?.expectedMicros ?? 0);
  });

  it('lists each of their changes with author, clause, verdict and reason, and answers their comment', async () => {
    const n = (await h.report(theirTracked)).negotiation;
    expect(n?.source).toBe('tracked');
    expect(n?.authors).toEqual([OTHER]);
    expect(n?.changes.map((c) => [c.kind, c.author, c.clauseIds])).toEqual([
      ['replacement', OTHER, ['c0003']],
      ['replacement', OTHER, ['c0004']],
      ['replacement', OTHER, ['c0004']],
      ['replacement', OTHER, ['c0005']],
    ]);
    for (const c of n?.changes ?? []) {
      expect(['accept', 'reject', 'counter']).toContain(c.verdict);
      expect(c.reason.length).toBeGreaterThan(10);
      expect(c.answer.length).toBeGreaterThan(c.reason.length);
    }
    expect(n?.comments.map((c) => [c.author, c.text, c.clauseIds, c.changes])).toEqual([
      [OTHER, 'One month of fees is our standard cap.', ['c0003'], ['n1']],
    ]);
    expect(n?.docx).toMatchObject({ replies: 4, threaded: 1 });
  });

  it('hands each change out live once the chunks of its clauses, before and after, are consolidated', async () => {
    const deps = {
      db: h.pipeline.clients.db,
      s3,
      tableName: h.stack.resources.tableName,
      resultsBucket: h.stack.resources.resultsBucket,
    };
    const verdicts = (await h.report(theirTracked)).negotiation?.changes.map((c) => [
      c.id,
      c.verdict,
      c.answer,
    ]);
    const first = await readLiveFindings(theirTracked, '', deps);
    expect(first.clauses.map((c) => c.id)).toEqual(['c0001', 'c0002', 'c0003', 'c0004', 'c0005', 'c0006']);
    expect(first.negotiation?.map((c) => [c.id, c.verdict, c.answer])).toEqual(verdicts);
    expect((await readLiveFindings(theirTracked, first.cursor, deps)).negotiation).toBeUndefined();
    // The contract's chunk read earlier: the chunk of the texts before completes every change.
    const later = await readLiveFindings(theirTracked, encodeFindingsCursor(new Set([0])), deps);
    expect([later.clauses.length, later.negotiation?.length]).toEqual([0, 4]);
  });

  it('writes report.docx with their changes and comment kept and our answers beside them', async () => {
    const r = await s3.send(
      new GetObjectCommand({
        Bucket: h.stack.resources.resultsBucket,
        Key: theirTracked.docxReportKey ?? '',
      }),
    );
    const docx = (await r.Body?.transformToByteArray()) as Uint8Array;
    const comments = partText(docx, 'word/comments.xml');
    expect(comments).toContain(`w:author="${OTHER}"`);
    expect(comments.match(/Their replacement \(n\d/g)).toHaveLength(4);
    expect(partText(docx, 'word/commentsExtended.xml')).toContain('w15:paraIdParent');
    expect(partText(docx, 'word/document.xml').match(new RegExp(`w:author="${OTHER}"`, 'g'))).toHaveLength(8);
  });
});

describe('their answer as a clean copy, compared with our version', () => {
  const sameAsTracked = async (job: Job, against: { jobId?: string; sha256?: string }) => {
    const [mine, theirs] = [await h.report(job), await h.report(theirTracked)];
    expect(mine.negotiation?.source).toBe('compared');
    expect(mine.negotiation?.against).toEqual(against);
    expect(mine.negotiation?.changes.map((c) => [c.kind, c.clauseIds, c.verdict])).toEqual(
      theirs.negotiation?.changes.map((c) => [c.kind, c.clauseIds, c.verdict]),
    );
    // The smallest word edit may leave out a word their tracked change took with it ("notice").
    for (const [i, c] of (mine.negotiation?.changes ?? []).entries()) {
      const t = theirs.negotiation?.changes[i];
      expect(t?.inserted).toContain(c.inserted);
      expect(t?.deleted).toContain(c.deleted);
    }
    expect(mine.negotiation?.changes.every((c) => c.author === 'the other side (untracked)')).toBe(true);
  };

  it('finds the same changes with the same verdicts against our earlier job', async () => {
    const job = await ended(await h.upload('their-clean.docx', plain(THEIRS), { against: ours.jobId }));
    await sameAsTracked(job, { jobId: ours.jobId });
  });

  it('finds them against our version uploaded beside it, which is not reviewed itself', async () => {
    const versionJob = await h.upload('round2/against/ours.docx', plain(OURS));
    const job = await ended(
      await h.upload('round2/their-clean.docx', plain(THEIRS), { against: 'file:ours.docx' }),
    );
    await sameAsTracked(job, { sha256: ours.sha256 as string });
    expect(await h.jobs.find(versionJob)).toBeUndefined();
  });

  it('rejects an upload naming a version it cannot read', async () => {
    const missing = jobIdFor({ bucket: 'b', key: 'k', versionId: 'v' });
    const job = await h.waitForEnd(await h.upload('lost.docx', plain(THEIRS), { against: missing }));
    expect([job.status, job.rejection]).toEqual(['rejected', 'unknown-version']);
    expect(job.reason).toContain(missing);
    const noFile = await h.waitForEnd(
      await h.upload('lost2.docx', plain(THEIRS), { against: 'file:nowhere.docx' }),
    );
    expect([noFile.status, noFile.rejection, noFile.reason]).toEqual([
      'rejected',
      'unknown-version',
      expect.stringContaining('incoming/against/nowhere.docx'),
    ]);
  });
});

describe('a round submitted through the status API', () => {
  // A caller who is not an administrator: an administrator may act on every job.
  const caller = { accessKeyId: 'AKIDNEGOTIATOR', secretAccessKey: 'negotiator-secret' };
  const api = async () => {
    const local = await startPipelineApi({
      awsEndpoint: h.stack.endpoint,
      db: h.pipeline.clients.db,
      resources: h.stack.resources,
      credentials: { [caller.accessKeyId]: caller.secretAccessKey },
      administrators: [localCallerArn(EMULATOR_CREDENTIALS.accessKeyId)],
    });
    afterAll(() => local.close());
    return new ApiClient({ url: local.url, region: LOCAL_REGION, credentials: caller });
  };
  const client = api();
  const submitted = async (filename: string, bytes: Uint8Array, more: object = {}) => {
    const submission = await (await client).submit({ filename, ...more });
    return { submission, versionId: await uploadDocument(submission, bytes) };
  };

  it('compares with an earlier job of the caller’s, and refuses one that is not theirs', async () => {
    const c = await client;
    const first = await submitted('ours-api.docx', plain(OURS));
    const ourJob = await ended((await c.status(first.submission.submissionId)).jobId as string);
    const refused = await apiRefusal(c.submit({ filename: 'theirs.docx', against: ours.jobId }));
    expect([refused.status, refused.message]).toEqual([
      400,
      expect.stringContaining(`no job ${ours.jobId} of yours`),
    ]);
    const round = await submitted('their-clean-api.docx', plain(THEIRS), { against: ourJob.jobId });
    expect(round.submission.upload.fields['x-amz-meta-against']).toBe(ourJob.jobId);
    const job = await ended((await c.status(round.submission.submissionId)).jobId as string);
    expect((await h.report(job)).negotiation?.summary.changes).toBe(4);
  });

  it('takes our version as a file through a second upload form, before the document', async () => {
    const c = await client;
    const submission = await c.submit({ filename: 'their-clean-api2.docx', againstFilename: 'ours v2.docx' });
    expect(submission.against?.key).toBe(`${submission.key.replace(/[^/]+$/, '')}against/ours v2.docx`);
    expect(submission.upload.fields['x-amz-meta-against']).toBe('file:ours v2.docx');
    await uploadVersion(submission, plain(OURS));
    await uploadDocument(submission, plain(THEIRS));
    const job = await ended((await c.status(submission.submissionId)).jobId as string);
    const n = (await h.report(job)).negotiation;
    expect([n?.source, n?.summary.changes, n?.against]).toEqual(['compared', 4, { sha256: ours.sha256 }]);
    const both = await apiRefusal(
      c.submit({ filename: 'x.docx', against: ours.jobId, againstFilename: 'y.docx' }),
    );
    expect([both.status, both.message]).toEqual([400, expect.stringContaining('not both')]);
  });
});
