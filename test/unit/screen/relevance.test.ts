import { describe, expect, it } from 'vitest';
import { CATEGORY_IDS } from '../../../lambdas/core/analysts/categories.js';
import { ANALYSTS, analystById } from '../../../lambdas/core/analysts/index.js';
import type { Clause } from '../../../lambdas/core/clause.js';
import { parseDocument } from '../../../lambdas/core/documents/parse.js';
import { classifyCalls } from '../../../lambdas/core/finalize/build-report.js';
import { screenedCalls, screenedPairs } from '../../../lambdas/core/finalize/screened-calls.js';
import { isJobOptionError, readJobOptions } from '../../../lambdas/core/intake/job-options.js';
import { quoteDocument } from '../../../lambdas/core/intake/quote.js';
import { chunkMessagesOf, type StoredDocument } from '../../../lambdas/core/intake/stored-document.js';
import { readSubmission } from '../../../lambdas/core/jobs/submission.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import {
  featuresOf,
  isLearnedModelError,
  isScreened,
  type LearnedModel,
  parseLearnedModel,
  probability,
  RelevanceScreen,
  riskIndex,
  screenedTexts,
  shippedModel,
  shippedScreen,
} from '../../../lambdas/core/screen/index.js';
import { WEIGHTS_JSON } from '../../../lambdas/core/screen/weights.generated.js';
import { callSk } from '../../../lambdas/core/state/keys.js';
import { consolidateChunk } from '../../../lambdas/core/worker/stages/consolidate.js';
import {
  chooseScreenThresholds,
  emptyTally,
  screenOutOfFold,
  tallyClause,
  tallyShares,
} from '../../../localstack/bedrock/learned/screen-thresholds.js';
import { fixture, SMALL } from '../../helpers/pipeline.js';

const model = shippedModel() as LearnedModel;
const GOVERNING =
  'This Agreement shall be governed by and construed in accordance with the laws of the State of New York.';
const LONG = `The Parties agree to meet quarterly to review progress. ${GOVERNING} Each party bears its own costs.`;

/** A screen over the shipped weights with the given thresholds. */
const screenWith = (thresholds: readonly number[]) =>
  new RelevanceScreen({ ...model, screen: { recallTarget: 0.9, thresholds } });

const clause = (n: number, text: string): Clause => ({
  index: n,
  id: `c${n}`,
  start: 0,
  end: text.length,
  text,
});

describe('the relevance screen', () => {
  it('ships with the weights: a threshold in [0, 1] per risk category, chosen for recall', () => {
    const screen = shippedScreen();
    expect(screen).toBeInstanceOf(RelevanceScreen);
    expect(screen?.recallTarget).toBeGreaterThanOrEqual(0.95);
    expect(model.screen?.thresholds).toHaveLength(CATEGORY_IDS.length);
    for (const t of model.screen?.thresholds ?? []) expect(t).toBeGreaterThanOrEqual(0);
  });

  it('reads the thresholds from the weights file, and names a category without one', () => {
    const stored = JSON.parse(WEIGHTS_JSON) as { screen: { thresholds: Record<string, number> } };
    expect(parseLearnedModel(WEIGHTS_JSON, 'shipped').screen?.thresholds).toEqual(
      CATEGORY_IDS.map((id) => stored.screen.thresholds[id]),
    );
    const { licensing: _gone, ...rest } = stored.screen.thresholds;
    const broken = JSON.stringify({
      ...stored,
      screen: { ...stored.screen, thresholds: { ...rest, liability: 2 } },
    });
    let error: unknown;
    try {
      parseLearnedModel(broken, 'broken.json');
    } catch (e) {
      error = e;
    }
    expect(isLearnedModelError(error) && error.message).toBe(
      "broken.json has no screen threshold in [0, 1] for 'liability' (got 2)",
    );
  });

  it('refuses weights without thresholds', () => {
    const { screen: _none, ...bare } = model;
    expect(() => new RelevanceScreen(bare)).toThrow(/no screen thresholds/);
  });

  it("scores a clause by the likeliest of its own and its sentences' probabilities", () => {
    const screen = screenWith(CATEGORY_IDS.map(() => 0.5));
    expect(screenedTexts(LONG)).toHaveLength(4);
    expect(screenedTexts(GOVERNING)).toEqual([GOVERNING]);
    const p = screen.probabilities(LONG);
    const law = riskIndex('governing-law-disputes');
    const each = screenedTexts(LONG).map((t) => {
      const { ids, count } = featuresOf(model, t);
      return probability(model.risk[law] as NonNullable<(typeof model.risk)[number]>, ids, count);
    });
    expect(p[law]).toBe(Math.max(...each));
    // The sentence about the law is likelier than the clause around it.
    expect(p[law]).toBeGreaterThan(each[0] as number);
  });

  it('asks an analyst when one of its categories reaches its threshold, and screens it with the highest probability otherwise', () => {
    const law = riskIndex('governing-law-disputes');
    const p = screenWith(CATEGORY_IDS.map(() => 1)).probabilities(GOVERNING);
    // Only the governing-law category passes: every analyst without it is screened.
    const thresholds = CATEGORY_IDS.map((_, i) => (i === law ? (p[law] as number) : 1));
    const screened = screenWith(thresholds).screenClause(GOVERNING, ANALYSTS);
    const asked = ANALYSTS.filter((a) => a.categories.includes('governing-law-disputes')).map((a) => a.id);
    expect(asked.length).toBeGreaterThan(0);
    expect(screened.map((s) => s.analystId)).toEqual(
      ANALYSTS.map((a) => a.id).filter((id) => !asked.includes(id)),
    );
    for (const s of screened) {
      const highest = Math.max(...analystById(s.analystId).categories.map((c) => p[riskIndex(c)] as number));
      expect(s.probability).toBe(Math.floor(highest * 10_000) / 10_000);
    }
    expect(screenWith(CATEGORY_IDS.map(() => 0)).screenClause(GOVERNING, ANALYSTS)).toEqual([]);
  });

  it('screens a document clause by clause, counting the pairs it leaves out', () => {
    const screen = screenWith(CATEGORY_IDS.map(() => 1));
    const doc = screen.screenDocument([clause(0, GOVERNING), clause(1, LONG)], ANALYSTS);
    expect(doc.calls).toBe(2 * ANALYSTS.length);
    expect(Object.keys(doc.screened)).toEqual(['c0', 'c1']);
    expect(isScreened(doc.screened, 'c1', 'liability-counsel')).toBe(true);
    expect(isScreened(doc.screened, 'c9', 'liability-counsel')).toBe(false);
    expect(isScreened(undefined, 'c1', 'liability-counsel')).toBe(false);
    expect(screenWith(CATEGORY_IDS.map(() => 0)).screenDocument([clause(0, GOVERNING)], ANALYSTS)).toEqual({
      screened: {},
      calls: 0,
    });
  });
});

describe("the screen's thresholds and tally", () => {
  const truth = [new Set([0]), new Set([0]), new Set([0]), new Set([0]), new Set<number>()];
  const probs = [0.4, 0.1, 0.3, 0.2, 0.9].map((p) => Float64Array.from(CATEGORY_IDS.map(() => p)));

  it("keeps at least the target share of each category's labelled clauses at or above its threshold", () => {
    expect(chooseScreenThresholds(truth, probs, 1)[0]).toBe(0.1);
    expect(chooseScreenThresholds(truth, probs, 0.75)[0]).toBe(0.2);
    expect(chooseScreenThresholds(truth, probs, 0.5)[0]).toBe(0.3);
    // A category without labelled clauses screens nothing out.
    expect(chooseScreenThresholds(truth, probs, 0.75)[1]).toBe(0);
    expect(() => chooseScreenThresholds(truth, probs, 0)).toThrow(RangeError);
  });

  it('counts the labelled pairs still asked and the calls left out', () => {
    const tally = emptyTally();
    const panel = [
      { categories: ['liability' as const] },
      { categories: ['licensing' as const, 'termination' as const] },
    ];
    tallyClause(tally, new Set(['termination', 'liability'] as const), (c) => c === 'licensing', panel);
    expect(tally).toEqual({ labelled: 2, covered: 1, calls: 2, screened: 1 });
    expect(tallyShares(tally)).toEqual({ coverage: 0.5, screenedShare: 0.5 });
    const oof = screenOutOfFold(
      truth,
      probs,
      CATEGORY_IDS.map(() => 0.2),
    );
    expect(oof.labelled).toBe(4);
    expect(oof.covered).toBe(3);
  });
});

describe('screened pairs through the job', () => {
  const screened = {
    c1: [
      { analystId: 'ip-counsel', probability: 0.0012 },
      { analystId: 'liability-counsel', probability: 0.003 },
    ],
    c2: [{ analystId: 'ip-counsel', probability: 0.0001 }],
  };
  const clauses = [clause(1, GOVERNING), clause(2, LONG), clause(3, 'Notices go to the addresses above.')];

  it('reports each screened pair with its probability, and the calls per analyst', () => {
    expect(screenedPairs(screened, 'c1')).toEqual([
      { analystId: 'ip-counsel', reason: 'screen', probability: 0.0012 },
      { analystId: 'liability-counsel', reason: 'screen', probability: 0.003 },
    ]);
    expect(screenedPairs(screened, 'c3')).toEqual([]);
    const calls = screenedCalls(screened, 3);
    expect(calls.callsScreened).toBe(3);
    expect(calls.screened?.map((r) => [r.analystId, r.calls])).toEqual([
      ['liability-counsel', 1],
      ['ip-counsel', 2],
    ]);
    expect(calls.screened?.[1]?.detail).toMatch(/in 2 of 3 clauses/);
    expect(screenedCalls(undefined, 3)).toEqual({ callsScreened: 0 });
  });

  it('carries them in the chunk messages, and counts them neither answered nor failed', () => {
    const doc: StoredDocument = {
      jobId: 'j-1',
      text: clauses.map((c) => c.text).join('\n'),
      chunks: [
        { index: 0, clauses: clauses.slice(0, 2) },
        { index: 1, clauses: clauses.slice(2) },
      ],
      screened,
    } as unknown as StoredDocument;
    const [first, second] = chunkMessagesOf(doc, 'realtime');
    expect(first?.screened).toEqual({ c1: ['ip-counsel', 'liability-counsel'], c2: ['ip-counsel'] });
    expect(second?.screened).toBeUndefined();
    const analysts = ['liability-counsel', 'ip-counsel'].map(analystById);
    const answer = JSON.stringify({
      analystId: 'liability-counsel',
      clauseId: 'c2',
      assessments: { liability: { score: null, findings: [] } },
      summary: 'none',
    });
    const entries = new Map([
      [callSk(0, 'c2', 'liability-counsel'), { status: 'done' as const, result: answer }],
    ]);
    const [c1, c2] = consolidateChunk(0, clauses.slice(0, 2), analysts, entries, first?.screened);
    // c1: both analysts screened; c2: one screened, the other answered.
    expect(c1?.coverage).toMatchObject({ analystsAnswered: [], analystsFailed: [] });
    expect(c2?.coverage).toMatchObject({ analystsAnswered: ['liability-counsel'], analystsFailed: [] });
    const counts = classifyCalls(doc, ['liability-counsel', 'ip-counsel'], [], [
      { chunk: 0, clauseId: 'c2', analystId: 'liability-counsel', status: 'done' },
      { chunk: 1, clauseId: 'c3', analystId: 'liability-counsel', status: 'done' },
      { chunk: 1, clauseId: 'c3', analystId: 'ip-counsel', status: 'failed', attempts: 3 },
    ] as never);
    expect(counts).toMatchObject({ done: 2, screened: 3, skipped: 0, cancelled: 0 });
    expect(counts.failed.map((f) => f.clauseId)).toEqual(['c3']);
    expect(counts.done + counts.screened + counts.failed.length).toBe(clauses.length * 2);
  });

  it('screens unless a job asks for the full panel', () => {
    const defaults = { lane: 'realtime' as const, ceilingMicros: 1_000_000 };
    expect(readJobOptions({}, {}, defaults).fullPanel).toBe(false);
    expect(readJobOptions({ 'full-panel': 'False' }, {}, defaults).fullPanel).toBe(false);
    expect(readJobOptions({ 'full-panel': 'TRUE' }, {}, defaults).fullPanel).toBe(true);
    expect(readJobOptions({}, { 'full-panel': 'true' }, defaults).fullPanel).toBe(true);
    let error: unknown;
    try {
      readJobOptions({ 'full-panel': 'maybe' }, {}, defaults);
    } catch (e) {
      error = e;
    }
    expect(isJobOptionError(error) && error.message).toBe(
      "the 'full-panel' option must be 'true' or 'false'; got 'maybe'",
    );
    const submitDefaults = { defaultLane: 'realtime' as const, defaultCeilingMicros: 1_000_000 };
    const fullJob = readSubmission({ fullPanel: true }, submitDefaults);
    expect(fullJob.metadata['full-panel']).toBe('true');
    expect(fullJob.options.fullPanel).toBe(true);
    expect(readSubmission({}, submitDefaults).options.fullPanel).toBe(false);
    expect(readSubmission({ fullPanel: false }, submitDefaults).options.fullPanel).toBe(false);
  });
});

describe('the quote with the screen', () => {
  it('prices only the calls asked, and says what the screened ones would have cost', async () => {
    const parsed = await parseDocument(fixture(SMALL), { key: SMALL, maxBytes: 1 << 20 });
    const options = {
      analysts: ANALYSTS.map((a) => a.id),
      models: { primary: PRIMARY_MODEL_ID, fallback: FALLBACK_MODEL_ID },
    };
    const full = quoteDocument(parsed, { ...options, fullPanel: true });
    expect(full.screen).toBeUndefined();
    expect(full.quote.screened).toBeUndefined();
    const screened = quoteDocument(parsed, options);
    expect(quoteDocument(parsed, { ...options, fullPanel: false })).toEqual(screened);
    const calls = screened.screen?.calls ?? 0;
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThan(parsed.clauses.length * ANALYSTS.length);
    expect(screened.quote.screened?.calls).toBe(calls);
    expect(screened.quote.expectedMicros).toBeLessThan(full.quote.expectedMicros);
    expect(screened.quote.expectedMicros + (screened.quote.screened?.expectedMicros ?? 0)).toBe(
      full.quote.expectedMicros,
    );
    expect(screened.screen).toEqual(shippedScreen()?.screenDocument(parsed.clauses, ANALYSTS));
  });
});
