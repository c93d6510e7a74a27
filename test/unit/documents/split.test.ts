import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Clause } from '../../../lambdas/core/clause.js';
import { frontMatterSpan, normaliseText, splitClauses } from '../../../lambdas/core/documents/index.js';

/** The CUAD contracts copied into the fixtures (see its README for the attribution). */
const CORPUS = join(import.meta.dirname, '../../fixtures/contracts');

/**
 * Every guarantee of splitClauses, as a list of violations (empty when all hold) so that a failure
 * names the contract and the clause rather than one bare assertion.
 */
function violations(text: string, clauses: readonly Clause[], max = 4000, min = 40): string[] {
  const problems: string[] = [];
  // The table of contents is the one text no clause holds.
  const front = frontMatterSpan(text, { maxClauseChars: max, minClauseChars: min });
  const outside = (from: number, to: number) =>
    front === undefined || to <= front.start || from >= front.end
      ? text.slice(from, to)
      : text.slice(from, Math.max(from, front.start)) + text.slice(Math.min(to, front.end), to);
  let covered = 0;
  for (const [i, c] of clauses.entries()) {
    const where = `${c.id} [${c.start}, ${c.end})`;
    if (c.index !== i || c.id !== `c${String(i + 1).padStart(4, '0')}`)
      problems.push(`${where}: index/id out of order`);
    if (c.start < covered) problems.push(`${where}: overlaps the previous clause`);
    if (c.end <= c.start) problems.push(`${where}: empty`);
    if (c.text !== text.slice(c.start, c.end)) problems.push(`${where}: text differs from the slice`);
    if (c.text !== c.text.trim()) problems.push(`${where}: has surrounding whitespace`);
    if (front !== undefined && c.start < front.end && c.end > front.start)
      problems.push(`${where}: holds part of the table of contents`);
    if (outside(covered, c.start).trim() !== '')
      problems.push(`${where}: text before it belongs to no clause`);
    if (c.text.length > max) problems.push(`${where}: ${c.text.length} chars, over ${max}`);
    if (clauses.length > 1 && c.text.length < min)
      problems.push(`${where}: ${c.text.length} chars, under ${min}`);
    if (c.label === '' || c.heading === '') problems.push(`${where}: empty label or heading`);
    covered = c.end;
  }
  if (outside(covered, text.length).trim() !== '')
    problems.push('text after the last clause belongs to no clause');
  return problems;
}

const split = (raw: string, options?: Parameters<typeof splitClauses>[1]) => {
  const text = normaliseText(raw);
  const clauses = splitClauses(text, options);
  expect(violations(text, clauses, options?.maxClauseChars, options?.minClauseChars)).toEqual([]);
  return clauses;
};
const labels = (clauses: readonly Clause[]) => clauses.map((c) => c.label);

describe('splitClauses: recognised structure', () => {
  it('splits numbered sections, sub-sections and lettered and roman sub-clauses', () => {
    const clauses = split(
      [
        'ARTICLE I - DEFINITIONS',
        '1.1 "Affiliate" means any entity controlling, controlled by or under common control with a Party.',
        '1.2 "Products" means the goods listed in Schedule A, as amended from time to time.',
        'ARTICLE II',
        'PAYMENT',
        '2.1 Fees. Client shall pay the fees set out below:',
        '(a) a set-up fee of $5,000.00 payable on signature of this Agreement; and',
        '(b) a monthly fee payable in arrears, which shall be:',
        '(i) $1,000 for the first twelve months of the Term; and',
        '(ii) $1,200 for every month thereafter, unless agreed otherwise.',
        'Section 2.2 Late Payment. Amounts unpaid after 30 days bear interest at 1.5% per month.',
        '12.3(a) Any notice shall be in writing and delivered by hand or by courier to the address above.',
      ].join('\n\n'),
    );
    expect(labels(clauses)).toEqual([
      '1.1',
      '1.2',
      '2.1',
      '(a)',
      '(b)',
      '(i)',
      '(ii)',
      'Section 2.2',
      '12.3(a)',
    ]);
    expect(clauses.map((c) => c.heading)).toEqual([
      'DEFINITIONS',
      'DEFINITIONS',
      'Fees',
      'Fees',
      'Fees',
      'Fees',
      'Fees',
      'Late Payment',
      'Late Payment',
    ]);
    // The bare article and its title line join the first clause under them.
    expect(clauses[2]?.text).toMatch(/^ARTICLE II\n\nPAYMENT\n\n2\.1 Fees\./);
  });

  it('reads labels run together on one line, as PDF conversions flatten them', () => {
    const clauses = split(
      'SUPPLY CONTRACT The Contract is signed by the Buyer and the Seller in Hong Kong. 1. General provisions ' +
        '1.1 This is a framework agreement applying to all purchase orders under it. 1.2 If this agreement and an ' +
        'order conflict, the order prevails. 2. ORDERS: The seller confirms each order within three working days. ' +
        '(1) Invoice in five originals showing the contract number. (2) One certificate of origin of the goods. ' +
        'Formation 3. The Parties form a joint venture under the laws of Florida from the Effective Date.',
    );
    expect(labels(clauses)).toEqual([undefined, '1.1', '1.2', '2', '(1)', '(2)', '3']);
    expect(clauses.map((c) => c.heading)).toEqual([
      undefined,
      'General provisions',
      'General provisions',
      'ORDERS',
      'ORDERS',
      'ORDERS',
      'Formation',
    ]);
    expect(clauses[6]?.text).toMatch(/^Formation 3\. The Parties/);
  });

  it('does not take numbers inside sentences, dates, amounts or cross-references for labels', () => {
    const clauses = split(
      [
        '1. Payment. The Client shall pay each invoice within',
        '30 days of receipt, and in any event by 31.12.2020. Interest accrues at',
        '1.5% per month on sums unpaid under Section',
        '2.3 The Supplier may also suspend delivery. Fees total',
        '$1,250,000.00 (one million two hundred fifty thousand dollars) as of',
        '12/31/2019. 2019. A fee of 3.5 million applies.',
        '2. Term. This Agreement lasts two years from the Effective Date unless terminated earlier.',
      ].join('\n'),
    );
    expect(labels(clauses)).toEqual(['1', '2']);
  });

  it('reads clause numbers of any width: 5,000 numbered clauses are 5,000 clauses', () => {
    const raw = Array.from(
      { length: 5000 },
      (_, i) => `${i + 1}. The Supplier shall deliver item ${i + 1} on time and in full.`,
    ).join('\n\n');
    const clauses = split(raw);
    expect(clauses).toHaveLength(5000);
    expect(labels(clauses).slice(997, 1002)).toEqual(['998', '999', '1000', '1001', '1002']);
    expect(clauses[4999]?.text).toMatch(/^5000\. /);
    expect(
      labels(
        split(
          'Section 1205. Notices. Notices go to the addresses above, in writing.\n\nSection 1206. Assignment. Neither party may assign this Agreement.',
        ),
      ),
    ).toEqual(['Section 1205', 'Section 1206']);
  });

  it('reads hard-wrapped text (a PDF text layer: one line per printed line, no blank lines)', () => {
    const clauses = split(
      [
        'SERVICES AGREEMENT',
        'This Services Agreement is made on 1 March 2020 between Acme Corp, a',
        'Delaware corporation, and Widget Ltd, a company registered in England.',
        'The parties agree as follows.',
        '1. Services. The Provider shall perform the services described in',
        'Schedule A with the skill and care of an experienced provider, within',
        '30 days of each order placed under Section',
        '2.3 of the Framework Agreement, and shall report on progress monthly.',
        '2. Fees. The Client shall pay each invoice within thirty days of the',
        'date of the invoice, without set-off or deduction of any kind at all:',
        '(a) fees for the services at the rates set out in Schedule B; and',
        '(b) expenses reasonably incurred and approved in writing in advance.',
        '3. Term. This Agreement starts on the Effective Date and continues for',
        'two years, unless terminated earlier under this clause.',
        'Either party may terminate it on ninety days written notice to the',
        'other party, given at any time after the first anniversary.',
      ].join('\n'),
    );
    expect(labels(clauses)).toEqual([undefined, '1', '2', '(a)', '(b)', '3']);
    expect(clauses.map((c) => c.heading)).toEqual([
      'SERVICES AGREEMENT',
      'Services',
      'Fees',
      'Fees',
      'Fees',
      'Term',
    ]);
    expect(clauses[1]?.text).toMatch(/within\n30 days .* Section\n2\.3 of the Framework Agreement/s);
  });

  it('keeps a sentence broken by a page footer in one clause', () => {
    const footer = 'Acme Corp - Confidential';
    const clauses = split(
      [
        '1. Services. The Provider shall provide the services with the skill and care of a',
        footer,
        '2',
        'or more experienced provider in the industry.',
        '2. Fees. The Client shall pay the fees in the Schedule within thirty days.',
        footer,
        '3',
        '3. Term. The Agreement lasts one year and renews automatically each year.',
        footer,
      ].join('\n\n'),
    );
    expect(labels(clauses)).toEqual(['1', '2', '3']);
    expect(clauses[0]?.text).toMatch(
      /skill and care of a\n\nAcme Corp - Confidential\n\n2\n\nor more experienced/,
    );
  });

  it('falls back to paragraphs, with headings from capitalised and Title Case lines', () => {
    const clauses = split(
      [
        'CONSULTING AGREEMENT',
        'This Consulting Agreement is made on 2 January 2020 between Acme Corp and Jane Doe.',
        'Term of Engagement',
        'The engagement starts on the Effective Date and lasts for twelve months.',
        'Either party may end it on thirty days written notice to the other party.',
        'IN WITNESS WHEREOF, the parties have signed this Agreement on the date above.',
      ].join('\n\n'),
    );
    expect(labels(clauses)).toEqual([undefined, undefined, undefined, undefined]);
    expect(clauses.map((c) => c.heading)).toEqual([
      'CONSULTING AGREEMENT',
      'Term of Engagement',
      'Term of Engagement',
      undefined,
    ]);
  });

  it('splits an over-long clause at sentence ends into labelled parts', () => {
    const sentence =
      'The Supplier shall maintain insurance with reputable insurers, Inc. included, at all times. ';
    const clauses = split(`7.1 Insurance. ${sentence.repeat(8)}\n\n7.2 Records. ${sentence.repeat(120)}`, {
      maxClauseChars: 2000,
    });
    expect(clauses[0]?.label).toBe('7.1');
    const parts = clauses.slice(1);
    expect(parts.map((c) => c.label)).toEqual(parts.map((_, i) => `7.2 (part ${i + 1})`));
    expect(parts.length).toBe(Math.ceil((sentence.length * 120 + 13) / 2000));
    for (const part of parts) {
      expect(part.text).toMatch(/^(7\.2 Records\. )?The Supplier .* at all times\.$/s);
      expect(part.heading).toBe('Records');
    }
  });

  it('cuts text with no sentence ends or spaces anywhere, without losing a character', () => {
    const clauses = split(`${'x'.repeat(9000)} ${'y;'.repeat(3000)}`);
    expect(clauses.length).toBeGreaterThanOrEqual(4);
  });

  it('joins tiny fragments to the next clause, and a tiny last one to the previous clause', () => {
    const clauses = split('Page 1\n\nA\n\n1. The Client shall pay all invoices on time and in full.\n\nEnd.');
    expect(clauses).toHaveLength(1);
    expect(clauses[0]?.text).toMatch(/^Page 1\n\nA\n\n1\. The Client .*\n\nEnd\.$/s);
  });

  it('returns one clause for a text shorter than the minimum, none for text without words', () => {
    expect(split('Fees: $5.')).toHaveLength(1);
    expect(splitClauses('')).toEqual([]);
    expect(splitClauses('--- *** ...\n\n!!! ___ §')).toEqual([]);
  });

  it('validates its options', () => {
    expect(() => splitClauses('x', { maxClauseChars: 100 })).toThrow(
      /maxClauseChars.*200 to 1000000.*got 100/,
    );
    expect(() => splitClauses('x', { minClauseChars: 2000 })).toThrow(/minClauseChars.*0 to .*got 2000/);
    expect(() => splitClauses('x', { maxClauseChars: 1.5 })).toThrow(RangeError);
  });
});

describe('splitClauses: table of contents', () => {
  const body = [
    'DISTRIBUTION AGREEMENT',
    'This Distribution Agreement is made between Acme Corp. and Beta Ltd. on 1 March 2020.',
    'ARTICLE 1. DEFINITIONS',
    '1.1 "Affiliate" means any entity controlling, controlled by or under common control with a Party.',
    '1.2 "Territory" means Japan, as amended from time to time.',
    'ARTICLE 2. GRANT OF RIGHTS',
    '2.1 Grant. Supplier appoints Distributor as its exclusive distributor of the Products in the Territory.',
    '2.2 Sub-distribution. Distributor may appoint sub-distributors with the prior consent of Supplier.',
  ].join('\n\n');
  const bodyLabels = [undefined, '1.1', '1.2', '2.1', '2.2'];

  /** The clauses after the contents are the body's own, at their own offsets. */
  const expectBody = (text: string, clauses: readonly Clause[]) => {
    expect(labels(clauses)).toEqual(bodyLabels);
    expect(clauses[0]?.text).toMatch(/^DISTRIBUTION AGREEMENT\n\nThis Distribution Agreement/);
    expect(clauses.some((c) => /Grant of Rights 2\.1|Sub-distribution 3/.test(c.text))).toBe(false);
    const bodyStart = text.indexOf('DISTRIBUTION AGREEMENT');
    expect(clauses[0]?.start).toBe(bodyStart);
    for (const c of clauses) expect(text.slice(c.start, c.end)).toBe(c.text);
    expect(clauses[3]?.text).toMatch(/^ARTICLE 2\. GRANT OF RIGHTS\n\n2\.1 Grant\. Supplier appoints/);
  };

  it('leaves out a table of contents flattened into one line after its heading', () => {
    const raw = [
      'Table of Contents',
      'Article 1. Definitions 1.1 Affiliate 1.2 Territory Article 2. Grant of Rights 2.1 Grant 2.2 Sub-distribution 3',
      body,
    ].join('\n\n');
    const text = normaliseText(raw);
    const clauses = split(raw);
    expect(frontMatterSpan(text)).toEqual({ start: 0, end: text.indexOf('DISTRIBUTION AGREEMENT') });
    expectBody(text, clauses);
  });

  it('leaves out a table of contents over several lines and pages, with page numbers and running footers', () => {
    const raw = [
      'Exhibit 10.2 CONFIDENTIAL TREATMENT REQUESTED BY ACME CORP. FOR CERTAIN PORTIONS',
      'TABLE OF CONTENTS',
      'ARTICLE 1 DEFINITIONS .......... 1',
      'Section 1.1 Affiliate .......... 1',
      'Section 1.2 Territory; Products .......... 2',
      'i',
      'Source: ACME CORP, 10-K, 3/1/2019',
      'ARTICLE 2 GRANT OF RIGHTS .......... 3',
      'Section 2.1 Grant .......... 3',
      'Section 2.2 Sub-distribution .......... 4',
      'List of Exhibits',
      'Exhibit A Products Exhibit B Form of Order',
      'ii',
      'Source: ACME CORP, 10-K, 3/1/2019',
      body,
    ].join('\n');
    const text = normaliseText(raw);
    const clauses = split(raw);
    // The cover line is long enough to be a clause of its own, so it stays.
    expect(clauses[0]?.text).toBe(
      'Exhibit 10.2 CONFIDENTIAL TREATMENT REQUESTED BY ACME CORP. FOR CERTAIN PORTIONS',
    );
    expect(frontMatterSpan(text)).toEqual({
      start: text.indexOf('TABLE OF CONTENTS'),
      end: text.indexOf('DISTRIBUTION AGREEMENT'),
    });
    expectBody(text, clauses.slice(1));
  });

  it('leaves out a table of contents without a heading when the body then numbers the same sections', () => {
    const raw = [
      '1. Definitions',
      '2. Grant of Rights',
      '3. Orders and Delivery',
      '4. Prices; Payment',
      '5. Term and Termination',
      '6. General',
      '1. Definitions. In this Agreement "Products" means the goods listed in Schedule A.',
      '2. Grant of Rights. Supplier appoints Distributor as its distributor in the Territory.',
    ].join('\n\n');
    const text = normaliseText(raw);
    const clauses = split(raw);
    expect(labels(clauses)).toEqual(['1', '2']);
    expect(clauses[0]?.start).toBe(text.indexOf('1. Definitions. In this'));
    expect(clauses[0]?.text).toBe(
      '1. Definitions. In this Agreement "Products" means the goods listed in Schedule A.',
    );
  });

  it('keeps a list of definitions after a heading, as it reads as clauses', () => {
    const raw = [
      'INDEX',
      '1.1 "Affiliate" means any entity controlling or controlled by a Party.',
      '1.2 "Products" means the goods in Schedule A.',
      '1.3 "Territory": Japan, Korea and Taiwan, and any country added.',
      '1.4 "Term" has the meaning given to it in Section 9.',
      '1.5 Effective Date shall mean 1 March 2020.',
    ].join('\n\n');
    const text = normaliseText(raw);
    expect(frontMatterSpan(text)).toBeUndefined();
    expect(labels(split(raw))).toEqual(['1.1', '1.2', '1.3', '1.4', '1.5']);
  });

  it('keeps short clauses with a title, after a Contents heading or not', () => {
    const clauses = [
      '10. Notices. See Schedule 2 for addresses.',
      '11. Headings. Headings are for convenience only.',
      '12. Counterparts. This Agreement may be executed in counterparts.',
      '13. Waiver. No waiver is effective unless in writing.',
      '14. Severability. An invalid term does not affect the rest.',
      '15. Assignment. Neither Party may assign this Agreement.',
    ];
    for (const raw of [clauses.join('\n\n'), ['Contents', ...clauses].join('\n\n')]) {
      const text = normaliseText(raw);
      expect(frontMatterSpan(text)).toBeUndefined();
      expect(labels(split(raw))).toEqual(['10', '11', '12', '13', '14', '15']);
    }
  });

  it('keeps a document that is nothing but a table of contents', () => {
    const raw = 'Table of Contents\n\n1. Definitions\n\n2. Term\n\n3. Payment\n\n4. Notices';
    expect(frontMatterSpan(normaliseText(raw))).toBeUndefined();
    expect(split(raw).length).toBeGreaterThan(0);
  });
});

describe('splitClauses on the CUAD contracts of the fixtures', () => {
  const files = readdirSync(CORPUS).filter((f) => f.endsWith('.txt'));

  it('splits GALACTICOMM (1.6 KB) into the paragraphs a lawyer sees', () => {
    const file = join(CORPUS, 'GALACTICOMMTECHNOLOGIESINC_11_07_1997-EX-10_46-WEB_HOSTING_AGREEMENT.txt');
    const clauses = split(readFileSync(file, 'utf8'));
    expect(clauses.map((c) => [c.label, c.text.slice(0, 40)])).toEqual([
      ['EXHIBIT 10.46', 'EXHIBIT 10.46\n\nWEB HOSTING AGREEMENT\n\nTh'],
      [undefined, 'There shall be no additional fees of any'],
      [undefined, 'Horst Entertainment agrees to pay Galact'],
      [undefined, 'Galacticomm must provide a person(s) to '],
      [undefined, 'In the event Galacticomm, Inc. chooses t'],
      [undefined, 'All parties have read and fully agree to'],
      [undefined, '/s/ Yannick Tessier 9/9/97 - -----------'],
    ]);
    expect(new Set(clauses.map((c) => c.heading))).toEqual(new Set(['WEB HOSTING AGREEMENT']));
    expect(clauses[6]?.text).toMatch(/Horst Entertainment Inc\. Date$/);
  });

  it('numbers the sections of LOHA (11 KB) as printed, flattened pages and all', () => {
    const file = join(CORPUS, 'LohaCompanyltd_20191209_F-1_EX-10_16_11917878_EX-10_16_Supply_Agreement.txt');
    const got = labels(split(readFileSync(file, 'utf8')));
    expect(got).toEqual(
      expect.arrayContaining([
        '1.1',
        '1.2',
        '2.1',
        '2.2',
        '2.3',
        '2.4',
        '5',
        '6',
        '11',
        '12.1(1)',
        '13',
        '19',
        '21',
      ]),
    );
    expect(got.filter((l) => l !== undefined && /^\d+$/.test(l)).map(Number)).toEqual(
      // 22 reads "22. <<Incoterms 2000>> The terms ...": not a label shape, so it stays inside 21.
      [3, 5, 6, 7, 8, 11, 13, 14, 15, 16, 17, 18, 19, 20, 21, 23],
    );
  });

  it('leaves the table of contents of Zogenix out of its clauses', () => {
    const file = join(CORPUS, 'ZogenixInc_20190509_10-Q_EX-10_2_11663313_EX-10_2_Distributor_Agreement.txt');
    const text = normaliseText(readFileSync(file, 'utf8'));
    const clauses = split(readFileSync(file, 'utf8'));
    const toc = {
      start: text.indexOf('Table of Contents'),
      end: text.indexOf('DISTRIBUTORSHIP AGREEMENT\n'),
    };
    expect(toc.start).toBeGreaterThan(0);
    expect(frontMatterSpan(text)).toEqual(toc);
    expect(clauses.filter((c) => c.start < toc.end && c.end > toc.start)).toEqual([]);
    expect(clauses.some((c) => c.text.includes('2.5 Non-Compete Covenant 2.6'))).toBe(false);
    // The cover page before it and the agreement after it are still clauses.
    expect(clauses[0]?.text).toMatch(/^Exhibit 10\.2/);
    const first = clauses.find((c) => c.start >= toc.end);
    expect(first?.text).toMatch(/^DISTRIBUTORSHIP AGREEMENT\n\nThis DISTRIBUTORSHIP AGREEMENT/);
  });

  it('keeps every guarantee on all corpus contracts, with clause counts a lawyer would recognise', () => {
    expect(files.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const file of files) {
      const text = normaliseText(readFileSync(join(CORPUS, file), 'utf8'));
      const clauses = splitClauses(text);
      for (const p of violations(text, clauses)) problems.push(`${file}: ${p}`);
      // Neither one clause per page nor one per line: between 1 per 1,500 and 1 per 100 characters.
      const perClause = text.length / clauses.length;
      if (text.length > 3000 && (perClause > 1500 || perClause < 100)) {
        problems.push(`${file}: ${clauses.length} clauses for ${text.length} chars`);
      }
    }
    expect(problems).toEqual([]);
  });
});
