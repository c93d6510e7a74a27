import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import { analystById, buildConverseInput, parseAnswer } from '../../../lambdas/core/analysts/index.js';
import type { Clause } from '../../../lambdas/core/clause.js';
import { PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import {
  featureStrings,
  isLearnedModelError,
  LearnedModelError,
  loadLearnedModel,
  packWeights,
  shippedModel,
  unpackWeights,
  words,
} from '../../../lambdas/core/screen/index.js';
import { learnedModelAt, parseLearnedModel } from '../../../lambdas/core/screen/learned-model.js';
import { WEIGHTS_JSON } from '../../../lambdas/core/screen/weights.generated.js';
import { analyze } from '../../../localstack/bedrock/heuristic-analyst.js';
import {
  type AnalystRequest,
  LEARNED_LABEL,
  STAND_IN_LABEL,
} from '../../../localstack/bedrock/heuristic-types.js';
import { MIN_OVERLAP_CHARS, readLabelledContract } from '../../../localstack/bedrock/learned/cuad-data.js';
import { predict, trainLogistic } from '../../../localstack/bedrock/learned/logistic.js';
import { readPassage } from '../../../localstack/bedrock/learned/reasons.js';
import { WEIGHTS_MODULE, weightsModule } from '../../../localstack/bedrock/learned/weights-module.js';
import { offlineAnalyst, offlineAnalystNotice } from '../../../localstack/bedrock/offline-analysts.js';
import { StandInEngine } from '../../../localstack/bedrock/stand-in-engine.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/contracts');

const clauseOf = (text: string): Clause => ({ index: 0, id: 'c0001', start: 0, end: text.length, text });

/** Runs one analyst of the panel on a clause with the learned analyst and validates the answer as the worker does. */
function assess(analystId: string, text: string, analyst: 'learned' | 'heuristic' = 'learned') {
  const definition = analystById(analystId);
  const clause = clauseOf(text);
  const request = buildConverseInput(definition, clause, { modelId: PRIMARY_MODEL_ID });
  const answer = analyze(request as AnalystRequest, { analyst });
  const output = {
    output: {
      message: {
        role: 'assistant',
        content: [
          { text: answer.text },
          { toolUse: { toolUseId: 't', name: answer.tool?.name, input: answer.tool?.input } },
        ],
      },
    },
    stopReason: 'tool_use',
  } as ConverseCommandOutput;
  return { answer, parsed: parseAnswer(definition, clause, output), clause };
}

describe('features', () => {
  it('lower-cases words, folds numbers into # and adds adjacent pairs', () => {
    expect(words('Within THIRTY (30) days, 2.5%')).toEqual(['within', 'thirty', '#', 'days', '#', '#']);
    expect([...featureStrings('Either Party may terminate')]).toEqual([
      'either',
      'either party',
      'party',
      'party may',
      'may',
      'may terminate',
      'terminate',
    ]);
  });
});

describe('logistic regression and its stored form', () => {
  const examples = [
    { features: Int32Array.from([0, 1]), count: 2, labels: new Set([0]) },
    { features: Int32Array.from([0, 2]), count: 2, labels: new Set([0]) },
    { features: Int32Array.from([3, 2]), count: 2, labels: new Set<number>() },
    { features: Int32Array.from([3, 1]), count: 2, labels: new Set<number>() },
  ];
  const options = {
    labels: 1,
    dimensions: 4,
    epochs: 30,
    learningRate: 0.5,
    l2: 0,
    positiveWeight: 1,
    seed: 3,
  };

  it('is deterministic from its seed and separates what the labels separate', () => {
    const a = trainLogistic(examples, options);
    expect(Array.from(trainLogistic(examples, options).weights)).toEqual(Array.from(a.weights));
    expect(predict(a, Int32Array.from([0]), 1)[0]).toBeGreaterThan(0.8);
    expect(predict(a, Int32Array.from([3]), 1)[0]).toBeLessThan(0.2);
  });

  it('packs weights as varint deltas and int8 steps, dropping the small ones', () => {
    const dense = new Float32Array(400);
    dense[3] = 1.27;
    dense[300] = -0.5;
    dense[301] = 0.001;
    const packed = packWeights(dense, 0.01);
    expect(packed.kept).toEqual([3, 300]);
    const back = unpackWeights({ name: 'x', kind: 'risk', bias: 0, threshold: 0.5, ...packed }, 400);
    expect(back[3]).toBeCloseTo(1.27, 2);
    expect(back[300]).toBeCloseTo(-0.5, 1);
    expect(back[301]).toBe(0);
  });
});

describe('CUAD labels on clauses', () => {
  it('gives a clause the categories whose spans it holds, with spacing differences ignored', async () => {
    const contract = await readLabelledContract(
      FIXTURES,
      'GALACTICOMMTECHNOLOGIESINC_11_07_1997-EX-10_46-WEB_HOSTING_AGREEMENT',
    );
    expect(contract.unfoundPieces).toBe(0);
    const licensed = contract.clauses.filter((c) => c.cuad.has('license grant'));
    expect(licensed).toHaveLength(1);
    expect(licensed[0]?.text).toContain('right to purchase a license copy of the software');
    expect([...(licensed[0]?.risks ?? [])]).toContain('licensing');
    // Parties and document names are not mapped to a risk category.
    expect(contract.clauses.some((c) => c.cuad.has('parties'))).toBe(false);
    expect(MIN_OVERLAP_CHARS).toBe(25);
  });
});

describe('reading a passage', () => {
  it('scores a mutual, capped clause lower than a one-sided, uncapped one, and says why', () => {
    const capped = readPassage(
      'cap on liability',
      "Neither party's aggregate liability shall exceed the fees paid; in no event shall either party be liable for lost profits.",
      'Liability',
    );
    const uncapped = readPassage(
      'uncapped liability',
      'The limitations above shall not apply to the Supplier, whose liability for breach is unlimited.',
      'Liability',
    );
    expect(capped.level).toBeLessThan(uncapped.level);
    expect(uncapped.level).toBe(3);
    expect(capped.reason).toMatch(/limits liability/);
    expect(capped.reason).toMatch(/binds both sides/);
    expect(uncapped.reason).toMatch(/unlimited/);
  });

  it('names the law, the period and the amount a passage states', () => {
    const law = readPassage(
      'governing law',
      'This Agreement is governed by the laws of the State of New York.',
      'x',
    );
    expect(law.reason).toContain('the law of the State of New York');
    const notice = readPassage(
      'termination for convenience',
      'Company may terminate this Agreement at any time upon ninety (90) days written notice and pay $5,000.',
      'x',
    );
    expect(notice.reason).toContain('ninety (90) days');
    expect(notice.reason).toContain('$5,000');
    expect(notice.level).toBe(3);
  });

  it('reads a disclaimer of exclusivity as no restriction', () => {
    const open = readPassage(
      'exclusivity',
      'Nothing herein shall be construed as creating an exclusive relationship.',
      'x',
    );
    expect(open).toEqual({ reason: 'This passage says the dealing is not exclusive.', level: 0 });
    expect(readPassage('exclusivity', 'Distributor shall be the exclusive distributor.', 'x').level).toBe(2);
  });
});

describe('the learned analyst through the panel request', () => {
  it('flags a governing-law clause with a plain reason and a verbatim quote at its offsets', () => {
    const text =
      '14.2 Governing Law. This Agreement shall be governed by and construed in accordance with the laws of ' +
      'the State of Delaware, without regard to its conflict of laws principles.';
    const { answer, parsed, clause } = assess('disputes-counsel', text);
    expect(answer.text).toBe(LEARNED_LABEL);
    const law = parsed.assessments['governing-law-disputes'];
    expect(law?.score).not.toBeNull();
    const finding = law?.findings[0];
    expect(finding?.rationale).toMatch(/chooses the law .*Delaware/);
    expect(clause.text.slice(finding?.start, finding?.end)).toBe(finding?.quote);
    expect(parsed.assessments.termination?.score).toBeNull();
  });

  it('does not read a definition of a quantity as a termination right', () => {
    const text =
      '1.1 TRANSPORTATION QUANTITY - shall mean the maximum daily quantity of gas which Transporter agrees to ' +
      'receive and transport on a firm basis, subject to Article II herein, for the account of Shipper ' +
      'hereunder on each day during each year during the term hereof, which shall be 51,000 dekatherms.';
    expect(assess('term-lifecycle', text).parsed.assessments.termination?.score).toBeNull();
    expect(assess('term-lifecycle', text, 'heuristic').parsed.assessments.termination?.score).not.toBeNull();
  });

  it('answers with the heuristic when asked, and names the analyst in notices', () => {
    const { answer } = assess('liability-counsel', 'The Supplier shall indemnify the Customer.', 'heuristic');
    expect(answer.text).toBe(STAND_IN_LABEL);
    expect(offlineAnalyst('heuristic').name).toBe('heuristic');
    expect(offlineAnalyst().name).toBe('learned');
    expect(offlineAnalystNotice()).toMatch(/offline learned analyst/);
    expect(offlineAnalystNotice('heuristic')).toMatch(/offline heuristic analyst/);
  });
});

describe('the shipped weights', () => {
  it('load, with a threshold per risk category and a note of their data and figures', () => {
    const model = shippedModel();
    expect(model?.risk).toHaveLength(12);
    for (const label of model?.risk ?? []) expect(label.threshold).toBeGreaterThan(0);
    expect(String(model?.training.data)).toMatch(/CUAD v1 training set: 439 contracts/);
    expect(model?.training.development).toBeDefined();
  });

  it('refuse a missing or foreign file with an error naming it', () => {
    const missing = join(FIXTURES, 'no-such-weights.json');
    expect(() => loadLearnedModel(missing)).toThrow(LearnedModelError);
    try {
      loadLearnedModel(join(FIXTURES, 'README.md'));
    } catch (e) {
      expect(isLearnedModelError(e)).toBe(true);
      expect((e as LearnedModelError).path).toContain('README.md');
    }
    expect.assertions(3);
  });

  it('are loaded when the stand-in starts, and answer as the learned analyst', () => {
    expect(new StandInEngine().analyst).toBe('learned');
    expect(shippedModel()).toBe(shippedModel());
  });

  it('short of a risk category are an error naming it, every time they are asked for', () => {
    const dir = mkdtempSync(join(tmpdir(), 'weights-'));
    try {
      const stored = JSON.parse(WEIGHTS_JSON) as { labels: { name: string }[] };
      stored.labels = stored.labels.filter((label) => label.name !== 'termination');
      expect(() => parseLearnedModel(JSON.stringify(stored), 'weights.generated.ts')).toThrow(
        /weights.generated.ts has no weights for risk category 'termination'/,
      );
      const path = join(dir, 'weights.json');
      writeFileSync(path, JSON.stringify(stored));
      expect(() => loadLearnedModel(path)).toThrow(/no weights for risk category 'termination'/);
      // Not kept as "no model": asked again, the same error, never an answer from something else.
      for (let i = 0; i < 2; i++) {
        expect(() => learnedModelAt(path)).toThrow(LearnedModelError);
        expect(() => learnedModelAt(path)).toThrow(/'termination'/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the weights module', () => {
  it('is exactly what the training script writes for the weights it holds', () => {
    expect(readFileSync(WEIGHTS_MODULE, 'utf8')).toBe(weightsModule(WEIGHTS_JSON));
  });

  it('holds JSON text that survives the module as written', () => {
    const json = '{"format":"x","note":"a \\"quoted\\" word\\nand a line"}';
    const text = weightsModule(json);
    const literal = text.slice(text.indexOf('= ') + 2, text.lastIndexOf(';'));
    expect(JSON.parse(JSON.parse(literal) as string)).toEqual(JSON.parse(json));
  });
});
