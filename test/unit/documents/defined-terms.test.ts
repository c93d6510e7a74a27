import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MAX_DEFINED_TERMS,
  MAX_DEFINED_TERMS_CHARS,
  readDefinedTerms,
  termKey,
} from '../../../lambdas/core/documents/defined-terms.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/contracts');

/** Each term with its form, and whether its offset points at it. */
const read = (text: string) =>
  readDefinedTerms(text).terms.map((t) => {
    expect(text.slice(t.at, t.at + t.term.length)).toBe(t.term);
    return `${t.term}:${t.form}`;
  });

describe('readDefinedTerms', () => {
  it('reads "Term" means, shall mean, has the meaning, refers to, and a colon', () => {
    const text = [
      '1.1 "Services" means the services in Exhibit A.',
      '1.2 “Fees” shall mean the fees in Exhibit B.',
      '1.3 "Cap" has the meaning given in Section 9.',
      '1.4 "Territory" (or "Area") refers to the United States.',
      '"Deliverables": the items listed in the SOW.',
      'The "look and feel" of the site is not a term.',
    ].join('\n');
    expect(read(text)).toEqual([
      'Services:means',
      'Fees:means',
      'Cap:means',
      'Territory:means',
      'Area:named',
      'Deliverables:means',
    ]);
  });

  it('reads names given in parentheses and by "hereinafter", quoted or not', () => {
    const text =
      'This Agreement (the "Agreement") is made on 1 May (the “Effective Date”) between Alpha Inc. ' +
      '("Alpha"), hereinafter "Licensor", and Beta LLC, hereinafter called the Licensee, (each a "Party").';
    expect(read(text)).toEqual([
      'Agreement:named',
      'Effective Date:named',
      'Alpha:named',
      'Licensor:named',
      'Licensee:named',
      'Party:named',
    ]);
  });

  it('reads a definitions list whose terms are not quoted', () => {
    const text =
      'ARTICLE I - DEFINITIONS 1.1 TRANSPORTATION QUANTITY - shall mean the maximum daily quantity. ' +
      '1.2 EQUIVALENT QUANTITY - shall be as defined in the Tariff.\n(a) Affiliate means a company under ' +
      'common control.\n(b) Business Day means a day banks are open.\nThe Supplier means well.';
    expect(read(text)).toEqual([
      'TRANSPORTATION QUANTITY:means',
      'EQUIVALENT QUANTITY:means',
      'Affiliate:means',
      'Business Day:means',
    ]);
  });

  it('reads terms defined elsewhere, and prefers a definition to a reference', () => {
    const text =
      'Confidential Information includes all Inventions (as defined below). The "Software" as defined ' +
      'in Section 11.1 is licensed.\n\n"Inventions" means all inventions made under this Agreement.';
    const terms = readDefinedTerms(text);
    expect(terms.defines('Software')).toMatchObject({ term: 'Software', form: 'reference' });
    expect(terms.defines('Inventions')).toMatchObject({ form: 'means', at: text.lastIndexOf('Inventions') });
  });

  it('leaves out quoted words in parentheses that name nothing', () => {
    const text =
      'Where "including" is used (or "without limitation" or "but not limited to"), the list is open.';
    expect(readDefinedTerms(text).terms).toEqual([]);
    expect(read('The products (hereinafter referred to as the "order").')).toEqual(['order:named']);
    expect(read('A boxing event at the stadium ("the Event").')).toEqual(['Event:named']);
  });

  it('looks terms up whatever their case and number', () => {
    const terms = readDefinedTerms(
      '"Services" means the services. "Party" means a party. "Affiliate(s)" means affiliates. "Loss" means loss.',
    );
    expect(terms.defines('service')?.term).toBe('Services');
    expect(terms.defines('SERVICES')?.term).toBe('Services');
    expect(terms.defines('Parties')?.term).toBe('Party');
    expect(terms.defines('Affiliates')?.term).toBe('Affiliate(s)');
    expect(terms.defines('Losses')?.term).toBe('Loss');
    expect(terms.defines('Products')).toBeUndefined();
  });

  it('keys a term in lower case with its last word singular', () => {
    expect(termKey('Services')).toBe('service');
    expect(termKey('Third  Parties')).toBe('third party');
    expect(termKey('Losses')).toBe('loss');
    expect(termKey('Business')).toBe('business');
    expect(termKey("Licensor's")).toBe('licensor');
    expect(termKey('Boxes')).toBe('box');
  });

  it('reads the Verizon agreement (290 KB) through its appendix of definitions', () => {
    const text = readFileSync(
      join(FIXTURES, 'VerizonAbsLlc_20200123_8-K_EX-10_4_11952335_EX-10_4_Service_Agreement.txt'),
      'utf8',
    );
    const terms = readDefinedTerms(text);
    expect(terms.terms.length).toBeGreaterThan(250);
    for (const t of ['Servicer', 'Issuer', 'Yield Supplement Overcollateralization Amount', 'Receivables'])
      expect(terms.defines(t), t).toBeDefined();
    const servicer = terms.defines('Servicer');
    expect(text.slice(servicer?.at, (servicer?.at ?? 0) + 8)).toBe('Servicer');
  });

  it("reads the Kiromic consulting agreement's terms, its parties' names among them", () => {
    const text = readFileSync(
      join(FIXTURES, 'KIROMICBIOPHARMA_INC_05_11_2020-EX-10_23-CONSULTING_AGREEMENT.txt'),
      'utf8',
    );
    const terms = readDefinedTerms(text);
    expect(terms.terms.map((t) => t.term)).toEqual(
      expect.arrayContaining([
        'Company',
        'Consultant',
        'Agreement',
        'Services',
        'Confidential Information',
        'Inventions',
      ]),
    );
    expect(terms.defines('service')?.term).toBe('Services');
  });

  it('is bounded: at most so many terms, from at most so many characters', () => {
    const many = Array.from({ length: MAX_DEFINED_TERMS + 50 }, (_, i) => `"Term ${i}" means ${i}.`).join(
      ' ',
    );
    expect(readDefinedTerms(many).terms).toHaveLength(MAX_DEFINED_TERMS);
    const late = `${' '.repeat(MAX_DEFINED_TERMS_CHARS)}"Late Term" means a term past the bound.`;
    expect(readDefinedTerms(late).defines('Late Term')).toBeUndefined();
    expect(readDefinedTerms(late.trimStart()).defines('Late Term')).toBeDefined();
  });
});
