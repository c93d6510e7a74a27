import type { ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import {
  ANALYSTS,
  type AnalystDefinition,
  answerSchema,
  buildConverseInput,
  consolidateClause,
  isAnswerValidationError,
  parseAnswer,
  type RawPositionAnswer,
  withPositions,
} from '../../../lambdas/core/analysts/index.js';
import type { Clause } from '../../../lambdas/core/clause.js';
import { PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import {
  type Playbook,
  parsePlaybook,
  playbookPanel,
  positionBriefs,
  shippedPlaybooks,
} from '../../../lambdas/core/playbooks/index.js';
import { applyEdits } from '../../../lambdas/core/report-docx/index.js';
import { idempotencyKey } from '../../../lambdas/core/worker/call-key.js';

const DEFAULT = shippedPlaybooks().find((p) => p.playbook.name === 'default')?.playbook as Playbook;
const NDA = shippedPlaybooks().find((p) => p.playbook.name === 'nda')?.playbook as Playbook;

const panelOf = (playbook: Playbook, type?: string) =>
  withPositions(ANALYSTS, { party: playbook.party, positions: positionBriefs(playbook, type) });

const TEXT =
  'This Agreement renews automatically for successive one-year terms unless either party gives written notice ' +
  'of non-renewal at least ninety (90) days before the end of the then-current term.';
const clause: Clause = { index: 4, id: 'c0005', start: 1000, end: 1000 + TEXT.length, text: TEXT };

/** The default playbook with one position's standard threshold changed. */
function withCap(multiple: number): Playbook {
  return {
    ...DEFAULT,
    positions: DEFAULT.positions.map((p) =>
      p.topic === 'limitation-of-liability' ? { ...p, standard: { ...p.standard, threshold: multiple } } : p,
    ),
  };
}

const keysOf = (panel: readonly AnalystDefinition[]) =>
  Object.fromEntries(panel.map((a) => [a.id, idempotencyKey(a, clause)]));

describe('each analyst is asked about the positions of its own categories only', () => {
  it('gives every analyst the positions of its categories, and leaves an analyst with none as it was', () => {
    const panel = panelOf(NDA);
    const liability = panel.find((a) => a.id === 'liability-counsel');
    expect(liability?.playbook?.positions.map((p) => p.topic)).toEqual(['remedies-and-liability']);
    const commercial = panel.find((a) => a.id === 'commercial-terms');
    expect(commercial?.playbook).toBeUndefined();
    expect(commercial).toBe(ANALYSTS.find((a) => a.id === 'commercial-terms'));
    // A required clause with no position of its topic is judged as a position too.
    const own = parsePlaybook(
      JSON.stringify({
        ...NDA,
        requiredClauses: [
          ...NDA.requiredClauses,
          {
            topic: 'notices',
            category: 'governing-law-disputes',
            question: 'Does the contract say how notices are given?',
            importance: 'low',
            language: 'Notices are given in writing to the addresses above.',
            placement: { note: 'At the end.' },
          },
        ],
      }),
      'nda.json',
    ).playbook;
    expect(positionBriefs(own, undefined).map((p) => p.topic)).toContain('notices');
  });

  it('keys a call on its own positions: a change to one category leaves every other analyst’s ledger key alone', () => {
    const before = keysOf(panelOf(withCap(2)));
    const after = keysOf(panelOf(withCap(3)));
    const changed = Object.keys(before).filter((id) => before[id] !== after[id]);
    // Exactly the analysts that score liability: the position's category.
    expect(changed.sort()).toEqual(['liability-counsel', 'risk-transfer']);
  });

  it('keys a call on what judging needs, not on approvers, importance, guidance or the file’s layout', () => {
    const base = keysOf(panelOf(DEFAULT));
    const reworded: Playbook = {
      ...DEFAULT,
      positions: DEFAULT.positions.map((p) => ({
        ...p,
        importance: 'low',
        guidance: 'Other notes.',
        exceptionApprover: 'someone-else',
        fallbacks: p.fallbacks.map((f) => ({ ...f, approver: 'another-group' })),
      })),
    };
    expect(keysOf(panelOf(reworded))).toEqual(base);
    // The same positions written in another key order read as the same playbook.
    const reversed = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reversed)
        : v !== null && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reversed(x)]),
            )
          : v;
    const shuffled = reversed(DEFAULT) as Playbook;
    expect(JSON.stringify(shuffled.positions[0])).not.toBe(JSON.stringify(DEFAULT.positions[0]));
    expect(keysOf(panelOf(shuffled))).toEqual(base);
  });

  it('sends an analyst with no position the generic request, whatever playbook the job names', () => {
    const generic = ANALYSTS.find((a) => a.id === 'commercial-terms') as AnalystDefinition;
    const underNda = panelOf(NDA).find((a) => a.id === 'commercial-terms') as AnalystDefinition;
    expect(idempotencyKey(underNda, clause)).toBe(idempotencyKey(generic, clause));
  });

  it('leaves out the analysts a playbook gives nothing to judge, unless the full panel is kept', () => {
    const { analysts, notAsked } = playbookPanel(ANALYSTS, NDA, 'nda', false);
    expect(notAsked.map((n) => n.analystId)).toEqual(['commercial-terms']);
    expect(notAsked[0]).toMatchObject({ reason: 'playbook' });
    expect(notAsked[0]?.detail).toMatch(
      /playbook 'nda' has no position for a nda contract in payment-pricing/,
    );
    expect(analysts.every((a) => a.playbook)).toBe(true);
    expect(playbookPanel(ANALYSTS, NDA, 'nda', true).analysts).toHaveLength(ANALYSTS.length);
  });
});

const termLifecycle = () => panelOf(DEFAULT).find((a) => a.id === 'term-lifecycle') as AnalystDefinition;

/** A Converse answer of `analyst` with every position not addressed but those given. */
function answer(
  analyst: AnalystDefinition,
  positions: Record<string, Partial<RawPositionAnswer>>,
): ConverseCommandOutput {
  const assessments = Object.fromEntries(analyst.categories.map((c) => [c, { score: null, findings: [] }]));
  const all = Object.fromEntries(
    (analyst.playbook?.positions ?? []).map((p) => [
      p.topic,
      {
        rung: 'not-addressed',
        quotes: [],
        reason: 'Not dealt with.',
        ...(p.measure ? { measured: null } : {}),
        redline: null,
        ...positions[p.topic],
      },
    ]),
  );
  return {
    $metadata: {},
    output: {
      message: {
        role: 'assistant',
        content: [
          {
            toolUse: {
              toolUseId: 't',
              name: 'record_assessment',
              input: { assessments, summary: 's', positions: all } as never,
            },
          },
        ],
      },
    },
    stopReason: 'tool_use',
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    metrics: { latencyMs: 1 },
  };
}

const NINETY = TEXT.indexOf('ninety (90)');

function validationIssues(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (isAnswerValidationError(error)) return [...error.issues];
    throw error;
  }
  return [];
}

describe('a position answer is checked as findings are', () => {
  const quote = 'at least ninety (90) days before the end of the then-current term';

  it('asks for the positions in the tool schema, with the position’s own rungs', () => {
    const analyst = termLifecycle();
    const input = buildConverseInput(analyst, clause, { modelId: PRIMARY_MODEL_ID });
    const schema = input.toolConfig?.tools?.[0]?.toolSpec?.inputSchema?.json as {
      required: string[];
      properties: { positions: { properties: Record<string, { properties: { rung: { enum: string[] } } }> } };
    };
    expect(schema.required).toContain('positions');
    expect(schema.properties.positions.properties['non-renewal-notice']?.properties.rung.enum).toEqual([
      'standard',
      'fallback-1',
      'fallback-2',
      'not-acceptable',
      'not-addressed',
    ]);
    // The positions go to the model as data in a system block of their own.
    expect(input.system?.[2]?.text).toMatch(/<playbook-[0-9a-f]{16}>\n\[/);
    expect(answerSchema(analyst).safeParse({ assessments: {}, summary: '', positions: {} }).success).toBe(
      false,
    );
  });

  it('locates the quotes and keeps a redline whose offsets hold the text it deletes', () => {
    const analyst = termLifecycle();
    const parsed = parseAnswer(
      analyst,
      clause,
      answer(analyst, {
        'non-renewal-notice': {
          rung: 'fallback-2',
          quotes: [quote],
          reason: '90 days is the second fallback.',
          measured: 90,
          redline: {
            target: 'standard',
            edits: [{ start: NINETY, end: NINETY + 11, deleted: 'ninety (90)', insert: 'thirty (30)' }],
          },
        },
      }),
    );
    expect(parsed.positions).toEqual([
      {
        topic: 'non-renewal-notice',
        rung: 'fallback',
        fallback: 2,
        quotes: [
          { quote, start: 1000 + TEXT.indexOf(quote), end: 1000 + TEXT.indexOf(quote) + quote.length },
        ],
        reason: '90 days is the second fallback.',
        measured: 90,
        redline: {
          target: { rung: 'standard' },
          edits: [{ start: NINETY, end: NINETY + 11, insert: 'thirty (30)' }],
        },
      },
    ]);
  });

  /** The edits of the redline a not-acceptable answer on the notice period carries, as checked. */
  const checkedEdits = (edits: NonNullable<RawPositionAnswer['redline']>['edits']) => {
    const analyst = termLifecycle();
    const parsed = parseAnswer(
      analyst,
      clause,
      answer(analyst, {
        'non-renewal-notice': {
          rung: 'not-acceptable',
          quotes: [quote],
          reason: 'r',
          measured: 90,
          redline: { target: 'standard', edits },
        },
      }),
    );
    return parsed.positions?.[0]?.redline?.edits ?? [];
  };

  it('repairs offsets that miss the deleted text by finding the text in the clause', () => {
    expect(checkedEdits([{ start: 3, end: 14, deleted: 'ninety (90)', insert: 'thirty (30)' }])).toEqual([
      { start: NINETY, end: NINETY + 11, insert: 'thirty (30)' },
    ]);
  });

  it('takes insertions at one point and at a deletion’s edge, keeping insertions at one point in the order given', () => {
    const end = TEXT.length - 1; // before the final full stop
    const edits = checkedEdits([
      { start: end, end, deleted: '', insert: ', in writing' },
      { start: NINETY + 11, end: NINETY + 11, deleted: '', insert: ' calendar' },
      { start: NINETY, end: NINETY + 11, deleted: 'ninety (90)', insert: 'thirty (30)' },
      { start: NINETY, end: NINETY, deleted: '', insert: 'at most ' },
      { start: end, end, deleted: '', insert: ' by email' },
    ]);
    expect(edits).toEqual([
      { start: NINETY, end: NINETY, insert: 'at most ' },
      { start: NINETY, end: NINETY + 11, insert: 'thirty (30)' },
      { start: NINETY + 11, end: NINETY + 11, insert: ' calendar' },
      { start: end, end, insert: ', in writing' },
      { start: end, end, insert: ' by email' },
    ]);
    expect(applyEdits(TEXT, edits)).toBe(
      TEXT.replace('ninety (90) days', 'at most thirty (30) calendar days').replace(
        /term\.$/,
        'term, in writing by email.',
      ),
    );
  });

  it('refuses, for the repair retry, a deletion of text the clause does not hold, overlapping edits, an insertion inside a word, and a rung below the standard without a redline', () => {
    const analyst = termLifecycle();
    const issues = validationIssues(() =>
      parseAnswer(
        analyst,
        clause,
        answer(analyst, {
          'non-renewal-notice': {
            rung: 'fallback-2',
            quotes: [quote],
            reason: 'r',
            measured: 90,
            redline: {
              target: 'standard',
              edits: [{ start: NINETY, end: NINETY + 9, deleted: 'sixty (60)', insert: 'thirty (30)' }],
            },
          },
          'initial-term': {
            rung: 'not-acceptable',
            quotes: ['successive one-year terms'],
            reason: 'r',
            measured: 12,
            redline: {
              target: 'standard',
              edits: [
                { start: 10, end: 20, deleted: TEXT.slice(10, 20), insert: 'x' },
                { start: 15, end: 25, deleted: TEXT.slice(15, 25), insert: 'y' },
              ],
            },
          },
          'termination-for-convenience': {
            rung: 'not-acceptable',
            quotes: ['written notice'],
            reason: 'r',
            measured: null,
            redline: { target: 'fallback-1', edits: [{ start: 2, end: 2, deleted: '', insert: 'x' }] },
          },
          'exit-assistance': { rung: 'fallback-1', quotes: ['written notice'], reason: 'r', redline: null },
          'termination-for-breach': {
            rung: 'not-addressed',
            quotes: ['written notice'],
            reason: 'r',
            measured: null,
          },
        }),
      ),
    );
    expect(issues).toEqual([
      expect.stringMatching(
        /^positions\.non-renewal-notice\.redline\.edits\.0: deleted text not found verbatim in the clause: "sixty \(60\)"/,
      ),
      expect.stringMatching(
        /^positions\.initial-term\.redline\.edits: edits at \[10, 20\) and \[15, 25\) overlap/,
      ),
      expect.stringMatching(
        /^positions\.termination-for-convenience\.redline\.edits\.0: insertion point 2 falls inside the word "This"/,
      ),
      expect.stringMatching(
        /^positions\.termination-for-breach: quotes or a redline given with rung not-addressed/,
      ),
      expect.stringMatching(/^positions\.exit-assistance\.redline: rung fallback-1 is below the standard/),
    ]);
  });

  it('consolidates the lowest rung any analyst gave, with its redline, and every analyst’s quotes', () => {
    const lifecycle = termLifecycle();
    const balance = panelOf(DEFAULT).find((a) => a.id === 'deal-balance') as AnalystDefinition;
    const redline = {
      target: 'standard' as const,
      edits: [{ start: NINETY, end: NINETY + 11, deleted: 'ninety (90)', insert: 'thirty (30)' }],
    };
    const a = parseAnswer(
      lifecycle,
      clause,
      answer(lifecycle, {
        'non-renewal-notice': {
          rung: 'fallback-2',
          quotes: [quote],
          reason: 'second fallback',
          measured: 90,
          redline,
        },
      }),
    );
    const b = parseAnswer(
      balance,
      clause,
      answer(balance, {
        'non-renewal-notice': {
          rung: 'not-acceptable',
          quotes: ['renews automatically'],
          reason: 'too long',
          measured: 90,
          redline,
        },
      }),
    );
    const merged = consolidateClause(clause, [a, b]).positions?.[0];
    expect(merged).toMatchObject({
      rung: 'not-acceptable',
      reason: 'too long',
      analysts: ['deal-balance', 'term-lifecycle'],
    });
    expect(merged?.quotes.map((q) => q.quote)).toEqual(['renews automatically', quote]);
    expect(consolidateClause(clause, [b, a])).toEqual(consolidateClause(clause, [a, b]));
  });
});
