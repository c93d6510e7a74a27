/**
 * A clean copy compared with the version it answers: clauses paired clause by clause, each
 * difference recorded as a change of the other side's in the shape of a tracked change, with
 * offsets into their text. Moves are moves; renumbering, spacing and quote styles are no change;
 * inside a changed clause the change is the smallest edit of words.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normaliseText, type RevisionChange, splitClauses } from '../../../lambdas/core/documents/index.js';
import { alignClauses, compareVersions, passagesOf } from '../../../lambdas/core/negotiation/index.js';

const AUTHOR = 'the other side (untracked)';
const clausesOf = (text: string) => splitClauses(normaliseText(text));
const compare = (ours: string, theirs: string) => {
  const theirClauses = clausesOf(theirs);
  return {
    ...compareVersions(clausesOf(ours), theirClauses, { author: AUTHOR }),
    text: normaliseText(theirs),
    theirClauses,
  };
};
/** What a change reads as, for comparing lists. */
const brief = (c: RevisionChange) => [c.kind, c.text];

const OURS = [
  'MASTER SERVICES AGREEMENT',
  '1. Services. The Supplier shall provide the services described in Schedule 1 with reasonable care.',
  '2. Fees. The Customer shall pay each invoice within thirty (30) days of receiving it.',
  '3. Liability.',
  '3.1 Cap. Each party’s liability is capped at the fees paid in the prior twelve months.',
  '3.2 Exclusions. The cap in Section 3.1 does not apply to breach of confidentiality.',
  '4. Term. This agreement lasts one year and renews only if both parties agree in writing.',
  '5. Notices. Notices are given in writing to the addresses above, and take effect on receipt.',
].join('\n\n');

describe('a clean copy compared with our last version', () => {
  it('finds nothing in the same text, nor in one with other spacing and quote styles', () => {
    expect(compare(OURS, OURS).changes).toEqual([]);
    const restyled = OURS.replace(/’/g, "'")
      .replace(/ within /, '  within ')
      .replace('Services.', 'Services. ');
    const { changes, alignment } = compare(OURS, restyled);
    expect(changes).toEqual([]);
    expect(alignment.pairs.every((p) => p.same && !p.moved)).toBe(true);
  });

  it('records a changed number as one replacement of the words that differ, placed in their text', () => {
    const theirs = OURS.replace('thirty (30) days', 'one hundred eighty (180) days');
    const { changes, text, theirClauses } = compare(OURS, theirs);
    expect(changes.map(brief)).toEqual([
      ['deletion', 'thirty (30)'],
      ['insertion', 'one hundred eighty (180)'],
    ]);
    const [deletion, insertion] = changes;
    expect(text.slice(insertion?.start, insertion?.end)).toBe('one hundred eighty (180)');
    expect([deletion?.start, deletion?.end]).toEqual([insertion?.start, insertion?.start]);
    expect(insertion?.replaces).toBe(deletion?.id);
    const fees = theirClauses.find((c) => c.text.startsWith('2.'));
    expect(changes.map((c) => c.clauseIds)).toEqual([[fees?.id], [fees?.id]]);
    expect(changes.map((c) => [c.id, c.source, c.author])).toEqual([
      ['v1', 'compared', AUTHOR],
      ['v2', 'compared', AUTHOR],
    ]);
  });

  it('finds a number changed inside brackets and one word inserted, each on its own', () => {
    const theirs = OURS.replace('(30)', '(60)').replace('with reasonable care', 'with all reasonable care');
    expect(compare(OURS, theirs).changes.map(brief)).toEqual([
      ['insertion', 'all'],
      ['deletion', '(30)'],
      ['insertion', '(60)'],
    ]);
  });

  it('takes renumbering for no change: a clause inserted before, the numbers after it shifted, references following', () => {
    const theirs = [
      'MASTER SERVICES AGREEMENT',
      '1. Definitions. Words in capitals have the meanings given in Schedule 2 to this agreement.',
      '2. Services. The Supplier shall provide the services described in Schedule 1 with reasonable care.',
      '3. Fees. The Customer shall pay each invoice within thirty (30) days of receiving it.',
      '4. Liability.',
      '4.1 Cap. Each party’s liability is capped at the fees paid in the prior twelve months.',
      '4.2 Exclusions. The cap in Section 4.1 does not apply to breach of confidentiality.',
      '5. Term. This agreement lasts one year and renews only if both parties agree in writing.',
      '6. Notices. Notices are given in writing to the addresses above, and take effect on receipt.',
    ].join('\n\n');
    const { changes, alignment, text } = compare(OURS, theirs);
    expect(changes.map(brief)).toEqual([
      [
        'insertion',
        '1. Definitions. Words in capitals have the meanings given in Schedule 2 to this agreement.',
      ],
    ]);
    expect(text.slice(changes[0]?.start, changes[0]?.end)).toBe(changes[0]?.text);
    expect(alignment.renumbering.get('3.1')).toBe('4.1');
    expect(alignment.pairs.filter((p) => p.moved)).toEqual([]);
  });

  it('takes relettered sub-clauses for no change', () => {
    const ours =
      'The Supplier shall:\n\n(a) deliver the goods on time and in full;\n\n(b) keep the goods insured until delivery.';
    const theirs =
      'The Supplier shall:\n\n(a) pack the goods as the Customer asks;\n\n(b) deliver the goods on time and in full;\n\n(c) keep the goods insured until delivery.';
    expect(compare(ours, theirs).changes.map(brief)).toEqual([
      ['insertion', '(a) pack the goods as the Customer asks;'],
    ]);
  });

  it('recognises a moved clause as a move, placed where it went and where it stood, renumbered or not', () => {
    const paragraphs = OURS.split('\n\n');
    const theirs = [paragraphs[0], paragraphs[6], ...paragraphs.slice(1, 6), paragraphs[7]]
      .join('\n\n')
      .replace('4. Term.', '1A. Term.');
    const { changes, text, theirClauses } = compare(OURS, theirs);
    expect(changes.map(brief)).toEqual([['move', paragraphs[6]?.replace('4. Term.', '1A. Term.')]]);
    const move = changes[0];
    expect(text.slice(move?.start, move?.end)).toBe(move?.text);
    // It stood before the notices clause.
    expect(move?.from).toBe(theirClauses.find((c) => c.text.startsWith('5.'))?.start);
  });

  it('records a clause moved and edited as a move and the words edited in it', () => {
    const paragraphs = OURS.split('\n\n');
    const edited = paragraphs[6]?.replace('one year', 'five years') ?? '';
    const theirs = [paragraphs[0], edited, ...paragraphs.slice(1, 6), paragraphs[7]].join('\n\n');
    const { changes } = compare(OURS, theirs);
    expect(changes.map(brief)).toEqual([
      ['move', edited],
      ['deletion', 'one year'],
      ['insertion', 'five years'],
    ]);
  });

  it('records a clause deleted where it stood, and one inserted where it is', () => {
    const paragraphs = OURS.split('\n\n');
    const theirs = [
      ...paragraphs.slice(0, 4),
      paragraphs[5],
      paragraphs[6],
      '4A. Exclusivity. The Customer buys these services from the Supplier alone during the term.',
      paragraphs[7],
    ].join('\n\n');
    const { changes, text } = compare(OURS, theirs);
    expect(changes.map(brief)).toEqual([
      ['deletion', paragraphs[4]],
      [
        'insertion',
        '4A. Exclusivity. The Customer buys these services from the Supplier alone during the term.',
      ],
    ]);
    // It stood before 3.2, which the splitter now joins to the heading before it.
    expect(changes[0]?.start).toBe(text.indexOf('3.2 Exclusions'));
    expect(changes[0]?.clauseIds).toEqual([
      clausesOf(theirs).find((c) => c.text.includes('3.2 Exclusions'))?.id,
    ]);
    expect(text.slice(changes[1]?.start, changes[1]?.end)).toBe(changes[1]?.text);
  });

  it('refuses a comparison with no author to record the changes under', () => {
    expect(() => compareVersions([], [], { author: ' ' })).toThrow(/author/);
  });
});

describe('the Verizon service agreement (762 clauses) as a clean copy', () => {
  const verizon = readFileSync(
    join(
      import.meta.dirname,
      '../../fixtures/contracts/VerizonAbsLlc_20200123_8-K_EX-10_4_11952335_EX-10_4_Service_Agreement.txt',
    ),
    'utf8',
  );
  const ours = normaliseText(verizon);

  it('finds exactly the edits made: a section inserted (the rest renumbered, references too), one moved, a number changed, quotes restyled', () => {
    const oc = splitClauses(ours);
    expect(oc.length).toBe(762);
    // Their copy: Article II gains a section 2.4, so 2.4 to 2.6 become 2.5 to 2.7 wherever they are named.
    let theirs = ours.replace(
      /(Sections? |and |, )2\.([4-6])\b/g,
      (_, before, n) => `${before}2.${Number(n) + 1}`,
    );
    const at = theirs.lastIndexOf('Section 2.5 Representations');
    const added =
      'Section 2.4 Further Cooperation. The Depositor shall do all things the Issuer reasonably asks.';
    theirs = `${theirs.slice(0, at)}${added}\n\n${theirs.slice(at)}`;
    const savings =
      /Section 2\.3 Savings Clause\.[^\n]*/.exec(ours.slice(ours.lastIndexOf('Section 2.3 Savings')))?.[0] ??
      '';
    theirs = theirs.replace(`${savings}\n\n`, '');
    const end = theirs.lastIndexOf('ARTICLE III');
    theirs = `${theirs.slice(0, end)}${savings}\n\n${theirs.slice(end)}`;
    theirs = theirs
      .replace('ninety (90) days', 'one hundred eighty (180) days')
      .replace(/"([^"\n]{1,40})"/g, '“$1”');
    const tc = splitClauses(normaliseText(theirs));
    const { changes, alignment } = compareVersions(oc, tc, { author: AUTHOR });
    expect(changes.map(brief)).toEqual([
      ['insertion', added],
      ['move', savings],
      ['deletion', 'ninety (90)'],
      ['insertion', 'one hundred eighty (180)'],
    ]);
    // Every paragraph of ours has its counterpart, none moved but the one.
    expect(alignment.pairs).toHaveLength(passagesOf(oc).length);
    expect(alignment.pairs.filter((p) => p.moved).map((p) => alignment.theirs[p.theirs]?.text)).toEqual([
      savings,
    ]);
    const text = normaliseText(theirs);
    for (const c of changes.filter((x) => x.kind !== 'deletion'))
      expect(text.slice(c.start, c.end)).toBe(c.text);
  });

  it('pairs a clause with itself, not with a like clause elsewhere', () => {
    const oc = splitClauses(ours);
    const alignment = alignClauses(oc, oc);
    expect(alignment.pairs.every((p) => p.ours === p.theirs && p.same && !p.moved)).toBe(true);
  });
});

describe('a paragraph rewritten in place', () => {
  it('is read as edited where it stands, not as one deleted and another inserted', () => {
    const ours = [
      '11.2 A party may terminate this Agreement on any of the following events:',
      '(a) The other party materially breaches this Agreement and continues in such breach for thirty (30) days after the non-breaching party has given written notice thereof to the other party; or',
      '(b) The other party is declared insolvent.',
    ].join('\n\n');
    const theirs = ours.replace(
      'and continues in such breach for thirty (30) days after the non-breaching party has given written notice thereof to the other party',
      ', as Todos determines in its sole discretion and without notice',
    );
    const r = compare(ours, theirs);
    // Fewer than half their words shared, yet between the same two paragraphs: one pair, edited.
    expect(r.alignment.pairs).toHaveLength(3);
    expect(r.alignment.inserted).toEqual([]);
    expect(r.changes.every((c) => c.kind === 'insertion' || c.kind === 'deletion')).toBe(true);
    // The smallest word edit of the pair: the words the two share ("in", "notice") stay.
    expect(r.changes.map(brief)).toEqual([
      ['deletion', 'and continues'],
      ['insertion', ', as Todos determines'],
      [
        'deletion',
        'such breach for thirty (30) days after the non-breaching party has given written notice thereof to the other party;',
      ],
      ['insertion', 'its sole discretion and without notice;'],
    ]);
  });
});
