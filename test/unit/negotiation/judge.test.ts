/**
 * The other side's changes weighed against the default playbook: a clause judged as it read
 * before and as it reads now, each fallen position answered (accept, counter with a fallback as
 * the smallest edit of their text, or reject), a risk that rises without a playbook rejected, and
 * their changes and comments grouped and answered.
 */
import { describe, expect, it } from 'vitest';
import type { RevisionChange, RevisionComment } from '../../../lambdas/core/documents/index.js';
import {
  judgeClause,
  judgeNegotiation,
  languageEdits,
  restateNumber,
} from '../../../lambdas/core/negotiation/index.js';
import { type Playbook, shippedPlaybooks } from '../../../lambdas/core/playbooks/index.js';
import type { Position } from '../../../lambdas/core/playbooks/schema.js';
import { claimsOurName } from '../../../lambdas/core/report-docx/index.js';
import type { PositionFinding, ReportClause, Risk } from '../../../lambdas/core/report-types.js';
import { wordsValue } from '../../../lambdas/text/number-words.js';
import { applyEdits } from '../../../lambdas/text/redline-edits.js';
import { theirChangesLine } from '../../../lambdas/text/their-changes.js';

const DEFAULT = shippedPlaybooks().find((p) => p.playbook.name === 'default')?.playbook as Playbook;
const POSITIONS = new Map<string, Position>(DEFAULT.positions.map((p) => [p.topic, p]));
const NONE = new Map<string, Position>();

type Finding = Pick<PositionFinding, 'topic' | 'rung' | 'fallback' | 'redline'> & { quote?: string };

/** A clause as the report has it, with the rungs and risk the analysts gave it. */
function clause(
  id: string,
  text: string,
  findings: Finding[] = [],
  risk: Risk = 'low',
  liability = 1,
): ReportClause {
  return {
    id,
    index: 0,
    chunk: 0,
    start: 100,
    end: 100 + text.length,
    text,
    status: 'analysed',
    risk,
    maxScore: liability,
    scores: { liability },
    findings: [
      {
        category: 'liability',
        score: liability,
        quote: text.slice(0, 20),
        start: 100,
        end: 120,
        rationale: 'the cap',
        analysts: ['a'],
      },
    ],
    analystsAnswered: ['a'],
    analystsFailed: [],
    positions: findings.map(
      (f) =>
        ({
          ...f,
          id: `${id}/playbook/${f.topic}`,
          quotes: [{ quote: f.quote ?? text.slice(0, 30), start: 100, end: 130 }],
          reason: 'read',
        }) as unknown as PositionFinding,
    ),
  };
}

const CAP_BEFORE =
  "Each party's total aggregate liability is limited to the fees paid in the twenty-four (24) months before the claim.";
const CAP_AFTER =
  "Each party's total aggregate liability is limited to the fees paid in the one (1) month before the claim.";
/** The analysts' redline of the lowered cap: back to the standard's two years of fees. */
const capRedline = (after: string) => {
  const start = after.indexOf('one (1) month');
  const edits = [{ start, end: start + 'one (1) month'.length, insert: 'twenty-four (24) months' }];
  return {
    id: 'c0009/redline/limitation-of-liability',
    clauseId: 'c0009',
    topic: 'limitation-of-liability',
    edits,
    target: { rung: 'standard' },
    language: '',
    text: applyEdits(after, edits),
    decision: { status: 'proposed' },
  } as unknown as PositionFinding['redline'];
};

describe('a clause weighed before and after their change, against the default playbook', () => {
  const focus = { start: 60, end: 80 };

  it('counters a cap lowered from the standard to one month’s fees with the first fallback, as their number restated', () => {
    const v = judgeClause(
      {
        before: clause('b0009', CAP_BEFORE, [{ topic: 'limitation-of-liability', rung: 'standard' }]),
        after: clause('c0009', CAP_AFTER, [
          { topic: 'limitation-of-liability', rung: 'not-acceptable', redline: capRedline(CAP_AFTER) },
        ]),
        existed: true,
        focus,
      },
      POSITIONS,
    );
    expect(v.verdict).toBe('counter');
    expect(v.shifts).toEqual([
      {
        topic: 'limitation-of-liability',
        question: POSITIONS.get('limitation-of-liability')?.question,
        before: { rung: 'standard' },
        after: { rung: 'not-acceptable' },
      },
    ]);
    expect(v.counter?.target).toEqual({ rung: 'fallback', fallback: 1 });
    // 1.5 times a year's fees, in the clause's own style: eighteen months.
    expect(v.counter?.text).toBe(
      "Each party's total aggregate liability is limited to the fees paid in the eighteen (18) months before the claim.",
    );
    expect(v.reason).toContain(
      'Fallback 1 would do: A mutual cap of one and a half times the annual charges.',
    );
  });

  it('takes the unit in when the analysts’ edit changed the number alone: one (1) month becomes eighteen (18) months', () => {
    const start = CAP_AFTER.indexOf('one (1)');
    const redline = {
      ...capRedline(CAP_AFTER),
      edits: [{ start, end: start + 7, insert: 'twenty-four (24)' }],
    };
    const v = judgeClause(
      {
        before: clause('b0009', CAP_BEFORE, [{ topic: 'limitation-of-liability', rung: 'standard' }]),
        after: clause('c0009', CAP_AFTER, [
          { topic: 'limitation-of-liability', rung: 'not-acceptable', redline } as Finding,
        ]),
        existed: true,
        focus,
      },
      POSITIONS,
    );
    expect(v.counter?.text).toContain('the eighteen (18) months before the claim');
  });

  it('rejects a term they brought in that we do not accept, rather than bargaining over it', () => {
    const v = judgeClause(
      {
        before: clause('b0005', 'The Supplier may suspend the services on notice.', []),
        after: clause(
          'c0005',
          'The Supplier may suspend the services in its sole discretion and without notice.',
          [{ topic: 'termination-for-convenience', rung: 'not-acceptable' }],
        ),
        existed: true,
        focus,
      },
      POSITIONS,
    );
    expect([v.verdict, v.counter]).toEqual(['reject', undefined]);
  });

  it('rejects the same cut when our text was already at the last fallback: nothing lies between', () => {
    const v = judgeClause(
      {
        before: clause('b0009', CAP_BEFORE, [
          { topic: 'limitation-of-liability', rung: 'fallback', fallback: 2 },
        ]),
        after: clause('c0009', CAP_AFTER, [{ topic: 'limitation-of-liability', rung: 'not-acceptable' }]),
        existed: true,
        focus,
      },
      POSITIONS,
    );
    expect(v.verdict).toBe('reject');
    expect(v.restore).toBe(CAP_BEFORE);
    expect(v.counter).toBeUndefined();
  });

  it('accepts a fall to the very next rung the playbook accepts, naming its approver', () => {
    const v = judgeClause(
      {
        before: clause('b0009', CAP_BEFORE, [
          { topic: 'limitation-of-liability', rung: 'fallback', fallback: 1 },
        ]),
        after: clause('c0009', CAP_AFTER, [
          { topic: 'limitation-of-liability', rung: 'fallback', fallback: 2 },
        ]),
        existed: true,
        focus,
      },
      POSITIONS,
    );
    expect([v.verdict, v.approver]).toEqual(['accept', 'legal-approvers']);
  });

  it('counters with the fallback’s language when the position has no number to restate', () => {
    const after =
      'The Supplier may terminate this Agreement at any time in its sole discretion and without notice.';
    const v = judgeClause(
      {
        before: clause(
          'b0004',
          'Either party may terminate this Agreement for a material breach not remedied within thirty (30) days.',
          [{ topic: 'termination-for-breach', rung: 'standard' }],
        ),
        after: clause('c0004', after, [{ topic: 'termination-for-breach', rung: 'not-acceptable' }]),
        existed: true,
        focus: { start: 50, end: 90 },
      },
      POSITIONS,
    );
    expect(v.verdict).toBe('counter');
    expect(v.counter?.text).toBe(POSITIONS.get('termination-for-breach')?.fallbacks[0]?.language);
  });

  it('without a playbook rejects a change that raises the clause’s risk, and accepts one that lowers it', () => {
    const sides = (beforeRisk: Risk, b: number, afterRisk: Risk, a: number) => ({
      before: clause('b0002', 'was', [], beforeRisk, b),
      after: clause('c0002', 'now', [], afterRisk, a),
      existed: true,
      focus,
    });
    const worse = judgeClause(sides('low', 1, 'high', 3), NONE);
    expect([worse.verdict, worse.risk?.rose]).toEqual([
      'reject',
      [{ category: 'liability', before: 1, after: 3 }],
    ]);
    expect(judgeClause(sides('high', 3, 'low', 1), NONE).verdict).toBe('accept');
  });

  it('does not judge a clause whose text before was not analysed', () => {
    const before = { ...clause('b0002', 'was'), status: 'not-analysed' as const };
    expect(judgeClause({ before, after: clause('c0002', 'now'), existed: true, focus }, NONE).verdict).toBe(
      'not-judged',
    );
  });
});

describe('their changes and comments, grouped and answered', () => {
  const change = (
    c: Partial<RevisionChange> & Pick<RevisionChange, 'id' | 'kind' | 'text'>,
  ): RevisionChange => ({
    source: 'tracked',
    author: 'Opposing Counsel',
    date: '2026-02-03T10:00:00Z',
    ...c,
  });
  const changes = [
    change({
      id: 't1',
      kind: 'deletion',
      text: 'twenty-four (24) months',
      start: 160,
      end: 160,
      clauseIds: ['c0009'],
    }),
    change({
      id: 't2',
      kind: 'insertion',
      text: 'one (1) month',
      start: 160,
      end: 173,
      clauseIds: ['c0009'],
      replaces: 't1',
    }),
    change({
      id: 't3',
      kind: 'formatting',
      text: 'Fees',
      start: 10,
      end: 14,
      clauseIds: ['c0001'],
      properties: ['b'],
    }),
    change({ id: 't4', kind: 'insertion', text: 'see note', part: 'word/footnotes.xml' }),
    change({
      id: 't5',
      kind: 'insertion',
      text: 'ours',
      start: 5,
      end: 9,
      clauseIds: ['c0001'],
      author: 'clause-review (j-1)',
    }),
  ];
  const comments: RevisionComment[] = [
    {
      id: '0',
      author: 'Opposing Counsel',
      text: 'One month is market.',
      start: 150,
      end: 170,
      clauseIds: ['c0009'],
    },
    { id: '1', author: 'Opposing Counsel', text: 'Fine?', start: 0, end: 10, clauseIds: ['c0001'] },
  ];
  const negotiation = judgeNegotiation({
    changes,
    comments,
    clauses: [
      clause('c0001', 'Fees are due.'),
      clause('c0009', CAP_AFTER, [
        { topic: 'limitation-of-liability', rung: 'not-acceptable', redline: capRedline(CAP_AFTER) },
      ]),
    ],
    before: new Map([
      ['c0009', clause('b0009', CAP_BEFORE, [{ topic: 'limitation-of-liability', rung: 'standard' }])],
    ]),
    positions: POSITIONS,
    ours: claimsOurName,
  });

  it('groups an insertion with the deletion it replaces, and leaves our own changes out', () => {
    expect(negotiation?.changes.map((c) => [c.id, c.revisions, c.kind, c.verdict])).toEqual([
      ['n1', ['t1', 't2'], 'replacement', 'counter'],
      ['n2', ['t3'], 'formatting', 'accept'],
      ['n3', ['t4'], 'insertion', 'not-judged'],
    ]);
    expect(negotiation?.summary).toEqual({
      changes: 3,
      accept: 1,
      reject: 0,
      counter: 1,
      notJudged: 1,
      comments: 2,
    });
    expect(negotiation?.authors).toEqual(['Opposing Counsel']);
  });

  it('answers each change, and replies to each comment from its clause’s change or findings', () => {
    const n1 = negotiation?.changes[0];
    expect([n1?.inserted, n1?.deleted, n1?.counter?.id]).toEqual([
      'one (1) month',
      'twenty-four (24) months',
      'n1/counter',
    ]);
    expect(n1?.answer).toMatch(/^Counter\. .*eighteen \(18\) months/);
    expect(negotiation?.comments.map((c) => [c.id, c.changes])).toEqual([
      ['0', ['n1']],
      ['1', ['n2']],
    ]);
    expect(negotiation?.comments[0]?.reply).toBe(`On their change (n1): ${n1?.answer}`);
  });

  it('puts a clause’s counter-proposal on the change whose text it edits, the clause’s other change naming it', () => {
    const after =
      'Subject to the terms and conditions set out in this Agreement and in each schedule to it as amended from time to time, the Agreement renews for five (5) years unless notice is given one hundred eighty (180) days before.';
    const at = (s: string) => 100 + after.indexOf(s);
    const notice = after.indexOf('one hundred eighty (180)');
    const redline = {
      ...capRedline(after),
      clauseId: 'c0004',
      topic: 'non-renewal-notice',
      edits: [{ start: notice, end: notice + 24, insert: 'thirty (30)' }],
    } as PositionFinding['redline'];
    const n = judgeNegotiation({
      changes: [
        change({
          id: 't1',
          kind: 'deletion',
          text: 'one year',
          start: at('five'),
          end: at('five'),
          clauseIds: ['c0004'],
        }),
        change({
          id: 't2',
          kind: 'insertion',
          text: 'five (5) years',
          start: at('five'),
          end: at('five') + 14,
          clauseIds: ['c0004'],
          replaces: 't1',
        }),
        change({
          id: 't3',
          kind: 'deletion',
          text: 'thirty (30)',
          start: at('one hundred'),
          end: at('one hundred'),
          clauseIds: ['c0004'],
        }),
        change({
          id: 't4',
          kind: 'insertion',
          text: 'one hundred eighty (180)',
          start: at('one hundred'),
          end: at('one hundred') + 24,
          clauseIds: ['c0004'],
          replaces: 't3',
        }),
      ],
      comments: [],
      clauses: [clause('c0004', after, [{ topic: 'non-renewal-notice', rung: 'not-acceptable', redline }])],
      before: new Map([
        ['c0004', clause('b0004', 'was', [{ topic: 'non-renewal-notice', rung: 'standard' }])],
      ]),
      positions: POSITIONS,
      ours: claimsOurName,
    });
    expect(n?.changes.map((c) => [c.id, c.verdict, c.counter?.id, c.counterOn])).toEqual([
      ['n1', 'counter', undefined, 'n2'],
      ['n2', 'counter', 'n2/counter', undefined],
    ]);
    expect(n?.changes[1]?.counter?.text).toContain('given sixty (60) days before');
    expect(n?.changes[0]?.answer).toMatch(/Our proposal is on change n2\.$/);
    // The answer quotes the counter's sentence; cut by length, it starts at a word.
    const quote = /tracked change: “…(.+)”$/.exec(n?.changes[1]?.answer ?? '')?.[1] ?? '';
    const text = n?.changes[1]?.counter?.text ?? '';
    expect(quote).toContain('given sixty (60) days before.');
    expect(text[text.indexOf(quote) - 1]).toBe(' ');
  });

  it('says nothing when the other side changed nothing and wrote nothing', () => {
    expect(
      judgeNegotiation({
        changes: [],
        comments: [],
        clauses: [],
        before: new Map(),
        positions: NONE,
        ours: claimsOurName,
      }),
    ).toBeUndefined();
  });
});

describe('the other side’s turn in one line', () => {
  it('counts each answer, the changes not judged and their comments when there are any', () => {
    expect(theirChangesLine({ changes: 3, accept: 1, reject: 1, counter: 1, notJudged: 0 })).toBe(
      'Their changes: 3 — accept 1, reject 1, counter 1',
    );
    expect(
      theirChangesLine({ changes: 2, accept: 0, reject: 1, counter: 0, notJudged: 1, comments: 2 }),
    ).toBe(
      'Their changes: 2 — accept 0, reject 1, counter 0, not judged 1; their comments: 2, each with a proposed reply',
    );
  });
});

describe('numbers restated in their own style', () => {
  it.each([
    ['thirty (30) days', 2, 'sixty (60) days'],
    ['one hundred eighty (180) days', 1 / 3, 'sixty (60) days'],
    ['within 30 days', 3, 'within 90 days'],
    ['twelve months', 1.5, 'eighteen months'],
    ['two hundred per cent (200%) of the charges', 0.75, 'one hundred fifty per cent (150%) of the charges'],
    ['twice the fees', 0.75, '1.5 times the fees'],
    ['THIRTY (30) DAYS', 2, 'SIXTY (60) DAYS'],
  ])('%s × %d → %s', (text, factor, expected) => {
    expect(restateNumber(text, factor)).toBe(expected);
  });

  it('reads numbers in words and states none where there is none', () => {
    expect([
      wordsValue('one hundred and eighty'),
      wordsValue('twenty-four'),
      wordsValue('ninety days'),
    ]).toEqual([180, 24, undefined]);
    expect(restateNumber('promptly', 2)).toBeUndefined();
  });

  it('edits the sentence holding a change word by word into a fallback’s language, keeping the clause’s number', () => {
    const text =
      '7.2 Notice. The Customer may end this Agreement on one hundred eighty (180) days notice. Other terms.';
    const edits = languageEdits(
      text,
      { start: 50, end: 60 },
      'The Customer may end this Agreement on sixty (60) days notice.',
    );
    expect(applyEdits(text, edits)).toBe(
      '7.2 Notice. The Customer may end this Agreement on sixty (60) days notice. Other terms.',
    );
  });
});
