import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BODY_WINDOW,
  CONTRACT_KIND_IDS,
  CONTRACT_KINDS,
  kindLabel,
  readContractKind,
} from '../../../lambdas/core/documents/contract-kind.js';
import { kindsNamedIn } from '../../../lambdas/core/documents/contract-kinds.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/contracts');

/** CUAD's 25 contract types, by this project's ids. */
const CUAD_TYPES = [
  'affiliate',
  'agency',
  'co-branding',
  'collaboration',
  'consulting',
  'development',
  'distribution',
  'endorsement',
  'franchise',
  'hosting',
  'intellectual-property',
  'joint-venture',
  'licence',
  'maintenance',
  'manufacturing',
  'marketing',
  'non-compete',
  'outsourcing',
  'promotion',
  'reseller',
  'services',
  'sponsorship',
  'strategic-alliance',
  'supply',
  'transportation',
] as const;

describe('the kinds of contract', () => {
  it("holds CUAD's 25 types and the six more a legal team sees", () => {
    expect(CONTRACT_KIND_IDS).toEqual(expect.arrayContaining([...CUAD_TYPES]));
    expect(CONTRACT_KIND_IDS).toEqual(
      expect.arrayContaining(['nda', 'employment', 'lease', 'loan', 'purchase', 'settlement']),
    );
    expect(new Set(CONTRACT_KIND_IDS).size).toBe(CONTRACT_KINDS.length);
  });

  it('reads every kind back from its own label', () => {
    for (const spec of CONTRACT_KINDS)
      expect(kindsNamedIn(spec.label.toUpperCase())[0], spec.kind).toBe(spec.kind);
  });

  it('names the kinds of a title in its order, the more particular words first at one place', () => {
    expect(kindsNamedIn('CO-BRANDING, MARKETING AND DISTRIBUTION AGREEMENT')).toEqual([
      'co-branding',
      'marketing',
      'distribution',
    ]);
    expect(kindsNamedIn('Form of Sub-Reseller Agreement')).toEqual(['reseller']);
    expect(kindsNamedIn('Mutual Release Agreement')).toEqual(['settlement']);
    expect(kindsNamedIn('Franchisee Handbook')).toEqual([]);
    expect(kindLabel('licence')).toBe('Licence Agreement');
  });
});

describe('readContractKind', () => {
  it('reads the title passed in first', () => {
    expect(readContractKind('THIS AGREEMENT is made …', 'GAS FRANCHISE AGREEMENT')).toEqual({
      kind: 'franchise',
      kinds: ['franchise'],
      label: 'Franchise Agreement',
      source: 'title',
      words: 'GAS FRANCHISE AGREEMENT',
    });
  });

  it('gives the first of two kinds a title names as the kind, and both as kinds', () => {
    const r = readContractKind('', 'Software License and Services Agreement');
    expect(r.kind).toBe('licence');
    expect(r.kinds).toEqual(['licence', 'services']);
  });

  it('finds a title in the text when none is passed, or the one passed is not a title', () => {
    const text =
      'EXHIBIT 10.2 EXECUTION VERSION NON-COMPETITION AND NON-SOLICITATION AGREEMENT THIS AGREEMENT …';
    expect(readContractKind(text)).toMatchObject({
      kind: 'non-compete',
      source: 'title',
      words: 'EXECUTION VERSION NON-COMPETITION AND NON-SOLICITATION AGREEMENT',
      at: text.indexOf('EXECUTION'),
    });
    const footer = 'Source: PRECHECK HEALTH SERVICES, INC., 8-K\n\nDISTRIBUTOR AGREEMENT\nAgreement made …';
    expect(readContractKind(footer, 'Source: PRECHECK HEALTH SERVICES, INC., 8-K').kind).toBe('distribution');
    expect(readContractKind('Exhibit 1.1\n\nStrategic Alliance Agreement\n\nThis Agreement …').kind).toBe(
      'strategic-alliance',
    );
  });

  it("reads the body's own words when no title names a kind", () => {
    const text = 'AGREEMENT\n\nThis Franchise Agreement (the "Agreement") is made between ACME and Beta.';
    expect(readContractKind(text, 'AGREEMENT')).toMatchObject({
      kind: 'franchise',
      source: 'body',
      words: 'This Franchise Agreement',
      at: text.indexOf('This Franchise'),
    });
  });

  it('reads what the body says the contract makes, unless it says it makes no such thing', () => {
    const made =
      'AGREEMENT\n\nFormation. By this Agreement the Members enter into a joint venture (the "Venture").';
    expect(readContractKind(made)).toMatchObject({ kind: 'joint-venture', source: 'body' });
    const denied = 'AGREEMENT\n\nNothing in this Agreement shall create a joint venture between the parties.';
    expect(readContractKind(denied).kind).toBeUndefined();
  });

  it('reads the file name last', () => {
    const r = readContractKind(
      'AGREEMENT\n\nThe parties agree.',
      undefined,
      'uploads/KIROMIC-EX-10_23-CONSULTING_AGREEMENT.txt',
    );
    expect(r).toMatchObject({ kind: 'consulting', source: 'file-name', label: 'Consulting Agreement' });
    expect(r.at).toBeUndefined();
  });

  it('says what it looked at when nothing names a kind', () => {
    const r = readContractKind('JOINT FILING AGREEMENT\n\nThe undersigned agree.', undefined, 'filing.txt');
    expect(r.kind).toBeUndefined();
    expect(r.kinds).toEqual([]);
    expect(r.problem).toMatch(/^No kind of contract could be read: .*nor the file name/);
  });

  it('reads the body only within its window', () => {
    const late = `AGREEMENT\n\n${'x '.repeat(BODY_WINDOW)}This Franchise Agreement is binding.`;
    expect(readContractKind(late).kind).toBeUndefined();
  });

  it.each([
    ['GALACTICOMMTECHNOLOGIESINC_11_07_1997-EX-10_46-WEB_HOSTING_AGREEMENT.txt', 'hosting'],
    ['KENTUCKYUTILITIESCO_03_25_2003-EX-10_65-TRANSPORTATION_AGREEMENT.txt', 'transportation'],
    ['KIROMICBIOPHARMA_INC_05_11_2020-EX-10_23-CONSULTING_AGREEMENT.txt', 'consulting'],
    ['ZogenixInc_20190509_10-Q_EX-10_2_11663313_EX-10_2_Distributor_Agreement.txt', 'distribution'],
    [
      'ParatekPharmaceuticalsInc_20170505_10-KA_EX-10_29_10323872_EX-10_29_Outsourcing_Agreement.txt',
      'outsourcing',
    ],
    ['LohaCompanyltd_20191209_F-1_EX-10_16_11917878_EX-10_16_Supply_Agreement.txt', 'supply'],
  ])('reads %s as %s from its text alone', (file, kind) => {
    const r = readContractKind(readFileSync(join(FIXTURES, file), 'utf8'));
    expect(r).toMatchObject({ kind, source: 'title' });
  });
});
