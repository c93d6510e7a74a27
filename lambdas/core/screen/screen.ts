/**
 * The relevance screen: before any call, which analysts' categories a clause can concern. The
 * learned classifier gives each of the twelve risk categories a probability for the clause and
 * for each of its sentences (microseconds a clause), and the clause takes the highest, so one
 * sentence about a category in a long clause is enough; a category may concern the clause when
 * that probability reaches the category's screen threshold, chosen in training for recall (at
 * least `recallTarget` of the category's labelled clauses reach it on the training set's
 * cross-validation). An analyst is asked about a
 * clause when at least one of its categories may concern it; the others are screened, each with
 * the highest probability the screen gave its categories, so the report can say why.
 *
 * The screen is recall-first: it leaves out only what the classifier is confident is absent.
 * The same code runs in intake deployed and locally, from the weights in the bundle.
 */
import type { CategoryId } from '../analysts/categories.js';
import type { Clause } from '../clause.js';
import { featuresOf, type LearnedModel, probability, riskIndex, shippedModel } from './learned-model.js';
import { segmentClause } from './sentences.js';

/** An analyst the screen does not ask about a clause. */
export interface ScreenedAnalyst {
  readonly analystId: string;
  /** The highest probability the screen gave the analyst's categories (below each one's threshold). */
  readonly probability: number;
}

/** What the screen needs to know of an analyst. */
export interface ScreenedPanelMember {
  readonly id: string;
  readonly categories: readonly CategoryId[];
}

/** A document's screen: per clause id, the analysts not asked (clauses with none are absent). */
export interface DocumentScreen {
  readonly screened: Readonly<Record<string, readonly ScreenedAnalyst[]>>;
  /** Pairs of clause and analyst not asked. */
  readonly calls: number;
}

/** Probabilities are kept to four decimals: enough to read against a threshold. */
const round4 = (p: number): number => Math.floor(p * 10_000) / 10_000;

/** The screen of one model's thresholds. */
export class RelevanceScreen {
  private readonly thresholds: readonly number[];

  /** @throws RangeError for a model without screen thresholds. */
  constructor(private readonly model: LearnedModel) {
    if (!model.screen) throw new RangeError('the classifier has no screen thresholds: train it again');
    this.thresholds = model.screen.thresholds;
  }

  /** The share of a category's labelled clauses the thresholds were chosen to keep. */
  get recallTarget(): number {
    return this.model.screen?.recallTarget ?? 1;
  }

  /** Each risk category's probability for a clause (its own or its likeliest sentence's), in CATEGORY_IDS order. */
  probabilities(text: string): Float64Array {
    const out = new Float64Array(this.model.risk.length);
    for (const part of screenedTexts(text)) {
      const { ids, count } = featuresOf(this.model, part);
      this.model.risk.forEach((label, i) => {
        out[i] = Math.max(out[i] as number, probability(label, ids, count));
      });
    }
    return out;
  }

  /**
   * The analysts of `panel` none of whose categories may concern the clause, in panel order.
   *
   * @example
   * screen.screenClause(clause, ANALYSTS).map((s) => s.analystId); // ['ip-counsel', …]
   */
  screenClause(text: string, panel: readonly ScreenedPanelMember[]): ScreenedAnalyst[] {
    const p = this.probabilities(text);
    const out: ScreenedAnalyst[] = [];
    for (const analyst of panel) {
      let highest = 0;
      let concerns = false;
      for (const category of analyst.categories) {
        const i = riskIndex(category);
        const pi = p[i] ?? 0;
        if (pi >= (this.thresholds[i] ?? 0)) concerns = true;
        highest = Math.max(highest, pi);
      }
      if (!concerns) out.push({ analystId: analyst.id, probability: round4(highest) });
    }
    return out;
  }

  /** The screen of every clause of a document for a panel. */
  screenDocument(clauses: readonly Clause[], panel: readonly ScreenedPanelMember[]): DocumentScreen {
    const screened: Record<string, ScreenedAnalyst[]> = {};
    let calls = 0;
    for (const clause of clauses) {
      const left = this.screenClause(clause.text, panel);
      if (left.length === 0) continue;
      screened[clause.id] = left;
      calls += left.length;
    }
    return { screened, calls };
  }
}

/** The texts the screen scores for a clause: the clause, then each of its sentences when it has several. */
export function screenedTexts(text: string): string[] {
  const parts = segmentClause(text);
  return parts.length > 1 ? [text, ...parts.map((p) => p.text)] : [text];
}

let shipped: RelevanceScreen | null | undefined;

/** The screen of the shipped weights; undefined when they carry no thresholds (every analyst is asked). */
export function shippedScreen(): RelevanceScreen | undefined {
  if (shipped === undefined) {
    const model = shippedModel();
    shipped = model?.screen ? new RelevanceScreen(model) : null;
  }
  return shipped ?? undefined;
}

/** Whether the screen leaves `analystId` out of `clauseId` in a document's screen. */
export function isScreened(
  screened: Readonly<Record<string, readonly { readonly analystId: string }[]>> | undefined,
  clauseId: string,
  analystId: string,
): boolean {
  return screened?.[clauseId]?.some((s) => s.analystId === analystId) ?? false;
}
