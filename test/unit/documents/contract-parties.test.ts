import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type ContractParty,
  type PartiesReading,
  PREAMBLE_WINDOW,
  readParties,
} from '../../../lambdas/core/documents/contract-parties.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/contracts');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

/** The parties as name, defined name and side, for comparing whole readings. */
const brief = (r: PartiesReading) =>
  r.parties.map((p: ContractParty) => [p.name, p.defined ?? null, p.side] as const);

describe('readParties: the preamble shapes a contract names its parties in', () => {
  it('reads quoted definitions after a company and its description', () => {
    const r = readParties(
      'SERVICES AGREEMENT\n\nThis Services Agreement is made on 1 March 2024 between ACME Corp., a Delaware ' +
        'corporation ("ACME"), and Beta Widgets LLC, a Texas limited liability company ("Customer").\n\n' +
        'WHEREAS the Customer wishes to buy services.',
    );
    expect(brief(r)).toEqual([
      ['ACME Corp.', 'ACME', 'supplier'],
      ['Beta Widgets LLC', 'Customer', 'customer'],
    ]);
    expect(r.problem).toBeUndefined();
  });

  it('reads (the "Company") and gives a Company engaging a Consultant the customer side', () => {
    const r = readParties(
      'This Consulting Agreement is entered into by and between Kestrel Analytics, Inc., a Nevada ' +
        'corporation (the "Company"), and Orion Advisory Ltd (the "Consultant").',
    );
    expect(brief(r)).toEqual([
      ['Kestrel Analytics, Inc.', 'Company', 'customer'],
      ['Orion Advisory Ltd', 'Consultant', 'supplier'],
    ]);
  });

  it('reads curly quotes and bold markers around the defined names', () => {
    const r = readParties(
      'This Licence Agreement is made between **Northwind Software GmbH** (“**Licensor**”) and ' +
        'Contoso plc, a company registered in England (the ‘Licensee’).',
    );
    expect(brief(r)).toEqual([
      ['Northwind Software GmbH', 'Licensor', 'licensor'],
      ['Contoso plc', 'Licensee', 'licensee'],
    ]);
  });

  it('reads "hereinafter" definitions, in parentheses and out', () => {
    const r = readParties(
      'DISTRIBUTION AGREEMENT made by and between Fabrikam Industries S.A., a French company, ' +
        'hereinafter "Manufacturer", and Tailspin Trading Pte. Ltd. (hereinafter referred to as "Distributor").',
    );
    expect(brief(r)).toEqual([
      ['Fabrikam Industries S.A.', 'Manufacturer', 'supplier'],
      ['Tailspin Trading Pte. Ltd.', 'Distributor', 'distributor'],
    ]);
  });

  it('reads an unquoted "hereinafter called the Supplier"', () => {
    const r = readParties(
      'THIS AGREEMENT is made between Litware Components Limited, hereinafter called the Supplier, ' +
        'and Adventure Works Cycles Inc., hereinafter called the Purchaser.',
    );
    expect(brief(r)).toEqual([
      ['Litware Components Limited', 'Supplier', 'supplier'],
      ['Adventure Works Cycles Inc.', 'Purchaser', 'customer'],
    ]);
  });

  it('reads "each a Party and together the Parties" as the collective name, not a party', () => {
    const r = readParties(
      'This Agreement is made between Alpine Ski House AG ("Alpine") and Coho Winery, Inc. ("Coho") ' +
        '(each a "Party" and together the "Parties").\n\nRECITALS',
    );
    expect(brief(r)).toEqual([
      ['Alpine Ski House AG', 'Alpine', 'other'],
      ['Coho Winery, Inc.', 'Coho', 'other'],
    ]);
    expect(r.collective).toBe('Parties');
  });

  it('reads the collective name from the sentence after the parties', () => {
    const r = readParties(
      'This Supply Agreement is made by and between Miltenyi Biotec GmbH (hereinafter referred to as ' +
        '"Miltenyi"), and Bellicum Pharmaceuticals, Inc. ("Bellicum"). Miltenyi and Bellicum are ' +
        'sometimes referred to herein individually as a "Party" and collectively as the "Parties."',
    );
    expect(r.parties.map((p) => p.defined)).toEqual(['Miltenyi', 'Bellicum']);
    expect(r.collective).toBe('Parties');
  });

  it('reads individuals, with the address that describes them left out of the name', () => {
    const r = readParties(
      'CONSULTING AGREEMENT between Wingtip Toys Corp. ("Company") and John Smith, an individual ' +
        'residing at 12 High Street, Springfield ("Consultant").',
    );
    expect(brief(r)).toEqual([
      ['Wingtip Toys Corp.', 'Company', 'customer'],
      ['John Smith', 'Consultant', 'supplier'],
    ]);
  });

  it('reads three parties, the middle one listed with a comma only', () => {
    const r = readParties(
      'This Agreement is entered into by Quaker Chemical Corporation ("Buyer"), a Pennsylvania ' +
        'corporation, Gulf Houghton Lubricants Ltd., a company incorporated in the Cayman Islands ' +
        '("Gulf Houghton"), and GOCL Corporation Limited, a public limited company ("Gulf Oil").',
    );
    expect(brief(r)).toEqual([
      ['Quaker Chemical Corporation', 'Buyer', 'customer'],
      ['Gulf Houghton Lubricants Ltd.', 'Gulf Houghton', 'other'],
      ['GOCL Corporation Limited', 'Gulf Oil', 'other'],
    ]);
  });

  it('reads parties named after "among" on lines of their own, with roles as other names', () => {
    const text = [
      'TRANSFER AND SERVICING AGREEMENT, dated as of January 29, 2020 (this "Agreement"), among',
      'VERIZON OWNER TRUST 2020-A, a Delaware statutory trust, as issuer (the "Issuer"),',
      'VERIZON ABS LLC, a Delaware limited liability company, as depositor (the "Depositor"), and',
      'Cellco Partnership d/b/a Verizon Wireless, a Delaware general partnership ("Cellco"), as servicer',
      '(in such capacity, the "Servicer") and as custodian (in such capacity, the "Custodian").',
      '',
      'BACKGROUND',
    ].join('\n');
    const r = readParties(text);
    expect(r.parties).toEqual([
      { name: 'VERIZON OWNER TRUST 2020-A', defined: 'Issuer', side: 'other' },
      { name: 'VERIZON ABS LLC', defined: 'Depositor', side: 'other' },
      {
        name: 'Cellco Partnership d/b/a Verizon Wireless',
        defined: 'Cellco',
        aliases: ['Servicer', 'Custodian'],
        side: 'supplier',
      },
    ]);
  });

  it('reads a party with no defined name beside one with a defined name', () => {
    const r = readParties(
      'This Agreement is made between Proseware, Inc., a Washington corporation ("Proseware"), and ' +
        'Lucerne Publishing Limited, a company incorporated in Ireland.\n\n1. Definitions',
    );
    expect(brief(r)).toEqual([
      ['Proseware, Inc.', 'Proseware', 'other'],
      ['Lucerne Publishing Limited', null, 'other'],
    ]);
  });

  it('reads a cover page\'s "between A and B" when no preamble defines them', () => {
    const r = readParties(
      'INTELLECTUAL PROPERTY AGREEMENT\n\nby and between\n\nNuance Communications, Inc.\n\nand\n\nCerence Inc.\n\nDated as of September 30, 2019',
    );
    expect(brief(r)).toEqual([
      ['Nuance Communications, Inc.', null, 'other'],
      ['Cerence Inc.', null, 'other'],
    ]);
  });

  it('prefers the preamble that defines the parties to the cover page before it', () => {
    const r = readParties(
      'JOINT DEVELOPMENT AGREEMENT\n\nbetween\n\nFUELCELL ENERGY, INC.\n\nand\n\nEXXONMOBIL RESEARCH AND ' +
        'ENGINEERING COMPANY\n\nTABLE OF CONTENTS\n\nJOINT DEVELOPMENT AGREEMENT\n\nThis Agreement is made as ' +
        'of the Effective Date between:\n\nExxonMobil Research and Engineering Company, a corporation of the ' +
        'State of Delaware ("ExxonMobil"); and\n\nFuelCell Energy, Inc., a corporation of the State of ' +
        'Delaware ("FCE").\n\nExxonMobil and FCE are engaged in research.',
    );
    expect(brief(r)).toEqual([
      ['ExxonMobil Research and Engineering Company', 'ExxonMobil', 'other'],
      ['FuelCell Energy, Inc.', 'FCE', 'other'],
    ]);
  });

  it('reads the BETWEEN: … AND: … block layout, definitions on lines of their own', () => {
    const text = [
      'NON COMPETITION AGREEMENT',
      '',
      'BETWEEN:',
      '',
      'GLAMIS GOLD LTD., a company incorporated under the laws of British Columbia, having an office at',
      '310-5190 Neil Road, Reno, Nevada 89502',
      '',
      '("Glamis")',
      '',
      'AND:',
      '',
      'WESTERN COPPER CORPORATION, a company incorporated under the laws of British Columbia, having an',
      'office at 2050-1111 West Georgia Street, Vancouver. B.C. V6E 4M3',
      '',
      '("Western Copper")',
      '',
      'WHEREAS:',
    ].join('\n');
    expect(brief(readParties(text))).toEqual([
      ['GLAMIS GOLD LTD.', 'Glamis', 'other'],
      ['WESTERN COPPER CORPORATION', 'Western Copper', 'other'],
    ]);
  });

  it('reads a letter agreement whose parties are named in its opening sentence', () => {
    const r = readParties(
      'July 20, 2018\n\nDear Gianluca:\n\nKiromic, Inc, a Delaware corporation (the "Company"), is pleased ' +
        'to offer this Consulting Agreement (this "Agreement") to retain Gianluca Rotino ("Consultant") to ' +
        'perform certain consulting activities on the following terms:\n\n1. Services.',
    );
    expect(brief(r)).toEqual([
      ['Kiromic, Inc', 'Company', 'customer'],
      ['Gianluca Rotino', 'Consultant', 'supplier'],
    ]);
  });

  it('reads a party named again by the defined name it was given before "between"', () => {
    const r = readParties(
      'American Champion Media, Inc. ("ACM"), a Delaware company, is the host of a boxing event (the "Event"). ' +
        'This Sponsorship Agreement is made by and between Shun Li De Commerce & Trading Ltd ("SLD") a ' +
        'Beijing company, with headquarters at Xi Cheng District, Beijing, China (the "Sponsor") and ACM.',
    );
    expect(r.parties).toEqual([
      { name: 'Shun Li De Commerce & Trading Ltd', defined: 'SLD', aliases: ['Sponsor'], side: 'customer' },
      { name: 'American Champion Media, Inc.', defined: 'ACM', side: 'supplier' },
    ]);
  });

  it('reads parties given as labelled lines of a form', () => {
    const r = readParties(
      'SUPPLY CONTRACT\nContract No:\nThe buyer/End-User: Shenzhen Supply Chain Management Co., Ltd. ADD: Tel No.:\nThe seller: ADD:\n',
    );
    expect(brief(r)).toEqual([
      ['Shenzhen Supply Chain Management Co., Ltd.', 'Buyer', 'customer'],
      ['Seller', 'Seller', 'supplier'],
    ]);
  });

  it('says so when no sentence names the parties', () => {
    const r = readParties(
      'MAINTENANCE AGREEMENT\n\nThis Agreement provides for continued service.\n\nFees are $40 a month.',
    );
    expect(r.parties).toEqual([]);
    expect(r.sentence).toBeUndefined();
    expect(r.problem).toMatch(/^No sentence naming the parties was found/);
  });

  it('says so when only one party can be read', () => {
    const r = readParties(
      'This Agreement is made by Acme Holdings, Inc. ("Acme") for the benefit of its customers.',
    );
    expect(brief(r)).toEqual([['Acme Holdings, Inc.', 'Acme', 'other']]);
    expect(r.problem).toMatch(/^Only one party could be read \(Acme Holdings, Inc\.\)/);
  });

  it('reads only the opening of a contract: a preamble beyond it is not looked for', () => {
    const preamble = 'This Agreement is made between ACME Corp. ("ACME") and Beta LLC ("Beta").';
    expect(readParties(preamble).parties).toHaveLength(2);
    const late = `${'The parties agree to the terms below. '.repeat(Math.ceil(PREAMBLE_WINDOW / 38))}${preamble}`;
    expect(late.indexOf(preamble)).toBeGreaterThan(PREAMBLE_WINDOW);
    expect(readParties(late).problem).toMatch(/^No sentence naming the parties/);
  });

  it('gives offsets of the passage it read, holding every name', () => {
    const text =
      'PREAMBLE-FREE HEADER\n\nThis Agreement is made between ACME Corp. ("ACME") and Beta LLC ("Beta").\n\nWHEREAS x.';
    const r = readParties(text);
    const passage = text.slice(r.sentence?.start, r.sentence?.end);
    expect(passage).toContain('ACME Corp.');
    expect(passage).toContain('Beta LLC ("Beta")');
    expect(passage).not.toContain('WHEREAS');
  });
});

describe('readParties: sides', () => {
  it('leaves two plainly named parties on no side', () => {
    const r = readParties(
      'This Agreement is made between Anixa Biosciences, Inc. ("Anixa") and OntoChem GmbH ("OntoChem").',
    );
    expect(r.parties.map((p) => p.side)).toEqual(['other', 'other']);
  });

  it('reads roles from the defined name: franchise, disclosure, employment', () => {
    const sides = (a: string, b: string) =>
      readParties(`This Agreement is made between Alpha Inc. ("${a}") and Beta LLC ("${b}").`).parties.map(
        (p) => p.side,
      );
    expect(sides('Franchisor', 'Franchisee')).toEqual(['franchisor', 'franchisee']);
    expect(sides('Disclosing Party', 'Receiving Party')).toEqual(['discloser', 'recipient']);
    expect(sides('Employer', 'Executive')).toEqual(['employer', 'employee']);
    expect(sides('Company', 'Reseller')).toEqual(['supplier', 'distributor']);
    expect(sides('Company', 'Licensor')).toEqual(['licensee', 'licensor']);
  });
});

describe('readParties on real contracts (test/fixtures/contracts, CUAD)', () => {
  it.each([
    [
      'KIROMICBIOPHARMA_INC_05_11_2020-EX-10_23-CONSULTING_AGREEMENT.txt',
      [
        ['Kiromic, Inc', 'Company', 'customer'],
        ['Gianluca Rotino', 'Consultant', 'supplier'],
      ],
    ],
    [
      'ZogenixInc_20190509_10-Q_EX-10_2_11663313_EX-10_2_Distributor_Agreement.txt',
      [
        ['ZOGENIX, INC.', 'Zogenix', 'supplier'],
        ['Nippon Shinyaku Company, Ltd.', 'Distributor', 'distributor'],
      ],
    ],
    [
      'ParatekPharmaceuticalsInc_20170505_10-KA_EX-10_29_10323872_EX-10_29_Outsourcing_Agreement.txt',
      [
        ['Paratek Pharmaceuticals, Inc.', 'Customer', 'customer'],
        ['CARBOGEN AMCIS AG', 'Supplier', 'supplier'],
      ],
    ],
    [
      'KENTUCKYUTILITIESCO_03_25_2003-EX-10_65-TRANSPORTATION_AGREEMENT.txt',
      [
        ['TENNESSEE GAS PIPELINE COMPANY', 'Transporter', 'supplier'],
        ['LOUISVILLE GAS AND ELECTRIC COMPANY', 'Shipper', 'customer'],
      ],
    ],
    [
      'GALACTICOMMTECHNOLOGIESINC_11_07_1997-EX-10_46-WEB_HOSTING_AGREEMENT.txt',
      [
        ['Galacticomm', null, 'other'],
        ['Horst Entertainment Inc.', null, 'other'],
      ],
    ],
    [
      'VerizonAbsLlc_20200123_8-K_EX-10_4_11952335_EX-10_4_Service_Agreement.txt',
      [
        ['VERIZON OWNER TRUST 2020-A', 'Issuer', 'other'],
        ['VERIZON ABS LLC', 'Depositor', 'other'],
        ['Cellco Partnership d/b/a Verizon Wireless', 'Cellco', 'supplier'],
      ],
    ],
  ] as const)('%s', (file, expected) => {
    expect(brief(readParties(fixture(file)))).toEqual(expected);
  });

  it('reads the PDF-extracted spacing of a CUAD text as the same names', () => {
    const raw = fixture('BELLICUMPHARMACEUTICALS_INC_05_07_2019-EX-10_1-Supply_Agreement.txt');
    const spaced = raw.replace(/ /g, '  ').replace(/\n/g, ' \n ');
    expect(brief(readParties(spaced))).toEqual(brief(readParties(raw)));
    expect(brief(readParties(raw))).toEqual([
      ['Miltenyi Biotec GmbH', 'Miltenyi', 'other'],
      ['Bellicum Pharmaceuticals, Inc.', 'Bellicum', 'other'],
    ]);
  });
});
