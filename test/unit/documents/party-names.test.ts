import { describe, expect, it } from 'vitest';
import { collectiveIn } from '../../../lambdas/core/documents/party-list.js';
import {
  describesOnly,
  leadingName,
  looksLikeParty,
  trailingName,
} from '../../../lambdas/core/documents/party-names.js';
import { PARTY_SIDES, sideOfName, sidesOf } from '../../../lambdas/core/documents/party-sides.js';
import {
  cleanTerm,
  isCollectiveTerm,
  marksIn,
  parentheses,
  quotedTerms,
} from '../../../lambdas/core/documents/term-marks.js';

describe('term marks', () => {
  it('cleans a quoted term of markers, trailing punctuation and a leading "the"', () => {
    expect(cleanTerm('**Licensee**')).toBe('Licensee');
    expect(cleanTerm('Client,')).toBe('Client');
    expect(cleanTerm('the  Event')).toBe('Event');
    expect(cleanTerm('***')).toBeUndefined();
    expect(cleanTerm('a b c d e f g h i j k')).toBeUndefined();
  });

  it('finds straight, curly and single-quoted terms with their offsets, not apostrophes', () => {
    const text = "A (\"Alpha\"), B (“Beta”), C (‘Gamma’), D ('Delta') and the Buyer's goods.";
    const found = quotedTerms(text, 0, text.length);
    expect(found.map((f) => f.term)).toEqual(['Alpha', 'Beta', 'Gamma', 'Delta']);
    for (const f of found) expect(text.slice(f.at, f.at + f.term.length)).toBe(f.term);
  });

  it('finds the top-level parentheses, full-width ones too, and drops a stray bracket', () => {
    const text = `a (b (c) d) e （f） g (${'x'.repeat(500)}) h`;
    expect(parentheses(text, 0, text.length).map((p) => text.slice(p.start, p.end))).toEqual([
      '(b (c) d)',
      '（f）',
    ]);
  });

  it('tells a name from another name, a group and the parties together', () => {
    const text =
      'X ("SFDC" or "Salesforce"), Y ("Gulf Oil" and, together with Z, the "Sellers"), ' +
      '(each a "Party" and together the "Parties"), W (the COMPANY), V, hereinafter called the Supplier, and';
    const marks = marksIn(text, 0, text.length).map((m) => m.terms.map((t) => `${t.term}:${t.role}`));
    expect(marks).toEqual([
      ['SFDC:name', 'Salesforce:alias'],
      ['Gulf Oil:name', 'Sellers:group'],
      ['Party:collective', 'Parties:collective'],
      ['COMPANY:name'],
      ['Supplier:name'],
    ]);
  });

  it('knows the collective terms', () => {
    expect(isCollectiveTerm('Parties')).toBe(true);
    expect(isCollectiveTerm('members')).toBe(true);
    expect(isCollectiveTerm('Company')).toBe(false);
  });

  it("reads the parties' collective name in or after a passage", () => {
    const text = 'ACME ("ACME") and Beta ("Beta") are each a "Party" and together the "Parties".';
    expect(collectiveIn(text, 0, text.length)).toBe('Parties');
    expect(collectiveIn('ACME ("ACME") and Beta ("Beta").', 0, 30)).toBeUndefined();
  });
});

describe('party names', () => {
  it('reads the name a span starts with, up to the description', () => {
    expect(leadingName('Kiromic, Inc, a Delaware corporation')).toBe('Kiromic, Inc');
    expect(leadingName('CHONGQING ZONGSHEN AUTOMOBILE INDUSTRY CO., LTD., a company organized')).toBe(
      'CHONGQING ZONGSHEN AUTOMOBILE INDUSTRY CO., LTD.',
    );
    expect(leadingName(' and the TOWN OF VINTON, VIRGINIA, a Virginia municipal corporation')).toBe(
      'TOWN OF VINTON',
    );
    expect(leadingName('BorrowMoney.com, inc of 512 Bayshore DR')).toBe('BorrowMoney.com, inc');
    expect(leadingName('The Right Solution, a Nevada Corporation')).toBe('The Right Solution');
    expect(leadingName('Bruce Jenner, Individual')).toBe('Bruce Jenner');
    expect(leadingName('ACM.')).toBe('ACM');
    expect(leadingName('ADD: Tel No.')).toBeUndefined();
    expect(leadingName('a company incorporated in Florida')).toBeUndefined();
  });

  it('reads the name a span ends with, before a description after it', () => {
    expect(
      trailingName(', agrees to sell through Compass Point Research & Trading, LLC, acting as agent'),
    ).toBe('Compass Point Research & Trading, LLC');
    expect(trailingName('is pleased to retain Gianluca Rotino ')).toBe('Gianluca Rotino');
    expect(trailingName('Bluerock Residential Growth REIT, Inc., a Maryland corporation ')).toBe(
      'Bluerock Residential Growth REIT, Inc.',
    );
    expect(trailingName('to take place at the stadium ')).toBeUndefined();
  });

  it('tells a company or person from other capitalised words', () => {
    expect(looksLikeParty('Gulf Houghton Lubricants Ltd.')).toBe(true);
    expect(looksLikeParty('John Smith', ', an individual residing at 12 High Street')).toBe(true);
    expect(looksLikeParty('San Jose', ', CA 95126')).toBe(false);
    expect(describesOnly('Delaware corporation having an address at')).toBe(true);
    expect(describesOnly('Beta Widgets LLC, a Texas company')).toBe(false);
  });
});

describe('party sides', () => {
  it("reads a side from a defined name's last words, case and number aside", () => {
    expect(sideOfName('Service Provider')).toBe('supplier');
    expect(sideOfName('RECEIVING PARTY')).toBe('recipient');
    expect(sideOfName('Sub-Licensee')).toBe('licensee');
    expect(sideOfName('Members')).toBe('partner');
    expect(sideOfName('Company')).toBeUndefined();
  });

  it('places one plainly named party opposite one clear role, and no other', () => {
    expect(
      sidesOf([
        { name: 'Kiromic', defined: 'Company' },
        { name: 'G. Rotino', defined: 'Consultant' },
      ]),
    ).toEqual(['customer', 'supplier']);
    expect(sidesOf([{ name: 'Zogenix' }, { name: 'Nippon', defined: 'Distributor' }])).toEqual([
      'supplier',
      'distributor',
    ]);
    expect(sidesOf([{ name: 'A' }, { name: 'B' }, { name: 'C', defined: 'Franchisee' }])).toEqual([
      'other',
      'other',
      'franchisee',
    ]);
    expect(sidesOf([{ name: 'Cellco', defined: 'Cellco', aliases: ['Servicer'] }])).toEqual(['supplier']);
    expect(PARTY_SIDES).toHaveLength(13);
  });
});
