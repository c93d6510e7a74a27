/**
 * The revisions reader over many documents and hostile ones: for random markup (insertions,
 * deletions, replacements, text inserted then deleted, paragraphs joined and inserted, by two
 * authors) the text the review reads is the contract with every change accepted and the restore
 * edits give it with every change rejected; lists stay bounded however many revisions a
 * document holds; and the helpers that map a clause's span into the text before hold their rules.
 */
import { describe, expect, it } from 'vitest';
import type { Clause } from '../../../lambdas/core/clause.js';
import {
  clauseIdsAt,
  MAX_CHANGE_TEXT,
  MAX_CHANGES,
  MAX_COMMENTS,
  normaliseText,
  parseDocument,
  readDocxRevisions,
  spanBefore,
  splitClauses,
  textBefore,
} from '../../../lambdas/core/documents/index.js';
import { buildDocx } from '../../fixtures/documents/builders.js';
import {
  commentEnd,
  commentStart,
  del,
  delRun,
  ins,
  insertedPara,
  joinedPara,
  OTHER,
  para,
  revisedDocx,
  run,
} from '../../helpers/docx-revisions.js';
import { seededRandom } from '../../helpers/random.js';

const parse = (bytes: Uint8Array) => parseDocument(bytes, { key: 'answer.docx', maxBytes: 10 * 1024 * 1024 });
const plainText = async (paragraphs: readonly string[]) => (await parse(buildDocx(paragraphs))).text;
const squeeze = (s: string) => s.replace(/\s+/g, '');

const WORDS =
  'the supplier shall pay fees within days notice term liability cap audit 30 (90) USD “Services” —'.split(
    ' ',
  );

/** A random marked-up document, and its paragraphs with every change accepted and with every one rejected. */
function markedUp(random: () => number) {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const author = () => pick([OTHER, 'Our Counsel']);
  const body: string[] = [];
  const accepted: string[] = [];
  const rejected: string[] = [];
  const inserted: string[] = [];
  const deleted: string[] = [];
  let joinNext = false;
  for (let p = 0; p < 12; p++) {
    if (random() < 0.1) {
      const text = `${p + 1}. ${words(6)}`;
      body.push(insertedPara(author(), text));
      if (joinNext) accepted[accepted.length - 1] += text;
      else accepted.push(text);
      inserted.push(text);
      joinNext = false;
      continue;
    }
    const head = `${p + 1}. ${words(3)}`;
    const parts: string[] = [run(head)];
    let now = head;
    let was = head;
    for (let s = 0; s < 5; s++) {
      const text = `${random() < 0.5 ? ' ' : ''}${words(1 + Math.floor(random() * 3))}${random() < 0.5 ? ' ' : ''}`;
      const r = random();
      if (r < 0.35) {
        parts.push(run(text));
        now += text;
        was += text;
      } else if (r < 0.55) {
        parts.push(ins(text, author()));
        now += text;
        inserted.push(text);
      } else if (r < 0.75) {
        parts.push(del(text, author()));
        was += text;
        deleted.push(text);
      } else if (r < 0.9) {
        const other = ` ${words(2)} `;
        const who = author();
        parts.push(del(text, who), ins(other, who));
        now += other;
        was += text;
        deleted.push(text);
        inserted.push(other);
      } else {
        parts.push(
          `<w:del w:id="1" w:author="${OTHER}"><w:ins w:id="2" w:author="Our Counsel">${delRun(text)}</w:ins></w:del>`,
        );
      }
    }
    const join = random() < 0.15 && p < 11;
    body.push(join ? joinedPara(author(), ...parts) : para(...parts));
    if (joinNext) accepted[accepted.length - 1] += now;
    else accepted.push(now);
    rejected.push(was);
    joinNext = join;
  }
  return { docx: revisedDocx(body.join('')), accepted, rejected, inserted, deleted };
}

describe('tracked changes over random markup', () => {
  it('reads the contract as the changes leave it, restores it as it read before, and places each change on its own text', async () => {
    const random = seededRandom(47);
    for (let n = 0; n < 40; n++) {
      const doc = markedUp(random);
      const parsed = await parse(doc.docx);
      expect(parsed.text).toBe(await plainText(doc.accepted));
      const revisions = parsed.revisions;
      expect(textBefore(parsed.text, revisions?.restore ?? [])).toBe(await plainText(doc.rejected));
      const changes = revisions?.changes ?? [];
      for (const c of changes.filter((x) => x.kind === 'insertion'))
        expect(parsed.text.slice(c.start, c.end)).toBe(c.text);
      const text = (kind: string) =>
        squeeze(
          changes
            .filter((c) => c.kind === kind && !c.insertedBy)
            .map((c) => c.text)
            .join(''),
        );
      expect(text('insertion')).toBe(squeeze(doc.inserted.join('')));
      expect(text('deletion')).toBe(squeeze(doc.deleted.join('')));
      // Each clause's span, mapped into the text before, holds that clause's text before.
      const before = textBefore(parsed.text, revisions?.restore ?? []);
      const spans = parsed.clauses.map((c) =>
        spanBefore(parsed.text, revisions?.restore ?? [], c.start, c.end),
      );
      expect(squeeze(spans.map((s) => before.slice(s.start, s.end)).join(''))).toBe(squeeze(before));
    }
  });
});

describe('a hostile document', () => {
  // Read directly, over the text intake would give (mammoth alone takes seconds on such markup).
  const LIMITS = { maxInflatedBytes: 64 * 1024 * 1024, maxChars: 10_000_000 };
  const read = (bytes: Uint8Array, paragraphs: readonly string[]) => {
    const text = normaliseText(paragraphs.join('\n\n'));
    return { text, revisions: readDocxRevisions(bytes, text, splitClauses(text), LIMITS) };
  };

  it('with 20,000 revisions lists the first 5,000 in order, counts the rest, and still restores all of them', () => {
    const count = 20_000;
    const paragraphs: string[] = [];
    const now: string[] = [];
    const was: string[] = [];
    for (let p = 0; p < 40; p++) {
      const parts: string[] = [];
      let a = '';
      let b = '';
      for (let i = 0; i < count / 40; i++) {
        const k = p * 1000 + i;
        parts.push(run(`w${k} `), i % 2 ? ins(`i${k} `) : del(`d${k} `));
        a += i % 2 ? `w${k} i${k} ` : `w${k} `;
        b += i % 2 ? `w${k} ` : `w${k} d${k} `;
      }
      paragraphs.push(para(...parts));
      now.push(a);
      was.push(b);
    }
    const { text, revisions } = read(revisedDocx(paragraphs.join('')), now);
    expect(revisions?.changes).toHaveLength(MAX_CHANGES);
    expect(revisions?.omitted).toEqual({ changes: count - MAX_CHANGES, comments: 0 });
    expect(revisions?.changes.map((c) => c.text).slice(0, 3)).toEqual(['d0', 'i1', 'd2']);
    expect(revisions?.changes[MAX_CHANGES - 1]?.id).toBe(`t${MAX_CHANGES}`);
    expect(textBefore(text, revisions?.restore ?? [])).toBe(normaliseText(was.join('\n\n')));
  });

  it('with more comments than the bound lists the first ones and counts the rest', () => {
    const count = MAX_COMMENTS + 500;
    const words = Array.from({ length: count }, (_, i) => `word${i} `);
    const body = para(...words.map((w, i) => `${commentStart(i)}${run(w)}${commentEnd(i)}`));
    const comments = Array.from({ length: count }, (_, i) => ({ id: i, author: OTHER, text: `note ${i}` }));
    const { text, revisions } = read(revisedDocx(body, { comments }), [words.join('')]);
    expect(revisions?.comments).toHaveLength(MAX_COMMENTS);
    expect(revisions?.omitted).toEqual({ changes: 0, comments: 500 });
    const last = revisions?.comments[MAX_COMMENTS - 1];
    expect([last?.text, text.slice(last?.start, last?.end)]).toEqual([
      `note ${MAX_COMMENTS - 1}`,
      `word${MAX_COMMENTS - 1}`,
    ]);
  });

  it('keeps no restore edits when the text before would be longer than a text may be, and cuts a long change’s text', async () => {
    const long = 'deleted words '.repeat(2_000);
    const bytes = revisedDocx(para(run('1. Term. Kept text of the clause.'), del(long)));
    const parsed = await parse(bytes);
    const limits = { maxInflatedBytes: 64 * 1024 * 1024, maxChars: 20_000 };
    const revisions = readDocxRevisions(bytes, parsed.text, parsed.clauses, limits);
    expect(revisions?.restore).toBeUndefined();
    const change = revisions?.changes[0];
    expect(change?.text).toHaveLength(MAX_CHANGE_TEXT);
    expect(change?.text.endsWith('…')).toBe(true);
    expect(change?.textChars).toBeGreaterThan(MAX_CHANGE_TEXT);
    // Under the document's own limits the same deletion is restored whole.
    expect(textBefore(parsed.text, parsed.revisions?.restore ?? [])).toBe(
      await plainText([`1. Term. Kept text of the clause.${long}`]),
    );
  });

  it('refuses a package that unpacks to more than the limit before reading a part', () => {
    const bytes = revisedDocx(para(run('1. Term.'), ins(' x'.repeat(50_000))));
    expect(() =>
      readDocxRevisions(bytes, '1. Term. x', [], { maxInflatedBytes: 10_000, maxChars: 1e6 }),
    ).toThrow(/unpacks to more than/);
  });
});

describe('a clause’s place among the changes', () => {
  const clause = (id: string, start: number, end: number): Clause => ({ index: 0, id, start, end, text: '' });
  const clauses = [clause('c1', 0, 10), clause('c2', 12, 20), clause('c3', 22, 30)];

  it('attributes a span to the clauses it overlaps, and a point to the clause holding it, ending there, or next', () => {
    expect(clauseIdsAt(clauses, 5, 15)).toEqual(['c1', 'c2']);
    expect(clauseIdsAt(clauses, 12, 12)).toEqual(['c2']);
    expect(clauseIdsAt(clauses, 10, 10)).toEqual(['c1']);
    expect(clauseIdsAt(clauses, 11, 11)).toEqual(['c2']);
    expect(clauseIdsAt(clauses, 40, 40)).toEqual(['c3']);
    expect(clauseIdsAt([], 0, 0)).toEqual([]);
  });

  it('maps a span into the text before, sharing a restored stretch at its paragraph breaks', () => {
    // "One. Two." with " gone." deleted after "One." and a new paragraph break before "Two."
    const text = 'One.\n\nTwo.';
    const restore = [{ start: 4, end: 6, insert: ' gone.\n\n' }];
    const before = textBefore(text, restore);
    expect(before).toBe('One. gone.\n\nTwo.');
    const first = spanBefore(text, restore, 0, 4);
    const second = spanBefore(text, restore, 6, 10);
    expect(before.slice(first.start, first.end)).toBe('One. gone.');
    expect(before.slice(second.start, second.end)).toBe('Two.');
    // A stretch with no break belongs to the span it lies in.
    expect(spanBefore('One, two.', [{ start: 4, end: 5, insert: ' and ' }], 0, 9)).toEqual({
      start: 0,
      end: 13,
    });
    // A point with no break at a span's end goes with what follows, or at the end of the text with the span.
    const point = [{ start: 4, end: 4, insert: 'X' }];
    expect(spanBefore('One.Two.', point, 0, 4)).toEqual({ start: 0, end: 4 });
    expect(spanBefore('One.Two.', point, 4, 8)).toEqual({ start: 4, end: 9 });
    expect(spanBefore('One.', point, 0, 4)).toEqual({ start: 0, end: 5 });
  });
});
