/**
 * report.html's "Their changes": the round in one line, each change with its author, clause,
 * verdict in words, reason and answer, a counter-proposal as tracked changes of their text, their
 * comment with the reply proposed; their words escaped; absent from a report with no round.
 */
import { describe, expect, it } from 'vitest';
import { renderReportHtml } from '../../../lambdas/core/finalize/report-html.js';
import type { Report } from '../../../lambdas/core/report-types.js';
import { OTHER } from '../../helpers/docx-revisions.js';
import { reportFor, theirAnswer } from '../../helpers/negotiation-round.js';

/** A report as finalize writes it, around the round's judged clauses and negotiation. */
async function fullReport(): Promise<Report> {
  const { report } = await reportFor(theirAnswer(false));
  return {
    ...report,
    schemaVersion: 1,
    job: {
      ...report.job,
      status: 'completed',
      lane: 'realtime',
      analysts: [],
      document: { bucket: 'b', key: 'incoming/answer.docx' },
    },
    summary: {
      clauses: report.clauses.length,
      clausesAnalysed: report.clauses.length,
      riskCounts: { none: 0, low: 0, medium: 0, high: 0, critical: 0 },
      categoriesFlagged: {},
    },
    chunks: [],
    coverage: {
      callsPlanned: 0,
      callsDone: 0,
      callsReused: 0,
      callsFailed: 0,
      callsSkippedBudget: 0,
      callsCancelled: 0,
      callsScreened: 0,
      callsNotRun: 0,
      modelAttempts: 0,
      tier1Retries: 0,
      redeliveries: 0,
      failedCalls: [],
      unfinishedChunks: [],
    },
    cost: {
      ceilingMicros: 1,
      spentMicros: 0,
      reservedMicros: 0,
      committedMicros: 0,
      inputTokens: 0,
      outputTokens: 0,
      cacheReadInputTokens: 0,
      cacheWriteInputTokens: 0,
    },
    timings: { createdAt: '2026-03-01T09:00:00Z', finalizedAt: '2026-03-01T10:00:00Z', durationMs: 1 },
  } as Report;
}

describe('report.html with the other side’s turn', () => {
  it('says the round in one line, and each change with who, where, the verdict in words and our answer', async () => {
    const report = await fullReport();
    const html = renderReportHtml(report);
    const section = html.slice(
      html.indexOf('<section id="negotiation"'),
      html.indexOf('</section>', html.indexOf('<section id="negotiation"')),
    );
    expect(section).toContain(
      '<strong>Their changes: 3 — accept 1, reject 1, counter 1; their comments: 1, each with a proposed reply</strong>',
    );
    expect(html).toContain('<a href="#negotiation">Their changes</a>');
    for (const c of report.negotiation?.changes ?? []) {
      expect(section).toContain(`data-change="${c.id}"`);
      expect(section).toContain(`<span class="verdict verdict-${c.verdict}">${c.verdict}</span>`);
    }
    expect(section.match(new RegExp(`replaced by ${OTHER}`, 'g'))).toHaveLength(3);
    // The counter-proposal as tracked changes of their text, named for a screen reader.
    expect(section).toMatch(
      /<del><span class="sr">\[deleted: <\/span>one \(1\) month<span class="sr">\]<\/span><\/del><ins><span class="sr">\[inserted: <\/span>eighteen \(18\) months/,
    );
    expect(section).toContain('<blockquote>One month is our standard cap.</blockquote>');
    // A rejection asks for the words of ours they deleted; a counter quotes the sentence it edits.
    expect(section).toContain('We ask that our words stand: “one year”.');
    expect(section).toContain('We propose, as our tracked change: “…Each party&#39;s total liability');
    expect(section).toContain('Proposed reply:</span> On their change (n1): Counter.');
  });

  it('escapes their words, and has no section without a round', async () => {
    const report = await fullReport();
    const n = report.negotiation;
    if (!n) throw new Error('no negotiation');
    const hostile = {
      ...report,
      negotiation: {
        ...n,
        comments: [{ ...(n.comments[0] as (typeof n.comments)[number]), text: '<script>alert(1)</script>' }],
      },
    };
    const html = renderReportHtml(hostile);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert(1)</script>');
    const { negotiation: _n, ...none } = report;
    expect(renderReportHtml(none as Report)).not.toContain('id="negotiation"');
  });
});
