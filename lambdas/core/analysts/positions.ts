/**
 * An analyst's part of a playbook: the positions in its own categories, which it judges every
 * clause against besides scoring the categories. What an analyst is told of a position is what
 * judging a clause needs (question, measure, rungs with their language and thresholds, what is
 * not acceptable) and nothing else: who approves, how important it is and the guidance notes
 * are the report's, so changing them changes no call.
 *
 * The positions go into the request (a system block and the tool schema), and the call ledger's
 * key hashes the request: an analyst's calls depend on its own positions only, and an analyst
 * with none sends the generic request, whatever playbook the job names.
 */
import type { CategoryId } from './categories.js';

/** A rung as an analyst is told it: what the team accepts, its model language, its threshold. */
export interface RungBrief {
  readonly position: string;
  readonly language: string;
  readonly threshold?: number;
}

/** What an analyst is told of one position. */
export interface PositionBrief {
  readonly topic: string;
  readonly category: CategoryId;
  readonly question: string;
  readonly measure?: {
    readonly quantity: string;
    readonly unit: string;
    readonly direction: 'at-least' | 'at-most';
    readonly currency?: string;
  };
  readonly standard: RungBrief;
  /** In order of preference, at most three. */
  readonly fallbacks: readonly RungBrief[];
  readonly notAcceptable: readonly string[];
}

/** The contract's names for the two sides: the party the review is for, and the other. */
export interface ContractNames {
  readonly us: string;
  readonly them?: string;
}

/** The positions an analyst judges, and the side of the contract the team is on. */
export interface AnalystPlaybook {
  /** Which side the team is on (`customer`, `licensee`, …). */
  readonly party: string;
  /** The contract's own names for that side and the other, when its parties were read. */
  readonly names?: ContractNames;
  /** The positions of the analyst's categories, in playbook order; never empty. */
  readonly positions: readonly PositionBrief[];
}

/** What the positions and the tool schema read of an analyst: its categories, output limit and positions. */
export interface PanelAnalyst {
  readonly categories: readonly CategoryId[];
  readonly maxTokens: number;
  readonly playbook?: AnalystPlaybook;
}

/** A rung as the tool schema names it. */
export type RungValue = 'standard' | `fallback-${1 | 2 | 3}` | 'not-acceptable' | 'not-addressed';

/** The rung values a position's answer may take: its own fallbacks only. */
export function rungValues(position: Pick<PositionBrief, 'fallbacks'>): RungValue[] {
  return [
    'standard',
    ...position.fallbacks.map((_, i) => `fallback-${i + 1}` as RungValue),
    'not-acceptable',
    'not-addressed',
  ];
}

/** The rungs a redline may bring a clause to: the standard and the position's fallbacks. */
export function targetValues(position: Pick<PositionBrief, 'fallbacks'>): RungValue[] {
  return rungValues(position).slice(0, 1 + position.fallbacks.length);
}

/**
 * How far below the standard a rung is: 0 the standard, n the n-th fallback, 4 not acceptable;
 * -1 for not addressed (no rung at all).
 */
export function rungDepth(value: RungValue): number {
  if (value === 'not-addressed') return -1;
  if (value === 'standard') return 0;
  if (value === 'not-acceptable') return 4;
  return Number(value.slice('fallback-'.length));
}

/** Output tokens an answer needs per position it judges (most are "not addressed": a few tokens). */
const TOKENS_PER_POSITION = 128;
/** Room for the redlines of the positions a clause falls short of: their inserted language. */
const REDLINE_TOKENS = 1024;

/**
 * The analysts with the positions of their categories; an analyst with none is returned as it
 * was, so its requests (and their ledger keys) are the generic ones.
 *
 * @example
 * const panel = withPositions(selectAnalysts(), { party: 'customer', positions: briefs });
 */
export function withPositions<A extends PanelAnalyst>(
  analysts: readonly A[],
  playbook: {
    readonly party: string;
    readonly positions: readonly PositionBrief[];
    readonly names?: ContractNames | undefined;
  },
): A[] {
  return analysts.map((a) => {
    const mine = playbook.positions.filter((p) => a.categories.includes(p.category));
    if (mine.length === 0) return a;
    return {
      ...a,
      playbook: {
        party: playbook.party,
        positions: mine,
        ...(playbook.names ? { names: playbook.names } : {}),
      },
      maxTokens: a.maxTokens + TOKENS_PER_POSITION * mine.length + REDLINE_TOKENS,
    };
  });
}

/**
 * What an analyst is told of a position, with its keys in one order whatever order the playbook
 * file had: anything else a playbook's position carries (importance, approvers, guidance) is left out.
 */
export function orderedPosition(p: PositionBrief): PositionBrief {
  const rung = (r: RungBrief): RungBrief => ({
    position: r.position,
    language: r.language,
    ...(r.threshold !== undefined ? { threshold: r.threshold } : {}),
  });
  return {
    topic: p.topic,
    category: p.category,
    question: p.question,
    ...(p.measure
      ? {
          measure: {
            quantity: p.measure.quantity,
            unit: p.measure.unit,
            direction: p.measure.direction,
            ...(p.measure.currency ? { currency: p.measure.currency } : {}),
          },
        }
      : {}),
    standard: rung(p.standard),
    fallbacks: p.fallbacks.map(rung),
    notAcceptable: [...p.notAcceptable],
  };
}
