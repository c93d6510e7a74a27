import type { ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import {
  ANALYSTS,
  type AnalystDefinition,
  buildConverseInput,
  type PositionAnswer,
  parseAnswer,
  withPositions,
} from '../../../lambdas/core/analysts/index.js';
import type { Clause } from '../../../lambdas/core/clause.js';
import { PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import { type Playbook, positionBriefs, shippedPlaybooks } from '../../../lambdas/core/playbooks/index.js';
import { applyEdits } from '../../../lambdas/core/report-docx/index.js';
import { wordsValue } from '../../../lambdas/text/number-words.js';
import { analyze } from '../../../localstack/bedrock/heuristic-analyst.js';
import type { AnalystRequest, OfflineAnalystName } from '../../../localstack/bedrock/heuristic-types.js';
import { mentions, writeQuantity } from '../../../localstack/bedrock/playbook-measure.js';

const DEFAULT = shippedPlaybooks().find((p) => p.playbook.name === 'default')?.playbook as Playbook;
const panel = withPositions(ANALYSTS, {
  party: DEFAULT.party,
  positions: positionBriefs(DEFAULT, undefined),
});
const analyst = (id: string) => panel.find((a) => a.id === id) as AnalystDefinition;

/** The stand-in's answer for `text`, through the real request builder and answer validation. */
function judge(
  analystId: string,
  topic: string,
  text: string,
  offline: OfflineAnalystName = 'learned',
): { position?: PositionAnswer; clause: Clause } {
  const clause: Clause = { index: 0, id: 'c0001', start: 500, end: 500 + text.length, text };
  const a = analyst(analystId);
  const request = buildConverseInput(a, clause, { modelId: PRIMARY_MODEL_ID });
  const reply = analyze(request as AnalystRequest, { analyst: offline, annotate: false });
  const output = {
    output: {
      message: {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 't', name: reply.tool?.name, input: reply.tool?.input } }],
      },
    },
    stopReason: 'tool_use',
  } as ConverseCommandOutput;
  const parsed = parseAnswer(a, clause, output);
  return { position: parsed.positions?.find((p) => p.topic === topic), clause };
}

const renewal = (notice: string) =>
  'This Agreement shall automatically renew for successive one (1) year terms unless either party gives ' +
  `written notice of non-renewal at least ${notice} prior to the end of the then-current term.`;

const cap = (who: string, amount: string) =>
  `IN NO EVENT SHALL ${who} TOTAL AGGREGATE LIABILITY ARISING OUT OF OR IN CONNECTION WITH THIS AGREEMENT ` +
  `EXCEED ${amount} PAID OR PAYABLE UNDER THIS AGREEMENT IN THE TWELVE (12) MONTHS BEFORE THE CLAIM.`;

const rungOf = (p: PositionAnswer | undefined) =>
  p ? (p.rung === 'fallback' ? `fallback-${p.fallback}` : p.rung) : 'not-addressed';

describe('the stand-in judges a playbook’s positions from the clause’s words and numbers', () => {
  it.each([
    ['thirty (30) days', 'standard', 30],
    ['sixty (60) days', 'fallback-1', 60],
    ['seventy-five (75) days', 'fallback-2', 75],
    ['three (3) months', 'fallback-2', 90],
    ['one hundred and twenty (120) days', 'not-acceptable', 120],
  ])('a non-renewal notice of %s reaches %s', (notice, rung, measured) => {
    for (const offline of ['learned', 'heuristic'] as const) {
      const { position } = judge('term-lifecycle', 'non-renewal-notice', renewal(notice), offline);
      expect(rungOf(position), offline).toBe(rung);
      expect(position?.measured).toBe(measured);
      expect(position?.quotes[0]?.quote).toContain(notice);
    }
  });

  it.each([
    ["EACH PARTY'S", 'TWO HUNDRED PER CENT (200%) OF THE CHARGES', 'standard', 2],
    ["EACH PARTY'S", 'ONE HUNDRED AND FIFTY PER CENT (150%) OF THE CHARGES', 'fallback-1', 1.5],
    ["EACH PARTY'S", 'THE CHARGES', 'fallback-2', 1],
    // A cap that binds one party only is a rung down from what its number reaches.
    ["SUPPLIER'S", 'TWO HUNDRED PER CENT (200%) OF THE CHARGES', 'fallback-1', 2],
  ])('a liability cap of %s %s reaches %s', (who, amount, rung, measured) => {
    const { position } = judge('liability-counsel', 'limitation-of-liability', cap(who, amount));
    expect(rungOf(position)).toBe(rung);
    expect(position?.measured).toBe(measured);
  });

  it('finds a cap of a fixed sum below every rung of a cap measured in the fees', () => {
    const text =
      "IN NO EVENT SHALL EACH PARTY'S TOTAL AGGREGATE LIABILITY UNDER THIS AGREEMENT EXCEED FIFTY THOUSAND DOLLARS ($50,000).";
    const { position } = judge('liability-counsel', 'limitation-of-liability', text);
    expect(rungOf(position)).toBe('not-acceptable');
    expect(position?.measured).toBeUndefined();
    expect(position?.reason).toMatch(/fixed sum/);
  });

  it('finds no topic in a clause that does not deal with it', () => {
    const text = 'This Agreement is governed by the laws of the State of New York.';
    expect(judge('term-lifecycle', 'non-renewal-notice', text).position).toBeUndefined();
    expect(judge('liability-counsel', 'limitation-of-liability', text).position).toBeUndefined();
  });

  it('reads a measured topic below every rung only from words that say there is none, not from a list widened by habit', () => {
    const widened =
      'Such minimum pressure obligation is subject to the GT&C including, but not limited to, Article X; the ' +
      'charges under this Agreement are those of Rate Schedule FT-A, including without limitation its surcharges.';
    expect(judge('commercial-terms', 'price-increases', widened).position).toBeUndefined();
    const none = 'The Supplier may increase its prices at any time without notice.';
    expect(rungOf(judge('commercial-terms', 'price-increases', none).position)).toBe('not-acceptable');
  });

  it('proposes a redline at real offsets of the clause, which brings the clause to the standard', () => {
    for (const [id, topic, text] of [
      ['term-lifecycle', 'non-renewal-notice', renewal('ninety (90) days')],
      ['term-lifecycle', 'non-renewal-notice', renewal('3 months')],
      ['liability-counsel', 'limitation-of-liability', cap("EACH PARTY'S", 'THE CHARGES')],
      [
        'liability-counsel',
        'limitation-of-liability',
        cap("EACH PARTY'S", 'FIFTY PER CENT (50%) OF THE CHARGES'),
      ],
    ] as const) {
      const { position, clause } = judge(id, topic, text);
      const redline = position?.redline;
      expect(redline, text).toBeDefined();
      expect(redline?.target).toEqual({ rung: 'standard' });
      for (const e of redline?.edits ?? []) {
        expect(e.start).toBeGreaterThanOrEqual(0);
        expect(e.end).toBeLessThanOrEqual(clause.text.length);
      }
      const edited = applyEdits(clause.text, redline?.edits ?? []);
      expect(edited).not.toBe(clause.text);
      // The edited clause, judged again, meets the standard.
      expect(rungOf(judge(id, topic, edited).position), edited).toBe('standard');
    }
  });

  it('writes the new number as the clause wrote its own', () => {
    const { position, clause } = judge('term-lifecycle', 'non-renewal-notice', renewal('ninety (90) days'));
    const edit = position?.redline?.edits[0];
    expect(clause.text.slice(edit?.start, edit?.end)).toBe('ninety (90)');
    expect(edit?.insert).toBe('thirty (30)');
    const upper = judge('liability-counsel', 'limitation-of-liability', cap("EACH PARTY'S", 'THE CHARGES'));
    expect(upper.position?.redline?.edits[0]?.insert).toBe(
      upper.position?.redline?.edits[0]?.insert.toUpperCase(),
    );
  });

  it('makes a one-sided term mutual in the clause’s own words where the standard binds both parties', () => {
    const text =
      'Supplier shall not be liable for any indirect or consequential loss, including loss of profits. Customer shall pay all invoices within ten days.';
    const { position, clause } = judge('liability-counsel', 'consequential-loss', text);
    expect(rungOf(position)).toBe('not-acceptable');
    expect(position?.redline?.edits).toEqual([{ start: 0, end: 18, insert: 'Neither party shall' }]);
    expect(applyEdits(clause.text, position?.redline?.edits ?? [])).toMatch(
      /^Neither party shall be liable for any indirect or consequential loss/,
    );
  });

  it('leaves one-sided a term the other party’s failure triggers, and does not capitalise mid-sentence', () => {
    const triggered =
      'Without prejudice to any other remedy, Supplier shall not be liable for any indirect or consequential loss, including loss of profits, if Customer fails to pay on time.';
    const { position } = judge('liability-counsel', 'consequential-loss', triggered);
    expect(position?.redline?.edits ?? []).not.toContainEqual(
      expect.objectContaining({ insert: expect.stringMatching(/party shall/i) }),
    );
    // The trigger before the subject: the other side's breach gives us the right, not both.
    const before =
      'If Supplier fails to cure a material breach within thirty (30) days after written notice, Customer shall not be liable for any indirect or consequential loss.';
    expect(
      judge('liability-counsel', 'consequential-loss', before).position?.redline?.edits ?? [],
    ).not.toContainEqual(expect.objectContaining({ insert: expect.stringMatching(/party shall/i) }));
    const mid =
      'Without prejudice to any other remedy, Supplier shall not be liable for any indirect or consequential loss, including loss of profits.';
    const after = judge('liability-counsel', 'consequential-loss', mid);
    expect(after.position?.redline?.edits).toEqual([{ start: 39, end: 57, insert: 'neither party shall' }]);
  });

  it('tempers a sole discretion in place, and names the parties as the request gives them', () => {
    const named = withPositions(ANALYSTS, {
      party: DEFAULT.party,
      positions: positionBriefs(DEFAULT, undefined),
      names: { us: 'Franchisee', them: 'Franchisor' },
    });
    const a = named.find((x) => x.id === 'term-lifecycle') as AnalystDefinition;
    const text =
      'Franchisor may terminate this Agreement in its sole discretion and without notice to Franchisee. This Agreement renews each year.';
    const clause: Clause = { index: 0, id: 'c0001', start: 0, end: text.length, text };
    const request = buildConverseInput(a, clause, { modelId: PRIMARY_MODEL_ID });
    expect(JSON.stringify(request.system)).toContain(
      "acts for: Franchisee (the customer's side); the other party is Franchisor.",
    );
    const reply = analyze(request as AnalystRequest, { analyst: 'learned', annotate: false });
    const input = reply.tool?.input as { positions?: Record<string, { redline: unknown }> } | undefined;
    const redlines = Object.values(input?.positions ?? {})
      .map((p) => p.redline)
      .filter(Boolean);
    expect(redlines.length).toBeGreaterThan(0);
    const inserted = JSON.stringify(redlines);
    // The discretion tempered in place, and no role word of the playbook's in anything inserted.
    expect(inserted).toContain('"insert":"reasonable discretion"');
    expect(inserted).not.toMatch(/\b(Customer|Supplier)\b/);
  });

  it('adds one sentence of the standard’s language after the topic’s sentence when no smaller edit reaches it', () => {
    const text =
      'The liability of the Supplier arising out of or in connection with this Agreement is not limited. Invoices are payable monthly.';
    const { position, clause } = judge('liability-counsel', 'limitation-of-liability', text);
    expect(rungOf(position)).toBe('not-acceptable');
    const edit = position?.redline?.edits[0];
    expect(edit?.start).toBe(edit?.end);
    const language =
      DEFAULT.positions.find((p) => p.topic === 'limitation-of-liability')?.standard.language ?? '';
    // A sentence of it (this standard's language is one), after the sentence on liability.
    expect(language).toContain(edit?.insert.trim() ?? 'missing');
    expect(clause.text.slice(0, edit?.start)).toMatch(/is not limited\.$/);
  });
});

describe('numbers in clause text', () => {
  it('reads periods, percentages, multiples and sums with their offsets and style', () => {
    const text = 'within thirty (30) days, a sixty-day notice, 12 months, twice the fees, 150% and $500,000';
    const found = mentions(text).map((m) => [text.slice(m.start, m.end), m.value, m.unit, m.style]);
    expect(found).toEqual([
      ['thirty (30) days', 30, 'day', 'words-and-digits'],
      ['sixty-day', 60, 'day', 'words'],
      ['12 months', 12, 'month', 'digits'],
      ['twice', 2, 'times', 'words'],
      ['150%', 150, 'percent', 'digits'],
      ['$500,000', 500000, 'money', 'digits'],
    ]);
    expect(wordsValue('one hundred and twenty')).toBe(120);
    expect(wordsValue('thirty-six')).toBe(36);
    expect(writeQuantity(24, 'months')).toBe('twenty-four (24) months');
    expect(writeQuantity(1, 'years', 'digits')).toBe('1 year');
  });
});

describe('the stand-in reads one-sided wording below every rung', () => {
  const breach = (how: string) =>
    `Either party may terminate this Agreement with immediate effect by written notice if the other party commits a material breach ${how}.`;

  it('judges a termination for breach the other side made discretionary and unannounced not acceptable, naming the words', () => {
    for (const offline of ['learned', 'heuristic'] as const) {
      const was = judge(
        'term-lifecycle',
        'termination-for-breach',
        breach('that is not remedied within thirty (30) days of written notice describing it'),
        offline,
      );
      const now = judge(
        'term-lifecycle',
        'termination-for-breach',
        breach('as that party determines in its sole discretion and without notice'),
        offline,
      );
      expect(rungOf(was.position), offline).not.toBe('not-acceptable');
      expect(rungOf(now.position), offline).toBe('not-acceptable');
      expect(now.position?.reason, offline).toContain('"sole discretion"');
    }
  });

  it('reads nothing one-sided where a rung of the position allows such words itself', async () => {
    const { oneSidedWords } = await import('../../../localstack/bedrock/one-sided.js');
    const sentence = [{ text: 'The Customer may terminate at any time without notice.' }];
    expect(
      oneSidedWords(sentence, {
        standard: { language: 'The Customer may end it without notice.' },
        fallbacks: [],
      }),
    ).toBeUndefined();
    expect(oneSidedWords(sentence, { standard: { language: 'On thirty days notice.' }, fallbacks: [] })).toBe(
      'without notice',
    );
  });
});
