/**
 * Decisions on proposed redlines, on moto: kept in the job's trail (append-only, the latest in
 * force), read by finalize into report.json, and into report.docx, where a rejected redline is
 * not written and an edited one is written with the reviewer's edits. A review gate holds the
 * job while the decisions are recorded, as the people who decide would.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import type { ClauseAssessment } from '../../lambdas/core/analysts/index.js';
import type { Report } from '../../lambdas/core/finalize/report-types.js';
import { RedlineTrail } from '../../lambdas/core/holds/redline-trail.js';
import { decide } from '../../lambdas/core/holds/review.js';
import { redlineId } from '../../lambdas/core/playbooks/index.js';
import { authorOf } from '../../lambdas/core/report-docx/index.js';
import { Claims } from '../../lambdas/core/state/claims.js';
import { xmlPart } from '../helpers/docx-report.js';
import { fixture, startHarness } from '../helpers/pipeline.js';
import { acceptChanges, changeMarks, wordText } from '../helpers/tracked-changes.js';

const CONSULTING = 'KIROMICBIOPHARMA_INC_05_11_2020-EX-10_23-CONSULTING_AGREEMENT.txt';
const h = await startHarness('redlines');
const { db, s3, sqs } = h.pipeline.clients;
const { tableName, resultsBucket, resultsPrefix, queueUrls } = h.stack.resources;
const trail = new RedlineTrail(db, tableName);
const REVIEWER = 'arn:aws:iam::000000000000:user/reviewer';

async function until<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('a reviewer’s decisions on redlines', () => {
  it('keeps every decision in order, and lists only the job’s own', async () => {
    await trail.append('j-trail-a', [
      { redlineId: 'c0001/redline/x', status: 'accepted', by: REVIEWER, at: '2026-01-01T00:00:00.000Z' },
      {
        redlineId: 'c0001/redline/x',
        status: 'rejected',
        by: REVIEWER,
        at: '2026-01-01T00:00:01.000Z',
        note: 'no',
      },
    ]);
    await trail.append('j-trail-b', [
      { redlineId: 'c0002/redline/y', status: 'accepted', by: REVIEWER, at: '2026-01-01T00:00:00.000Z' },
    ]);
    expect((await trail.list('j-trail-a')).map((r) => r.status)).toEqual(['accepted', 'rejected']);
    expect(await trail.list('j-trail-a')).toContainEqual(expect.objectContaining({ note: 'no' }));
    expect((await trail.list('j-trail-b')).map((r) => r.redlineId)).toEqual(['c0002/redline/y']);
  });

  it('are in report.json, and report.docx leaves a rejected redline out and writes an edited one as edited', async () => {
    const jobId = await h.upload(`redlines-${CONSULTING}`, fixture(CONSULTING), {
      playbook: 'default',
      gate: 'high',
    });
    const held = await until(async () => {
      const job = await h.jobs.find(jobId);
      if (job?.finalizedAt) throw new Error(`job ${jobId} was reported without a hold: ${job.status}`);
      return job?.status === 'awaiting_review' ? job : undefined;
    }, 'the review gate');

    // The redlines the analysts proposed, as the consolidated chunks hold them.
    const proposed = (await new Claims(db, tableName).list(jobId))
      .filter((c) => c.stage === 'consolidate' && c.result)
      .flatMap((c) => JSON.parse(c.result as string) as ClauseAssessment[])
      .flatMap((a) =>
        (a.positions ?? []).flatMap((p) => (p.redline ? [{ clauseId: a.clauseId, topic: p.topic }] : [])),
      );
    expect(proposed.length).toBeGreaterThanOrEqual(3);
    const [rejected, edited, accepted] = proposed.map((p) => redlineId(p.clauseId, p.topic));
    const at = (s: number) => new Date(Date.UTC(2026, 0, 2, 0, 0, s)).toISOString();
    await trail.append(jobId, [
      { redlineId: rejected as string, status: 'accepted', by: REVIEWER, at: at(1) },
      { redlineId: rejected as string, status: 'rejected', by: REVIEWER, at: at(2), note: 'we keep ours' },
      {
        redlineId: edited as string,
        status: 'edited',
        edits: [{ start: 0, end: 0, insert: 'As amended by the parties: ' }],
        by: REVIEWER,
        at: at(3),
      },
      { redlineId: accepted as string, status: 'accepted', by: REVIEWER, at: at(4) },
    ]);
    await decide(held, { findings: 'all-undecided', verdict: 'approve' }, REVIEWER, {
      db,
      s3,
      sqs,
      tableName,
      resultsBucket,
      resultsPrefix,
      finalizeQueueUrl: queueUrls.finalize,
    });
    const job = await h.waitForEnd(jobId, 120_000);
    const report: Report = await h.report(job);
    const redlines = new Map(
      report.clauses.flatMap((c) =>
        (c.positions ?? []).flatMap((p) => (p.redline ? [[p.redline.id, { c, r: p.redline }]] : [])),
      ),
    );
    expect(redlines.get(rejected as string)?.r.decision).toEqual({
      status: 'rejected',
      by: REVIEWER,
      at: at(2),
      note: 'we keep ours',
    });
    const editedOne = redlines.get(edited as string);
    expect(editedOne?.r.decision).toMatchObject({
      status: 'edited',
      text: `As amended by the parties: ${editedOne?.c.text}`,
    });
    expect(redlines.get(accepted as string)?.r.decision).toMatchObject({ status: 'accepted', by: REVIEWER });
    expect([...redlines.values()].filter((x) => x.r.decision.status === 'proposed').length).toBe(
      redlines.size - 3,
    );

    const placed = report.playbookReview?.docx?.placed ?? [];
    expect(placed).not.toContain(rejected);
    expect(placed).toContain(edited);
    const docx = await s3.send(new GetObjectCommand({ Bucket: resultsBucket, Key: job.docxReportKey }));
    const bytes = await docx.Body?.transformToByteArray();
    const doc = xmlPart(bytes as Uint8Array, 'word/document.xml');
    expect(changeMarks(doc).length).toBeGreaterThan(0);
    acceptChanges(doc, authorOf(jobId));
    const text = wordText(doc);
    expect(text).toContain('As amended by the parties: ');
    const rejectedOne = redlines.get(rejected as string);
    const insert = rejectedOne?.r.edits[0]?.insert.trim() ?? '';
    expect(insert.length).toBeGreaterThan(0);
    // The rejected redline's language is in the document only as often as the original and the
    // other placed redlines put it there.
    const count = (hay: string, needle: string) => hay.split(needle).length - 1;
    const others = [...redlines.values()]
      .filter((x) => placed.includes(x.r.id))
      .flatMap((x) => (x.r.decision.status === 'edited' ? (x.r.decision.edits ?? []) : x.r.edits))
      .filter((e) => e.insert.includes(insert)).length;
    expect(count(text, insert)).toBe(count(fixture(CONSULTING).toString('utf8'), insert) + others);
  }, 240_000);
});
