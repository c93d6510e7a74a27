/**
 * report.docx for a finalized report: the uploaded DOCX with the comments in it, or a plain
 * document of the contract's text for any other upload. The upload is read from the intake
 * bucket at the version the job reviewed, so a later upload to the same key changes nothing.
 */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { StoredDocument } from '../intake/stored-document.js';
import {
  type DocxClauseInsert,
  type DocxRedline,
  type ReportDocx,
  renderReportDocx,
} from '../report-docx/index.js';
import type { Report } from '../report-types.js';
import type { Job } from '../state/job.js';

/**
 * The redlines report.docx writes: every proposed redline of the report with the decision in
 * force, an edited one with the reviewer's edits; rejected ones are passed too, and the writer
 * leaves them out.
 */
export function docxRedlines(report: Pick<Report, 'clauses'>): DocxRedline[] {
  return report.clauses.flatMap((c) =>
    (c.positions ?? []).flatMap((p) => {
      const r = p.redline;
      if (!r) return [];
      const { status, edits, note } = r.decision;
      const decidedBy = status === 'proposed' ? undefined : (r.decision.byName ?? r.decision.by);
      return [
        {
          id: r.id,
          clauseId: r.clauseId,
          edits: status === 'edited' && edits ? edits : r.edits,
          decision: status,
          ...(note ? { note } : {}),
          ...(decidedBy ? { decidedBy } : {}),
          source: r.source,
          shape: r.shape,
          language: r.language,
          ...(r.rewritten ? { rewritten: r.rewritten } : {}),
        },
      ];
    }),
  );
}

const MINOR_WORDS = new Set(['a', 'an', 'and', 'as', 'at', 'by', 'for', 'in', 'of', 'on', 'or', 'the', 'to']);

/** A required clause's heading, from its topic: `limitation-of-liability` → "Limitation of Liability". */
export function headingOf(topic: string): string {
  return topic
    .split('-')
    .map((w, i) => (i > 0 && MINOR_WORDS.has(w) ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join(' ');
}

/**
 * The required clauses report.docx inserts: every one the contract lacks, unless its approvers
 * accepted the contract without it; decided ones under the decider's name.
 */
export function docxClauses(report: Pick<Report, 'playbookReview'>): DocxClauseInsert[] {
  const review = report.playbookReview;
  if (!review) return [];
  const decisions = new Map(review.escalations.map((e) => [e.findingId, e.review]));
  return review.missing.flatMap((m) => {
    const decided = decisions.get(m.id);
    if (decided?.decision === 'approved') return [];
    const decidedBy = decided?.decision === 'rejected' ? (decided.byName ?? decided.by) : undefined;
    return [
      {
        id: m.id,
        ...(m.placement.afterClauseId ? { afterClauseId: m.placement.afterClauseId } : {}),
        text: m.language,
        heading: headingOf(m.topic),
        ...(decidedBy ? { decidedBy } : {}),
      },
    ];
  });
}

/** The report with what report.docx made of its redlines, for a review against a playbook. */
export function withDocxOutcome(report: Report, outcome: Pick<ReportDocx, 'redlines' | 'inserted'>): Report {
  if (!report.playbookReview) return report;
  return {
    ...report,
    playbookReview: {
      ...report.playbookReview,
      docx: {
        placed: outcome.redlines.placed,
        notPlaced: outcome.redlines.notPlaced,
        clauses: outcome.redlines.clauses,
        ...(outcome.inserted.length > 0 ? { inserted: outcome.inserted } : {}),
      },
    },
  };
}

/** What became of report.docx: how it was made, and why not from the upload when it was one. */
export interface DocxOutcome extends Omit<ReportDocx, 'bytes'> {
  /** Why a DOCX upload got a generated document instead (it was deleted, or could not be read). */
  readonly fallback?: string;
}

/** report.docx's bytes, and how it was made. */
export async function reportDocx(
  s3: S3Client,
  job: Pick<Job, 'bucket' | 'key' | 'versionId' | 'format'>,
  doc: Pick<StoredDocument, 'text' | 'format'>,
  report: Report,
): Promise<{ bytes: Uint8Array; outcome: DocxOutcome }> {
  const redlines = docxRedlines(report);
  const clauses = docxClauses(report);
  if ((job.format ?? doc.format) === 'docx') {
    try {
      const r = await s3.send(
        new GetObjectCommand({
          Bucket: job.bucket,
          Key: job.key,
          ...(job.versionId ? { VersionId: job.versionId } : {}),
        }),
      );
      const original = await r.Body?.transformToByteArray();
      if (original) {
        const { bytes, ...outcome } = renderReportDocx({
          report,
          text: doc.text,
          original,
          redlines,
          clauses,
        });
        return { bytes, outcome };
      }
    } catch (error) {
      // The report is still owed: the comments go on a plain document of the text instead.
      const { bytes, ...outcome } = renderReportDocx({ report, text: doc.text, redlines, clauses });
      return { bytes, outcome: { ...outcome, fallback: (error as Error).message } };
    }
  }
  const { bytes, ...outcome } = renderReportDocx({ report, text: doc.text, redlines, clauses });
  return { bytes, outcome };
}
