/**
 * Decisions on proposed redlines, on moto, made as a reviewer makes them (`decideRedlines`, the
 * route's own core): kept in the job's redline trail, put in force on report.json by the review
 * once it closes, and on report.docx, where a rejected redline is not written and an edited one
 * is written with the reviewer's edits. The redlines are the analysts' own, held by a review
 * gate on a job reviewed against the default playbook.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { decide } from '../../lambdas/core/holds/decide.js';
import { decisionRights } from '../../lambdas/core/holds/playbook-holds.js';
import { decideRedlines } from '../../lambdas/core/holds/redline-decisions.js';
import { readHeldFindings } from '../../lambdas/core/holds/review.js';
import type { Report } from '../../lambdas/core/report-types.js';
import { xmlPart } from '../helpers/docx-report.js';
import { CONSULTING, markedUpConsulting, startHarness } from '../helpers/pipeline.js';
import { acceptChanges, changeMarks, wordText } from '../helpers/tracked-changes.js';

// The learned reader, as `clause-review review` uses it, finds the three terms below the playbook.
const h = await startHarness('redlines', { analyst: 'learned' });
const { db, s3, sqs } = h.pipeline.clients;
const { tableName, resultsBucket, resultsPrefix, queueUrls } = h.stack.resources;
const deps = { db, s3, sqs, tableName, resultsBucket, resultsPrefix, finalizeQueueUrl: queueUrls.finalize };
const REVIEWER = 'arn:aws:iam::000000000000:user/reviewer';
/** An IAM principal the stack names as an administrator: the job's reviewer and every group's approver. */
const rights = decisionRights(true, true);

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
  it('are in report.json, and report.docx leaves a rejected redline out and writes an edited one as edited', async () => {
    // The consulting agreement as the other side marked it up: three redlines to decide below.
    const jobId = await h.upload(`redlines-${CONSULTING}`, markedUpConsulting(), {
      playbook: 'default',
      gate: 'high',
      'full-panel': 'true',
    });
    const held = await until(async () => {
      const job = await h.jobs.find(jobId);
      if (job?.finalizedAt) throw new Error(`job ${jobId} was reported without a hold: ${job.status}`);
      return job?.status === 'awaiting_review' ? job : undefined;
    }, 'the review gate');

    // The redlines the analysts proposed, as the review gate holds them for the job's reviewer.
    const proposed = (await readHeldFindings(deps, jobId)).redlines ?? [];
    expect(proposed.length).toBeGreaterThanOrEqual(3);
    const [rejected, edited, accepted] = proposed.map((r) => r.id);
    const redline = (ids: string[], decision: 'accept' | 'reject', note?: string) =>
      decideRedlines(
        held,
        { redlines: ids, decision, ...(note ? { note } : {}) },
        REVIEWER,
        deps,
        {},
        rights,
      );
    await redline([rejected as string], 'accept');
    await redline([rejected as string], 'reject', 'we keep ours');
    await decideRedlines(
      held,
      {
        redlines: [edited as string],
        decision: 'edit',
        edits: [{ start: 0, end: 0, insert: 'As amended by the parties: ' }],
      },
      REVIEWER,
      deps,
      {},
      rights,
    );
    // The findings and escalations approved: the other redlines still wait, so the review stays open.
    const findings = await decide(
      held,
      { findings: 'all-undecided', verdict: 'approve' },
      REVIEWER,
      deps,
      {},
      rights,
    );
    expect(findings.reviewClosed).toBe(false);
    expect(findings.undecided).toBe(proposed.length - 2);
    const rest = await decideRedlines(
      held,
      { redlines: 'all-undecided', decision: 'accept' },
      REVIEWER,
      deps,
      {},
      rights,
    );
    // The rest, the third among them, accepted at once.
    expect(rest.recorded.map((r) => r.redlineId)).toEqual(proposed.slice(2).map((r) => r.id));
    expect(rest.reviewClosed).toBe(true);
    const job = await h.waitForEnd(jobId, 120_000);
    const report: Report = await h.report(job);
    const redlines = new Map(
      report.clauses.flatMap((c) =>
        (c.positions ?? []).flatMap((p) => (p.redline ? [[p.redline.id, { c, r: p.redline }]] : [])),
      ),
    );
    expect(redlines.get(rejected as string)?.r.decision).toMatchObject({
      status: 'rejected',
      by: REVIEWER,
      note: 'we keep ours',
    });
    const editedOne = redlines.get(edited as string);
    expect(editedOne?.r.decision).toMatchObject({
      status: 'edited',
      text: `As amended by the parties: ${editedOne?.c.text}`,
    });
    expect(redlines.get(accepted as string)?.r.decision).toMatchObject({ status: 'accepted', by: REVIEWER });
    expect([...redlines.values()].filter((x) => x.r.decision.status === 'accepted').length).toBe(
      redlines.size - 2,
    );
    expect(report.review?.redlineTrail?.map((r) => [r.redlineId, r.status])).toEqual([
      [rejected, 'accepted'],
      [rejected, 'rejected'],
      [edited, 'edited'],
      ...proposed.slice(2).map((r) => [r.id, 'accepted']),
    ]);

    const placed = report.playbookReview?.docx?.placed ?? [];
    expect(placed).not.toContain(rejected);
    expect(placed).toContain(edited);
    const docx = await s3.send(new GetObjectCommand({ Bucket: resultsBucket, Key: job.docxReportKey }));
    const bytes = await docx.Body?.transformToByteArray();
    const doc = xmlPart(bytes as Uint8Array, 'word/document.xml');
    expect(changeMarks(doc).length).toBeGreaterThan(0);
    // Every change, whoever it is written under: proposed and undecided, or the reviewer's.
    acceptChanges(doc);
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
    expect(count(text, insert)).toBe(count(markedUpConsulting().toString('utf8'), insert) + others);
  }, 240_000);
});
