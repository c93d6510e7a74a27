import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CATEGORY_IDS } from '../../../lambdas/core/analysts/categories.js';
import {
  canonicalJson,
  isPlaybookError,
  isPlaybookInvalidError,
  isPlaybookRefError,
  MAX_PLAYBOOK_BYTES,
  MAX_PLAYBOOK_SOURCE_BYTES,
  MAX_POSITIONS,
  type PlaybookInvalidError,
  type PlaybookIssue,
  parsePlaybook,
  parsePlaybookRequest,
  playbookRequestText,
  sha256Hex,
  topicsFor,
  withHash,
} from '../../../lambdas/core/playbooks/index.js';

/** A small valid playbook; the tests below break it one line at a time. */
const VALID = `name: small
title: A small playbook
party: customer
contractTypes: [services, licence]
positions:
  - topic: non-renewal-notice
    category: term-renewal
    question: Can we stop a renewal with 30 days' notice?
    importance: high
    measure:
      quantity: notice to stop a renewal
      unit: days
      direction: at-most
    standard:
      position: Thirty days.
      language: Notice of thirty (30) days stops the renewal.
      threshold: 30
    fallbacks:
      - position: Sixty days.
        language: Notice of sixty (60) days stops the renewal.
        threshold: 60
        approver: commercial-approvers
  - topic: liability-cap
    category: liability
    question: Is liability capped at twice the annual fees?
    importance: high
    contractTypes: [services]
    measure:
      quantity: cap as a multiple of annual fees
      unit: multiple-of-fees
      direction: at-least
    standard:
      position: Twice the fees.
      language: Liability is limited to 200% of the annual fees.
      threshold: 2
    notAcceptable:
      - No cap at all.
requiredClauses:
  - topic: liability-cap
    category: liability
    question: Does the contract limit liability?
    importance: high
    language: Each party's liability is limited to 200% of the annual fees.
    placement:
      after: warranty-insurance
      note: After the warranties.
`;

/** The problems `source` is refused for. */
function issuesOf(source: string): readonly PlaybookIssue[] {
  try {
    parsePlaybook(source, 'small.yaml');
  } catch (error) {
    if (isPlaybookInvalidError(error)) return error.issues;
    throw error;
  }
  throw new Error('expected the playbook to be refused');
}

/** `VALID` with one piece of text replaced (which must be there). */
function broken(find: string, replace: string): string {
  expect(VALID).toContain(find);
  return VALID.replace(find, replace);
}

describe('a valid playbook file', () => {
  it('parses with defaults filled and text trimmed', () => {
    const { playbook } = parsePlaybook(VALID, 'small.yaml');
    expect(playbook.name).toBe('small');
    expect(playbook.positions.map((p) => p.topic)).toEqual(['non-renewal-notice', 'liability-cap']);
    expect(playbook.positions[1]?.fallbacks).toEqual([]);
    expect(playbook.positions[0]?.notAcceptable).toEqual([]);
    expect(playbook.positions[0]?.fallbacks[0]?.approver).toBe('commercial-approvers');
    expect(playbook.requiredClauses[0]?.placement).toEqual({
      after: 'warranty-insurance',
      note: 'After the warranties.',
    });
  });

  it('hashes its content, not its layout: JSON, reordered keys, comments and block text hash alike', () => {
    const { playbook, canonical, sha256 } = parsePlaybook(VALID);
    expect(sha256).toBe(sha256Hex(canonical));
    expect(canonical).toBe(canonicalJson(playbook));
    const asJson = parsePlaybook(JSON.stringify(playbook, null, '\t'), 'small.json');
    expect(asJson.sha256).toBe(sha256);
    const reordered = parsePlaybook(
      stringify(playbook, { sortMapEntries: (a, b) => (String(a.key) < String(b.key) ? 1 : -1) }),
    );
    expect(reordered.sha256).toBe(sha256);
    const commented = `# our positions\n${VALID.replace(
      'language: Notice of thirty (30) days stops the renewal.',
      'language: |\n        Notice of thirty (30) days stops the renewal.\n',
    )}`;
    expect(parsePlaybook(commented).sha256).toBe(sha256);
    // A `$schema` for editors is not content.
    expect(parsePlaybook(`$schema: ../docs/playbook.schema.json\n${VALID}`).sha256).toBe(sha256);
    // A changed word is.
    expect(parsePlaybook(VALID.replace('Sixty days.', 'Sixty days!')).sha256).not.toBe(sha256);
  });

  it('says which topics apply to a contract type', () => {
    const { playbook } = parsePlaybook(VALID);
    const licence = topicsFor(playbook, 'licence');
    expect(licence.positions.map((p) => p.topic)).toEqual(['non-renewal-notice']);
    expect(licence.requiredClauses.map((r) => r.topic)).toEqual(['liability-cap']);
    expect(topicsFor(playbook, 'services').positions).toHaveLength(2);
  });
});

describe('an invalid playbook file is refused naming the field, the line and the column', () => {
  it('an unknown risk category', () => {
    const issues = issuesOf(
      broken('category: liability\n    question: Is', 'category: liabilty\n    question: Is'),
    );
    expect(issues).toEqual([
      {
        path: 'positions[1].category',
        line: 24,
        column: 15,
        message: expect.stringContaining(
          `unknown risk category "liabilty"; one of: ${CATEGORY_IDS.join(', ')}`,
        ),
      },
    ]);
  });

  it('four fallbacks: the fourth is pointed at', () => {
    const fallback = (n: number) =>
      `      - position: Fallback ${n}.\n        language: Text ${n}.\n        threshold: ${60 + n}\n`;
    const source = broken(
      '        approver: commercial-approvers\n',
      `        approver: commercial-approvers\n${[1, 2, 3].map(fallback).join('')}`,
    );
    const [issue, ...more] = issuesOf(source);
    expect(more).toEqual([]);
    expect(issue?.path).toBe('positions[0].fallbacks');
    expect(issue?.message).toBe('at most 3 fallbacks, in order of preference');
    // Line 29 holds the fourth fallback's `- position:`.
    expect(source.split('\n')[28]).toBe('      - position: Fallback 3.');
    expect([issue?.line, issue?.column]).toEqual([29, 9]);
  });

  it('a threshold that is not a number, is negative, or is past its unit', () => {
    expect(issuesOf(broken('threshold: 60', 'threshold: sixty'))).toEqual([
      {
        path: 'positions[0].fallbacks[0].threshold',
        line: 21,
        column: 20,
        message: 'must be a number; got "sixty"',
      },
    ]);
    expect(issuesOf(broken('threshold: 2\n', 'threshold: -2\n'))).toEqual([
      { path: 'positions[1].standard.threshold', line: 35, column: 18, message: 'must not be negative' },
    ]);
    expect(issuesOf(broken('threshold: 60', 'threshold: 4000'))[0]?.message).toBe(
      'must be at most 3650 days; got 4000',
    );
    expect(issuesOf(broken('threshold: 60', 'threshold: .inf'))[0]?.path).toBe(
      'positions[0].fallbacks[0].threshold',
    );
  });

  it('a YAML syntax error, at its line', () => {
    const [issue] = issuesOf(
      broken('importance: high\n    contractTypes', 'importance: [high\n    contractTypes'),
    );
    expect(issue?.path).toBe('');
    // Where the parser finds the sequence unclosed: the line after the `[`.
    expect(issue?.line).toBe(27);
    expect(issue?.message).toMatch(/\(BAD_INDENT|UNEXPECTED|MISSING/);
  });

  it('a duplicate topic, and a duplicate key', () => {
    expect(
      issuesOf(
        broken(
          'topic: liability-cap\n    category: liability\n    question: Is',
          'topic: non-renewal-notice\n    category: liability\n    question: Is',
        ),
      ),
    ).toEqual([
      {
        path: 'positions[1].topic',
        line: 23,
        column: 12,
        message: "duplicate topic 'non-renewal-notice' (also positions[0])",
      },
    ]);
    const [issue] = issuesOf(broken('party: customer\n', 'party: customer\nparty: supplier\n'));
    expect([issue?.line, issue?.column]).toEqual([4, 1]);
    expect(issue?.message).toMatch(/unique.*DUPLICATE_KEY/);
  });

  it('thresholds out of order, a threshold without a measure, a contract type the playbook lacks', () => {
    expect(issuesOf(broken('threshold: 60', 'threshold: 20'))[0]).toMatchObject({
      path: 'positions[0].fallbacks[0].threshold',
      message:
        "fallbacks go from most to least favourable: 20 is better than the standard's 30 for a measure 'at-most'",
    });
    expect(
      issuesOf(
        broken(
          '    measure:\n      quantity: cap as a multiple of annual fees\n      unit: multiple-of-fees\n      direction: at-least\n',
          '',
        ),
      )[0],
    ).toMatchObject({
      path: 'positions[1].standard.threshold',
      message: expect.stringContaining('needs a measure'),
    });
    expect(issuesOf(broken('contractTypes: [services]', 'contractTypes: [supply]'))).toEqual([
      {
        path: 'positions[1].contractTypes[0]',
        line: 27,
        column: 21,
        message: "'supply' is not one of the playbook's contract types (services, licence)",
      },
    ]);
    expect(issuesOf(broken('unit: days', 'unit: money'))[0]).toMatchObject({
      path: 'positions[0].measure.currency',
      message: "a 'money' measure needs a currency",
    });
  });

  it('a missing field, an unknown one, a version, and a question that is not one', () => {
    expect(
      issuesOf(
        broken(
          '    importance: high\n    measure:\n      quantity: notice',
          '    measure:\n      quantity: notice',
        ),
      ),
    ).toEqual([{ path: 'positions[0].importance', line: 6, column: 5, message: 'is required' }]);
    expect(issuesOf(broken('party: customer', 'party: customer\nowner: legal'))).toEqual([
      { path: 'owner', line: 4, column: 1, message: "unknown field 'owner'" },
    ]);
    expect(issuesOf(broken('party: customer', 'version: 2\nparty: customer'))[0]?.message).toMatch(
      /versions are assigned by `clause-review playbook put`/,
    );
    expect(issuesOf(broken("with 30 days' notice?", "with 30 days' notice."))[0]).toMatchObject({
      path: 'positions[0].question',
      message: 'must be a yes/no question ending with "?"',
    });
  });

  it('a playbook too large to be stored as one item, however it is written', () => {
    const { playbook } = parsePlaybook(VALID);
    const [first] = playbook.positions;
    if (!first) throw new Error('no position');
    const positions = Array.from({ length: MAX_POSITIONS }, (_, i) => ({
      ...first,
      topic: `topic-${i}`,
      standard: { ...first.standard, language: 'x'.repeat(1100) },
    }));
    let caught: unknown;
    try {
      withHash({ ...playbook, positions }, 'big.json');
    } catch (error) {
      caught = error;
    }
    expect(isPlaybookInvalidError(caught)).toBe(true);
    expect((caught as Error).message).toMatch(
      new RegExp(
        `^big\\.json is not a valid playbook \\(1 problem\\):\\n {2}big\\.json: the playbook is \\d+ bytes as canonical JSON; at most ${MAX_PLAYBOOK_BYTES}$`,
      ),
    );
    expect(withHash(playbook).canonical).toBe(canonicalJson(playbook));
  });

  it('a file too large to be a playbook, before it is parsed', () => {
    const issues = issuesOf(`${VALID}# ${'x'.repeat(MAX_PLAYBOOK_SOURCE_BYTES)}\n`);
    expect(issues[0]?.message).toMatch(/a playbook file has at most 524288/);
  });

  it('lists every problem in its message, each as file:line:column: path: message', () => {
    try {
      parsePlaybook(
        broken('category: term-renewal', 'category: renewal').replace(
          'importance: high',
          'importance: urgent',
        ),
        'small.yaml',
      );
      expect.unreachable();
    } catch (error) {
      expect(isPlaybookError(error)).toBe(true);
      expect((error as PlaybookInvalidError).message.split('\n')).toEqual([
        'small.yaml is not a valid playbook (2 problems):',
        expect.stringMatching(
          /^ {2}small\.yaml:7:15: positions\[0\]\.category: unknown risk category "renewal"/,
        ),
        expect.stringMatching(/^ {2}small\.yaml:9:17: positions\[0\]\.importance: /),
      ]);
    }
  });
});

describe('canonical JSON', () => {
  it('sorts keys at every depth, drops undefined and keeps array order', () => {
    expect(canonicalJson({ b: [3, { z: 1, a: 'é' }], a: undefined, c: null, d: 1.5 })).toBe(
      '{"b":[3,{"a":"é","z":1}],"c":null,"d":1.5}',
    );
  });

  it('refuses what JSON cannot hold', () => {
    expect(() => canonicalJson({ x: Number.POSITIVE_INFINITY })).toThrow(/Infinity has no JSON form/);
    expect(() => canonicalJson({ x: 1n })).toThrow(/bigint has no JSON form/);
  });
});

describe('a playbook named in a request', () => {
  it('is NAME or NAME@VERSION', () => {
    expect(parsePlaybookRequest('default')).toEqual({ name: 'default' });
    expect(parsePlaybookRequest(' nda@12 ')).toEqual({ name: 'nda', version: 12 });
    expect(playbookRequestText({ name: 'nda', version: 12 })).toBe('nda@12');
    expect(playbookRequestText({ name: 'nda' })).toBe('nda');
  });

  it('refuses anything else, naming what was given', () => {
    for (const bad of ['', 'Default', 'default@0', 'default@x', 'a@1@2', 'de fault', `${'a'.repeat(65)}`]) {
      let caught: unknown;
      try {
        parsePlaybookRequest(bad);
      } catch (error) {
        caught = error;
      }
      expect(isPlaybookRefError(caught), bad).toBe(true);
      expect((caught as Error).message).toContain(`'${bad}' does not name a playbook`);
    }
  });
});
