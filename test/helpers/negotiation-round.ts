/**
 * A round of a negotiation for the tests of its outputs: their answer as a DOCX (three
 * replacements tracked by Opposing Counsel, a comment on the cap), and its report with the
 * negotiation judged against the default playbook: the cap countered, the term rejected, the
 * suspension accepted.
 */
import { parseDocument } from '../../lambdas/core/documents/index.js';
import { judgeNegotiation } from '../../lambdas/core/negotiation/index.js';
import { type Playbook, shippedPlaybooks } from '../../lambdas/core/playbooks/index.js';
import { claimsOurName } from '../../lambdas/core/report-docx/index.js';
import type { PositionFinding, Report, ReportClause } from '../../lambdas/core/report-types.js';
import { reportOf } from './docx-report.js';
import { commentEnd, commentStart, del, ins, OTHER, para, revisedDocx, run } from './docx-revisions.js';

const DEFAULT = shippedPlaybooks().find((p) => p.playbook.name === 'default')?.playbook as Playbook;

/** Their answer: three replacements tracked by Opposing Counsel, and a comment on the cap. */
export function theirAnswer(thread: boolean): Uint8Array {
  const body =
    para(run('1. Services. The Supplier provides the hosting services.')) +
    para(
      commentStart(0),
      run("2. Liability. Each party's total liability is limited to the fees paid in the "),
      del('twenty-four (24) months'),
      ins('one (1) month'),
      run(' before the claim.'),
      commentEnd(0),
    ) +
    para(
      run('3. Term. This Agreement renews for '),
      del('one year'),
      ins('five (5) years'),
      run(' at a time.'),
    ) +
    para(
      run('4. Suspension. The Supplier may suspend the services '),
      del('on notice'),
      ins('in its sole discretion and without notice'),
      run('.'),
    );
  return revisedDocx(body, {
    comments: [
      {
        id: 0,
        author: OTHER,
        text: 'One month is our standard cap.',
        ...(thread ? { paraId: '0A0B0C0D' } : {}),
      },
    ],
  });
}

/** The report of that answer, judged: the cap countered, the term rejected, the suspension accepted. */
export async function reportFor(docx: Uint8Array): Promise<{ report: Report; text: string }> {
  const parsed = await parseDocument(docx, { key: 'answer.docx', maxBytes: 1 << 20 });
  const base = reportOf(parsed.clauses, () => 0);
  const [services, cap, term, suspension] = base.clauses as ReportClause[];
  const redlineOf = (c: ReportClause) => {
    const start = c.text.indexOf('one (1) month');
    const edits = [{ start, end: start + 13, insert: 'twenty-four (24) months' }];
    const text = `${c.text.slice(0, start)}twenty-four (24) months${c.text.slice(start + 13)}`;
    const target = { rung: 'standard' };
    const decision = { status: 'proposed' };
    return {
      id: `${c.id}/redline/limitation-of-liability`,
      clauseId: c.id,
      topic: 'limitation-of-liability',
      edits,
      target,
      language: '',
      text,
      decision,
    };
  };
  const finding = (c: ReportClause, rung: string, redline?: object) =>
    ({
      id: `${c.id}/playbook/limitation-of-liability`,
      topic: 'limitation-of-liability',
      category: 'liability',
      importance: 'high',
      question: 'Is the cap at least twice the annual charges?',
      rung,
      quotes: [],
      reason: 'read',
      analysts: ['liability-counsel'],
      ...(redline ? { redline } : {}),
    }) as unknown as PositionFinding;
  const capNow = {
    ...(cap as ReportClause),
    positions: [finding(cap as ReportClause, 'not-acceptable', redlineOf(cap as ReportClause))],
  };
  const capBefore = {
    ...(cap as ReportClause),
    id: 'b0002',
    text: 'before',
    positions: [finding(cap as ReportClause, 'standard')],
  };
  const risky = (c: ReportClause, risk: 'low' | 'high', score: number) => ({
    ...c,
    risk,
    scores: { ...c.scores, [Object.keys(c.scores)[0] ?? 'x']: score },
  });
  const clauses = [
    services as ReportClause,
    capNow,
    risky(term as ReportClause, 'high', 3),
    suspension as ReportClause,
  ];
  const negotiation = judgeNegotiation({
    changes: parsed.revisions?.changes ?? [],
    comments: parsed.revisions?.comments ?? [],
    clauses,
    before: new Map([
      ['c0002', capBefore],
      ['c0003', { ...risky(term as ReportClause, 'low', 1), id: 'b0003' }],
      ['c0004', { ...(suspension as ReportClause), id: 'b0004' }],
    ]),
    positions: new Map(DEFAULT.positions.map((p) => [p.topic, p])),
    ours: claimsOurName,
  });
  return { report: { ...base, clauses, ...(negotiation ? { negotiation } : {}) }, text: parsed.text };
}
