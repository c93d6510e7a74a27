import type { ContentBlock, ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import {
  type AnswerValidationError,
  analystById,
  isAnswerValidationError,
  locateQuote,
  parseAnswer,
} from '../../../lambdas/core/analysts/index.js';
import type { Clause } from '../../../lambdas/core/clause.js';

/** Section 8.8 of the Airspan distributor agreement (CUAD), byte for byte: note the runs of six spaces. */
const CLAUSE_TEXT =
  "8.8  Should orders for Equipment and Software exceed Airspan's available      inventory, Airspan will " +
  'allocate its available inventory and make      deliveries on a basis that Airspan deems equitable, in its ' +
  'sole discretion,      and without liability to Distributor on account of the method of allocation      ' +
  'chosen or its implementation.  In any event, Airspan shall not be liable      for any direct, indirect, ' +
  'consequential, or special losses or damages      (including, but not limited to, loss of income or profit ' +
  'and loss of data)      that may be suffered by the Distributor or by any other person for failure      to ' +
  'deliver or for any delay or error in delivery of Equipment or Software      for any reason whatsoever.';

/** The clause sits after other text, so clause-local and document offsets differ. */
const PREFIX =
  "8.7  Airspan will use reasonable efforts to meet Distributor's requested      delivery schedules.\n\n";
const DOCUMENT = `${PREFIX}${CLAUSE_TEXT}\n\n8.9  Title passes on delivery.`;

const clause: Clause = {
  index: 87,
  id: 'c0088',
  label: '8.8',
  heading: '8. ORDERS AND DELIVERY',
  start: PREFIX.length,
  end: PREFIX.length + CLAUSE_TEXT.length,
  text: CLAUSE_TEXT,
};

const liabilityCounsel = analystById('liability-counsel'); // liability
const riskTransfer = analystById('risk-transfer'); // warranty-insurance, liability

function toolOutput(input: unknown, stopReason: ConverseCommandOutput['stopReason'] = 'tool_use') {
  return converseOutput(
    [{ toolUse: { toolUseId: 'tooluse_1', name: 'record_assessment', input: input as never } }],
    stopReason,
  );
}

function converseOutput(
  content: ContentBlock[],
  stopReason: ConverseCommandOutput['stopReason'],
): ConverseCommandOutput {
  return {
    $metadata: { httpStatusCode: 200 },
    output: { message: { role: 'assistant', content } },
    stopReason,
    usage: { inputTokens: 900, outputTokens: 120, totalTokens: 1020 },
    metrics: { latencyMs: 800 },
  };
}

function liabilityAnswer(quote: string, score = 3) {
  return {
    assessments: {
      liability: {
        score,
        findings: [
          {
            quote,
            rationale:
              'Excludes even direct damages for delivery failures, leaving the Distributor no remedy.',
          },
        ],
      },
    },
    summary: 'Airspan excludes all liability for late or failed delivery, including direct damages.',
  };
}

function validationError(run: () => unknown): AnswerValidationError {
  try {
    run();
  } catch (e) {
    if (isAnswerValidationError(e)) return e;
    throw e;
  }
  throw new Error('expected an AnswerValidationError, got none');
}

describe('parseAnswer', () => {
  it('accepts a valid answer and locates its quote with absolute offsets', () => {
    const quote = 'for any reason whatsoever.';
    const answer = parseAnswer(liabilityCounsel, clause, toolOutput(liabilityAnswer(quote)));
    expect(answer.analystId).toBe('liability-counsel');
    expect(answer.clauseId).toBe('c0088');
    expect(answer.summary).toMatch(/^Airspan excludes/);
    expect(Object.keys(answer.assessments)).toEqual(['liability']);
    const finding = answer.assessments.liability?.findings[0];
    expect(answer.assessments.liability?.score).toBe(3);
    expect(finding?.quote).toBe(quote);
    expect(finding?.start).toBe(PREFIX.length + CLAUSE_TEXT.indexOf(quote));
    expect(finding?.end).toBe(PREFIX.length + CLAUSE_TEXT.length);
    expect(DOCUMENT.slice(finding?.start, finding?.end)).toBe(quote);
  });

  it('finds a quote that differs from the clause only in whitespace, and returns the original text', () => {
    // The model re-flowed the six-space runs of the PDF text into single spaces.
    const modelQuote =
      'Airspan shall not be liable for any direct, indirect, consequential, or special losses or damages';
    expect(CLAUSE_TEXT.includes(modelQuote)).toBe(false);
    const answer = parseAnswer(liabilityCounsel, clause, toolOutput(liabilityAnswer(`  ${modelQuote}\n`)));
    const finding = answer.assessments.liability?.findings[0];
    const original =
      'Airspan shall not be liable      for any direct, indirect, consequential, or special losses or damages';
    expect(finding?.quote).toBe(original);
    expect(finding?.start).toBe(PREFIX.length + CLAUSE_TEXT.indexOf(original));
    expect(finding?.end).toBe((finding?.start ?? 0) + original.length);
    expect(DOCUMENT.slice(finding?.start, finding?.end)).toBe(original);
  });

  it('rejects an answer whose quote is not in the clause, naming the quote', () => {
    const invented = 'Airspan shall not be liable for any damages whatsoever';
    const error = validationError(() =>
      parseAnswer(liabilityCounsel, clause, toolOutput(liabilityAnswer(invented))),
    );
    expect(error.analystId).toBe('liability-counsel');
    expect(error.clauseId).toBe('c0088');
    expect(error.issues).toEqual([
      `assessments.liability.findings.0.quote: not found verbatim in the clause: "${invented}"`,
    ]);
    expect(error.repairHint).toContain(invented);
    expect(error.message).toContain(invented);
  });

  it('does not accept a paraphrase that differs in more than whitespace (case, punctuation)', () => {
    const shouted = 'AIRSPAN SHALL NOT BE LIABLE';
    const error = validationError(() =>
      parseAnswer(liabilityCounsel, clause, toolOutput(liabilityAnswer(shouted))),
    );
    expect(error.issues[0]).toContain(shouted);
  });

  it('lists every bad quote and contradiction at once, for one repair retry', () => {
    const input = {
      assessments: {
        'warranty-insurance': { score: null, findings: [{ quote: 'make      deliveries', rationale: 'x' }] },
        liability: {
          score: 2,
          findings: [
            { quote: 'in its sole discretion', rationale: 'ok' },
            { quote: 'no liability for anything', rationale: 'invented' },
          ],
        },
      },
      summary: 'x',
    };
    const error = validationError(() => parseAnswer(riskTransfer, clause, toolOutput(input)));
    expect(error.issues).toEqual([
      'assessments.warranty-insurance: findings given with score null (not addressed); give a score or no findings',
      'assessments.liability.findings.1.quote: not found verbatim in the clause: "no liability for anything"',
    ]);
  });

  it('rejects a non-null score with no finding, whatever the score, and names the category', () => {
    for (const score of [0, 1, 2, 3]) {
      const input = {
        assessments: {
          'warranty-insurance': { score: null, findings: [] },
          liability: { score, findings: [] },
        },
        summary: 'x',
      };
      const error = validationError(() => parseAnswer(riskTransfer, clause, toolOutput(input)));
      expect(error.issues).toEqual([
        `assessments.liability: score ${score} given without a finding; support it with at least one quote ` +
          'copied from the clause, or give score null if the clause does not address the category',
      ]);
      expect(error.repairHint).toContain('assessments.liability: score');
    }
  });

  it('rejects a score whose only findings quote text the clause does not contain', () => {
    const error = validationError(() =>
      parseAnswer(
        liabilityCounsel,
        clause,
        toolOutput(liabilityAnswer('Airspan is liable for everything', 0)),
      ),
    );
    expect(error.issues).toEqual([
      'assessments.liability.findings.0.quote: not found verbatim in the clause: "Airspan is liable for everything"',
    ]);
  });

  it('accepts a score backed by one re-flowed quote among several categories', () => {
    const input = {
      assessments: {
        'warranty-insurance': { score: null, findings: [] },
        liability: { score: 0, findings: [{ quote: 'shall not be liable for any direct', rationale: 'r' }] },
      },
      summary: 'x',
    };
    const answer = parseAnswer(riskTransfer, clause, toolOutput(input));
    expect(answer.assessments.liability?.score).toBe(0);
    expect(answer.assessments.liability?.findings).toHaveLength(1);
  });

  it('rejects a response without a tool call: text answer, token limit, empty', () => {
    const text = validationError(() =>
      parseAnswer(
        liabilityCounsel,
        clause,
        converseOutput([{ text: 'The clause limits liability. Score: 3' }], 'end_turn'),
      ),
    );
    expect(text.issues).toHaveLength(1);
    expect(text.issues[0]).toMatch(
      /^no tool call: the model answered with text instead \(stopReason end_turn\)/,
    );

    const cut = validationError(() =>
      parseAnswer(
        liabilityCounsel,
        clause,
        converseOutput([{ text: '{"assessments": {"liab' }], 'max_tokens'),
      ),
    );
    expect(cut.issues[0]).toMatch(/^no tool call: the answer was cut off at the token limit/);

    const empty = validationError(() =>
      parseAnswer(liabilityCounsel, clause, converseOutput([], 'end_turn')),
    );
    expect(empty.issues[0]).toMatch(/^no tool call/);

    const otherTool = validationError(() =>
      parseAnswer(
        liabilityCounsel,
        clause,
        converseOutput([{ toolUse: { toolUseId: 't', name: 'search', input: {} } }], 'tool_use'),
      ),
    );
    expect(otherTool.issues[0]).toMatch(/^no tool call/);
  });

  it('accepts tool input sent as a JSON string, and rejects broken JSON', () => {
    const quote = 'in its sole discretion';
    const answer = parseAnswer(
      liabilityCounsel,
      clause,
      toolOutput(JSON.stringify(liabilityAnswer(quote, 1))),
    );
    expect(answer.assessments.liability?.findings[0]?.quote).toBe(quote);

    const broken = validationError(() =>
      parseAnswer(liabilityCounsel, clause, toolOutput('{"assessments": {')),
    );
    expect(broken.issues[0]).toMatch(/^\(root\): the record_assessment input is not valid JSON/);
    expect(broken.cause).toBeInstanceOf(SyntaxError);
  });

  it('lists schema violations as path: message', () => {
    const input = {
      assessments: { liability: { score: 4, findings: [] }, competition: { score: 0, findings: [] } },
    };
    const error = validationError(() => parseAnswer(liabilityCounsel, clause, toolOutput(input)));
    expect(error.issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^assessments\.liability\.score: /),
        expect.stringMatching(/^assessments: Unrecognized key: "competition"/),
      ]),
    );
  });

  it('reads a category left out as not addressed, and the compact answer as nothing found', () => {
    const liability = { score: 1, findings: [{ quote: 'without liability to Distributor', rationale: 'r' }] };
    const one = parseAnswer(riskTransfer, clause, toolOutput({ assessments: { liability }, summary: 'x' }));
    expect(Object.keys(one.assessments)).toEqual(['warranty-insurance', 'liability']);
    expect(one.assessments['warranty-insurance']).toEqual({ score: null, findings: [] });
    expect(one.assessments.liability?.score).toBe(1);
    const none = parseAnswer(riskTransfer, clause, toolOutput({ assessments: {} }));
    expect(none.assessments).toEqual({
      'warranty-insurance': { score: null, findings: [] },
      liability: { score: null, findings: [] },
    });
    expect(none.summary).toBe('');
  });

  it('keeps the categories in the analyst order with null scores as given', () => {
    const input = {
      assessments: {
        liability: { score: 1, findings: [{ quote: 'without liability to Distributor', rationale: 'r' }] },
        'warranty-insurance': { score: null, findings: [] },
      },
      summary: 'Allocation of scarce inventory without liability.',
    };
    const answer = parseAnswer(riskTransfer, clause, toolOutput(input));
    expect(Object.keys(answer.assessments)).toEqual(['warranty-insurance', 'liability']);
    expect(answer.assessments['warranty-insurance']).toEqual({ score: null, findings: [] });
    const f = answer.assessments.liability?.findings[0];
    expect(DOCUMENT.slice(f?.start, f?.end)).toBe('without liability to Distributor');
  });
});

describe('locateQuote', () => {
  it('prefers an exact match, first occurrence, without the whitespace around the quote', () => {
    expect(locateQuote('a b a b', 'a b')).toEqual({ start: 0, end: 3 });
    expect(locateQuote('x  fees paid  y', ' fees paid ')).toEqual({ start: 3, end: 12 });
  });

  it('maps a whitespace-collapsed match back to the original offsets', () => {
    const text = 'limited to\n\n  fees\u00a0paid';
    expect(locateQuote(text, 'limited to fees paid')).toEqual({ start: 0, end: text.length });
    expect(locateQuote(text, ' to   fees ')).toEqual({ start: 8, end: 18 });
  });

  it('finds nothing for absent or blank quotes', () => {
    expect(locateQuote('limited to fees paid', 'limited to fees')).toEqual({ start: 0, end: 15 });
    expect(locateQuote('limited to fees paid', 'fees payable')).toBeUndefined();
    expect(locateQuote('limited to fees paid', '   ')).toBeUndefined();
    expect(locateQuote('limited to   fees paid', '   ')).toBeUndefined();
  });
});
