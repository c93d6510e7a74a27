import { describe, expect, it } from 'vitest';
import { normaliseText } from '../../../lambdas/core/documents/normalise.js';
import { parseDocument } from '../../../lambdas/core/documents/parse.js';
import { docxRedlines, withDocxOutcome } from '../../../lambdas/core/finalize/docx-output.js';
import {
  endOfTerms,
  judgedTopics,
  playbookReviewOf,
  positionFindings,
} from '../../../lambdas/core/finalize/playbook-review.js';
import { withRedlineDecisions } from '../../../lambdas/core/holds/apply.js';
import { quoteDocument } from '../../../lambdas/core/intake/quote.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import {
  contractTypeFor,
  contractTypeIssue,
  type Playbook,
  type RedlineDecisionRecord,
  shippedPlaybooks,
  topicsFor,
} from '../../../lambdas/core/playbooks/index.js';
import { applyEdits, changeAuthorOf, renderReportDocx } from '../../../lambdas/core/report-docx/index.js';
import type { Report, ReportClause } from '../../../lambdas/core/report-types.js';
import { reportOf, xmlPart } from '../../helpers/docx-report.js';
import { fixture, SMALL } from '../../helpers/pipeline.js';
import { acceptChanges, rejectChanges, wordText } from '../../helpers/tracked-changes.js';

const DEFAULT = shippedPlaybooks().find((p) => p.playbook.name === 'default')?.playbook as Playbook;
const NDA = shippedPlaybooks().find((p) => p.playbook.name === 'nda')?.playbook as Playbook;

describe('the contract type a review takes the playbook’s topics for', () => {
  it('is the one submitted, else the kind read as the playbook’s type, else the playbook’s only type', () => {
    expect(contractTypeFor(DEFAULT, 'supply', { title: 'WEB HOSTING AGREEMENT' })).toEqual({
      type: 'supply',
      source: 'submitted',
      covered: true,
    });
    expect(contractTypeFor(NDA, undefined, { text: 'Between A and B.' })).toEqual({
      type: 'nda',
      source: 'playbook',
      covered: true,
    });
    expect(
      contractTypeFor(DEFAULT, undefined, { text: 'WEB HOSTING AGREEMENT\n\nBetween A and B.' }),
    ).toEqual({
      type: 'services',
      source: 'detected',
      kind: { id: 'hosting', label: expect.stringMatching(/Hosting/), from: 'title' },
      covered: true,
    });
    expect(
      contractTypeFor(DEFAULT, undefined, {
        text: 'SOFTWARE LICENSE AND SERVICES AGREEMENT\n\nBetween A and B.',
      }),
    ).toMatchObject({ type: 'licence', source: 'detected', covered: true });
    expect(
      contractTypeFor(DEFAULT, undefined, {
        text: 'EXHIBIT 10.4',
        fileName: 'ACME_Distributor_Agreement.docx',
      }),
    ).toMatchObject({ type: 'supply', source: 'detected', kind: { from: 'file-name' }, covered: true });
  });

  it('is a kind the playbook does not cover, said so, whose general topics alone apply', () => {
    const franchise = contractTypeFor(DEFAULT, undefined, {
      text: 'FRANCHISE AGREEMENT\n\nBetween A and B.',
    });
    expect(franchise).toMatchObject({
      type: 'franchise',
      source: 'detected',
      kind: { id: 'franchise', label: 'Franchise Agreement', from: 'title' },
      covered: false,
    });
    // An NDA playbook does not cover a supply agreement either: the kind is read before its only type.
    expect(contractTypeFor(NDA, undefined, { text: 'SUPPLY AGREEMENT\n\nBetween A and B.' })).toMatchObject({
      type: 'supply',
      covered: false,
    });
    const { positions, requiredClauses } = topicsFor(DEFAULT, 'franchise');
    expect(positions.every((p) => p.general)).toBe(true);
    expect(positions.map((p) => p.topic)).toEqual([
      'non-renewal-notice',
      'termination-for-breach',
      'limitation-of-liability',
      'uncapped-liabilities',
      'consequential-loss',
      'non-solicitation',
      'governing-law',
      'escalation-before-proceedings',
    ]);
    expect(requiredClauses.map((r) => r.topic)).toEqual([
      'limitation-of-liability',
      'termination-for-breach',
    ]);
    expect(positions.map((p) => p.topic)).not.toContain('licence-scope');
  });

  it('refuses a submitted type the playbook does not list, naming the ones it does', () => {
    expect(contractTypeIssue(DEFAULT, 'services')).toBeUndefined();
    expect(contractTypeIssue(DEFAULT, 'lease')).toBe(
      "the 'contract-type' option is not valid: playbook 'default' applies to services, supply, licence; got 'lease'",
    );
  });
});

/** A clause as the report shows it, with the scores and position findings given. */
function reportClause(
  n: number,
  text: string,
  scores: Record<string, number | null>,
  extra: Partial<ReportClause> = {},
): ReportClause {
  return {
    id: `c${String(n).padStart(4, '0')}`,
    index: n - 1,
    chunk: 0,
    label: `${n}.`,
    heading: `Heading ${n}`,
    start: n * 1000,
    end: n * 1000 + text.length,
    text,
    status: 'analysed',
    risk: 'low',
    maxScore: 1,
    scores,
    findings: [],
    analystsAnswered: ['liability-counsel', 'risk-transfer', 'term-lifecycle'],
    analystsFailed: [],
    ...extra,
  };
}

const CAP =
  "Each party's total liability shall not exceed the charges paid in the six (6) months before the claim.";
const SIX = CAP.indexOf('six (6)');

describe('position findings and the review over the contract', () => {
  const topics = judgedTopics(DEFAULT, 'services');
  const verdict = {
    topic: 'limitation-of-liability',
    rung: 'not-acceptable' as const,
    quotes: [{ quote: CAP, start: 2000, end: 2000 + CAP.length }],
    reason: 'half the annual charges',
    measured: 0.5,
    redline: {
      target: { rung: 'standard' as const },
      edits: [{ start: SIX, end: SIX + 7, insert: 'twenty-four (24)' }],
    },
    analysts: ['liability-counsel'],
  };

  it('gives each finding the playbook’s question, importance, language and escalation, and the redline’s text', () => {
    const [finding] = positionFindings({ id: 'c0002', text: CAP }, [verdict], topics);
    expect(finding).toMatchObject({
      id: 'c0002/playbook/limitation-of-liability',
      category: 'liability',
      importance: 'high',
      rung: 'not-acceptable',
      measured: { value: 0.5, unit: 'multiple-of-fees' },
      escalation: { group: 'legal-approvers', reason: 'not-acceptable' },
      redline: {
        id: 'c0002/redline/limitation-of-liability',
        target: { rung: 'standard' },
        language: DEFAULT.positions.find((p) => p.topic === 'limitation-of-liability')?.standard.language,
        text: CAP.replace('six (6)', 'twenty-four (24)'),
        decision: { status: 'proposed' },
      },
    });
    // A fallback that names an approver escalates to it; one that names none does not escalate.
    const second = positionFindings(
      { id: 'c0002', text: CAP },
      [{ ...verdict, rung: 'fallback', fallback: 2 }],
      topics,
    );
    expect(second[0]?.escalation).toEqual({ group: 'legal-approvers', reason: 'fallback-approver' });
    const first = positionFindings(
      { id: 'c0002', text: CAP },
      [{ ...verdict, rung: 'fallback', fallback: 1 }],
      topics,
    );
    expect(first[0]?.escalation).toBeUndefined();
  });

  it('proposes every redline: the decisions in force are put on them once a review closes', () => {
    const trail: RedlineDecisionRecord[] = [
      {
        redlineId: 'c0002/redline/limitation-of-liability',
        status: 'accepted',
        by: 'arn:a',
        at: '2026-01-01T00:00:00Z',
      },
      {
        redlineId: 'c0002/redline/limitation-of-liability',
        status: 'edited',
        edits: [{ start: SIX, end: SIX + 7, insert: 'eighteen (18)' }],
        by: 'arn:b',
        byName: 'b@example.com',
        at: '2026-01-02T00:00:00Z',
        note: 'meet them halfway',
      },
    ];
    const positions = positionFindings({ id: 'c0002', text: CAP }, [verdict], topics);
    expect(positions[0]?.redline?.decision).toEqual({ status: 'proposed' });
    const [decided] = withRedlineDecisions([reportClause(2, CAP, {}, { positions })], trail);
    expect(decided?.positions?.[0]?.redline?.decision).toEqual({
      status: 'edited',
      edits: [{ start: SIX, end: SIX + 7, insert: 'eighteen (18)' }],
      text: CAP.replace('six (6)', 'eighteen (18)'),
      by: 'arn:b',
      byName: 'b@example.com',
      at: '2026-01-02T00:00:00Z',
      note: 'meet them halfway',
    });
  });

  it('finds a required clause no clause addresses, with its language and where it would go', () => {
    const clauses = [
      reportClause(1, 'The Supplier warrants the services for twelve months.', {
        'warranty-insurance': 0,
        liability: null,
      }),
      reportClause(2, 'The Supplier warrants the goods for six months.', {
        'warranty-insurance': 1,
        liability: null,
      }),
      reportClause(
        3,
        'This Agreement is governed by the laws of England.',
        { 'warranty-insurance': null },
        {
          positions: [],
        },
      ),
    ];
    const review = playbookReviewOf(
      DEFAULT,
      { type: 'services', source: 'detected' },
      clauses,
      () => new Set(['liability-counsel']),
    );
    const cap = review.missing.find((m) => m.topic === 'limitation-of-liability');
    expect(cap).toEqual({
      id: 'document/playbook/limitation-of-liability',
      topic: 'limitation-of-liability',
      category: 'liability',
      importance: 'high',
      question: "Does the contract limit each party's liability?",
      language: DEFAULT.requiredClauses.find((r) => r.topic === 'limitation-of-liability')?.language,
      placement: {
        afterClauseId: 'c0002',
        afterClause: '2. Heading 2',
        note: 'After the warranties and indemnities, before the general provisions.',
      },
      escalation: { group: 'legal-approvers', reason: 'required-clause-missing' },
    });
    expect(review.escalations).toContainEqual({
      findingId: 'document/playbook/limitation-of-liability',
      group: 'legal-approvers',
      reason: 'required-clause-missing',
    });
    expect(review.positions.find((p) => p.topic === 'limitation-of-liability')).toMatchObject({
      rung: 'not-addressed',
      clauses: [],
    });
  });

  it('finds no required clause missing where a clause addresses its topic, and counts clauses no analyst assessed', () => {
    const clauses = [
      reportClause(
        1,
        CAP,
        { liability: 2 },
        {
          positions: positionFindings({ id: 'c0001', text: CAP }, [verdict], topics),
        },
      ),
      reportClause(
        2,
        'Notices go to the addresses above.',
        { liability: null },
        {
          status: 'not-analysed',
          analystsAnswered: [],
        },
      ),
    ];
    const review = playbookReviewOf(DEFAULT, undefined, clauses, () => new Set(['liability-counsel']));
    expect(review.missing.map((m) => m.topic)).toEqual(['termination-for-breach']);
    expect(review.missing[0]?.unassessedClauses).toBe(1);
    expect(review.positions.find((p) => p.topic === 'limitation-of-liability')).toMatchObject({
      rung: 'not-acceptable',
      clauses: [{ clauseId: 'c0001', rung: 'not-acceptable' }],
    });
    expect(review.escalations.map((e) => e.findingId)).toEqual([
      'c0001/playbook/limitation-of-liability',
      'document/playbook/termination-for-breach',
    ]);
  });

  it('hands report.docx every redline with its decision, an edited one with the reviewer’s edits', () => {
    const [proposed] = positionFindings({ id: 'c0001', text: CAP }, [verdict], topics);
    const report = {
      clauses: withRedlineDecisions(
        [
          reportClause(1, CAP, {}, { positions: proposed ? [proposed] : [] }),
          reportClause(
            2,
            CAP,
            {},
            { positions: positionFindings({ id: 'c0002', text: CAP }, [verdict], topics) },
          ),
        ],
        [
          {
            redlineId: 'c0002/redline/limitation-of-liability',
            status: 'edited',
            edits: [{ start: 0, end: 4, insert: 'Every' }],
            by: 'arn:b',
            at: '2026-01-02T00:00:00Z',
          },
        ],
      ),
    };
    expect(docxRedlines(report)).toEqual([
      expect.objectContaining({
        id: 'c0001/redline/limitation-of-liability',
        clauseId: 'c0001',
        edits: verdict.redline.edits,
        decision: 'proposed',
        source: 'model',
      }),
      expect.objectContaining({
        id: 'c0002/redline/limitation-of-liability',
        clauseId: 'c0002',
        edits: [{ start: 0, end: 4, insert: 'Every' }],
        decision: 'edited',
        // Its tracked changes carry the decider's name, as the trail shows it.
        decidedBy: 'arn:b',
      }),
    ]);
    expect(docxRedlines(report)[0]).not.toHaveProperty('decidedBy');
    const outcome = {
      redlines: {
        placed: ['c0001/redline/limitation-of-liability'],
        notPlaced: [],
        clauses: [{ clauseId: 'c0001', redlines: ['c0001/redline/limitation-of-liability'], text: 'x' }],
      },
      inserted: [] as string[],
    };
    const withOutcome = withDocxOutcome(
      { playbookReview: { positions: [], missing: [], escalations: [] } } as unknown as Report,
      outcome,
    );
    expect(withOutcome.playbookReview?.docx).toEqual(outcome.redlines);
    expect(
      applyEdits('abc', [
        { start: 1, end: 2, insert: 'XY' },
        { start: 0, end: 0, insert: '>' },
      ]),
    ).toBe('>aXYc');
  });
});

describe('where a required clause with no placement of its own goes', () => {
  it('after the last operative clause: before the signature block or the first exhibit, not after the exhibits', () => {
    const clauses = [
      '1. Services. Tadeo hosts the site.',
      '2. Fees. Diplomat pays monthly.',
      '3. Notices. In writing.',
      'IN WITNESS WHEREOF, the parties have signed this Agreement.',
      'EXHIBIT A\n\nHOSTING SERVICES',
      '(a) Scope. Tadeo provides hosting.',
    ].map((text) => ({ text }));
    expect(endOfTerms(clauses)?.text).toBe('3. Notices. In writing.');
    expect(endOfTerms(clauses.filter((c) => !c.text.startsWith('IN WITNESS')))?.text).toBe(
      '3. Notices. In writing.',
    );
    // An exhibit named in the first half is a reference, not the start of the closing part.
    const early = [{ text: 'Exhibit A: the fees.' }, { text: '2. Term.' }, { text: '3. Law.' }];
    expect(endOfTerms(early)?.text).toBe('3. Law.');
    expect(endOfTerms([])).toBeUndefined();
  });
});

describe('two positions of one clause proposing language at the same point', () => {
  it('are two redlines in playbook order, both written into report.docx, and report.json says what accepting both makes', () => {
    const clauseText = 'The Supplier may subcontract the services to any third party.';
    const topics = judgedTopics(DEFAULT, 'services');
    const end = clauseText.length;
    const verdictOn = (topic: string, insert: string) => ({
      topic,
      rung: 'not-acceptable' as const,
      quotes: [{ quote: clauseText, start: 0, end }],
      reason: 'r',
      redline: { target: { rung: 'standard' as const }, edits: [{ start: end, end, insert }] },
      analysts: ['deal-balance'],
    });
    // Given in the reverse of the playbook's order, as two analysts' answers can come.
    const findings = positionFindings(
      { id: 'c0001', text: clauseText },
      [
        verdictOn('compliance-with-laws', ' The Supplier shall comply with all applicable laws.'),
        verdictOn('assignment-and-subcontracting', ' Only with the Customer’s prior written consent.'),
      ],
      topics,
    );
    expect(findings.map((f) => f.redline?.id)).toEqual([
      'c0001/redline/assignment-and-subcontracting',
      'c0001/redline/compliance-with-laws',
    ]);
    const base = reportOf([{ id: 'c0001', index: 0, start: 0, end, text: clauseText }], () => 0.99);
    const report = {
      ...base,
      clauses: base.clauses.map((c) => ({ ...c, positions: findings })),
      playbookReview: { positions: [], missing: [], escalations: [] },
    } as Report;
    const out = renderReportDocx({ report, text: clauseText, redlines: docxRedlines(report) });
    const both =
      'The Supplier may subcontract the services to any third party. Only with the Customer’s prior written consent. The Supplier shall comply with all applicable laws.';
    expect(out.redlines).toEqual({
      placed: ['c0001/redline/assignment-and-subcontracting', 'c0001/redline/compliance-with-laws'],
      notPlaced: [],
      clauses: [
        {
          clauseId: 'c0001',
          redlines: ['c0001/redline/assignment-and-subcontracting', 'c0001/redline/compliance-with-laws'],
          text: both,
        },
      ],
    });
    expect(withDocxOutcome(report, out).playbookReview?.docx?.clauses?.[0]?.text).toBe(both);
    const author = changeAuthorOf(report.job.jobId, undefined);
    const accepted = xmlPart(out.bytes, 'word/document.xml');
    acceptChanges(accepted, author);
    expect(normaliseText(wordText(accepted))).toBe(both);
    const rejected = xmlPart(out.bytes, 'word/document.xml');
    rejectChanges(rejected, author);
    expect(normaliseText(wordText(rejected))).toBe(clauseText);
  });
});

describe('the quote of a review against a playbook', () => {
  it('prices the analysts the playbook asks, and says what the ones it leaves out would have cost', async () => {
    const parsed = await parseDocument(fixture(SMALL), { key: SMALL, maxBytes: 1 << 20 });
    // The full panel: the playbook alone decides who is asked here.
    const options = {
      analysts: undefined as never,
      models: { primary: PRIMARY_MODEL_ID, fallback: FALLBACK_MODEL_ID },
      fullPanel: true,
    };
    const all = quoteDocument(parsed, {
      ...options,
      analysts: ['term-lifecycle', 'commercial-terms', 'liability-counsel'],
    });
    // Taken as an NDA, as a submitter may say it is: read alone, it is a hosting agreement.
    const nda = quoteDocument(
      parsed,
      {
        ...options,
        analysts: ['term-lifecycle', 'commercial-terms', 'liability-counsel'],
        contractType: 'nda',
      },
      { playbook: NDA, fileName: SMALL },
    );
    expect(nda.panel).toMatchObject({
      analysts: ['term-lifecycle', 'liability-counsel'],
      notAsked: [{ analystId: 'commercial-terms', reason: 'playbook' }],
      contractType: { type: 'nda', source: 'submitted', covered: true },
    });
    expect(nda.quote.notAsked?.calls).toBe(parsed.clauses.length);
    const generic = quoteDocument(parsed, { ...options, analysts: ['commercial-terms'] });
    expect(nda.quote.notAsked?.expectedMicros).toBe(generic.quote.expectedMicros);
    // The analysts asked carry their positions: more input per call than their generic requests.
    const tokens = (q: typeof nda) =>
      Object.values(q.loads).reduce(
        (n, l) => n + l.inputTokens + l.cacheReadInputTokens + l.cacheWriteInputTokens,
        0,
      );
    const same = quoteDocument(parsed, { ...options, analysts: ['term-lifecycle', 'liability-counsel'] });
    expect(tokens(nda)).toBeGreaterThan(tokens(same));
    expect(tokens(all)).toBe(tokens(same) + tokens(generic));
  });
});
