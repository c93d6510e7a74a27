/** The heuristic analyst's answer and the context it fills a schema in. */
import type { ClauseIndex } from './clause-text.js';
import type { CategoryMatch, CategorySpec, SegmentMatch } from './risk-lexicon.js';

/** Every heuristic answer's text block starts with this, so no one mistakes it for a model's opinion. */
export const STAND_IN_LABEL =
  'Offline heuristic analyst (clause-review Bedrock stand-in): not a legal-grade model.';

/** Every learned answer's text block starts with this. */
export const LEARNED_LABEL =
  'Offline learned analyst (clause-review Bedrock stand-in, trained on CUAD lawyer labels): not a legal-grade model.';

/** Name of the keyword analyst. */
export const HEURISTIC_LABEL_NAME = 'heuristic';

/** The two offline analysts: `learned` (trained weights) and `heuristic` (keyword lexicon). */
export type OfflineAnalystName = 'learned' | 'heuristic';

/** An offline analyst: its name, the label its answers start with, and how it matches a category. */
export interface OfflineAnalyst {
  readonly name: OfflineAnalystName;
  readonly label: string;
  match(index: ClauseIndex, category: CategorySpec): CategoryMatch;
}

/** The parts of a Converse request the analyst reads. */
export interface AnalystRequest {
  readonly messages: readonly { role?: unknown; content?: unknown }[];
  /** System blocks: a playbook's positions ride in one of them (playbook-analyst.ts). */
  readonly system?: readonly Record<string, unknown>[];
  readonly toolConfig?: {
    readonly tools: readonly ToolLike[];
    readonly toolChoice?: { readonly tool?: { readonly name?: unknown } } | Record<string, unknown>;
  };
}

/** A tool as sent in `toolConfig.tools`. */
export interface ToolLike {
  readonly toolSpec?: {
    readonly name: string;
    readonly description?: string;
    readonly inputSchema?: { readonly json?: unknown };
  };
}

/** Where a generated quote lives, so a malformed-answer injector can rewrite it in place. */
export interface QuoteSlot {
  readonly container: Record<string, unknown>;
  readonly key: string;
  /** The schema's maxLength for the quote, which a rewritten quote must keep to. */
  readonly maxLength?: number;
}

/** A generated findings array and a way to build one more finding for it. */
export interface FindingsSlot {
  readonly array: unknown[];
  readonly maxItems: number;
  readonly quoteMaxLength?: number;
  /** Builds a finding item whose quote is `quote` (verbatim or not: the caller decides). */
  readonly makeFinding: (quote: string) => unknown;
}

/** A place where the answer can be made to violate the caller's schema. */
export type BreakPoint =
  | {
      readonly kind: 'outOfRange';
      readonly container: Container;
      readonly key: string | number;
      readonly value: number;
    }
  | { readonly kind: 'missingRequired'; readonly container: Record<string, unknown>; readonly key: string }
  | {
      readonly kind: 'wrongType';
      readonly container: Container;
      readonly key: string | number;
      readonly value: unknown;
    };

export type Container = Record<string, unknown> | unknown[];

/** The tool call the analyst makes, with handles into the generated input. */
export interface ToolAnswer {
  readonly name: string;
  /** Fresh per call: safe to mutate. */
  input: unknown;
  readonly quotes: readonly QuoteSlot[];
  readonly findings: readonly FindingsSlot[];
  readonly breakPoints: readonly BreakPoint[];
}

/** The analyst's whole answer. */
export interface AnalystAnswer {
  /** The label of the analyst that answered ({@link STAND_IN_LABEL} or {@link LEARNED_LABEL}). */
  readonly label: string;
  /** The clause as extracted from the request (quotes are substrings of it). */
  readonly clause: string;
  /** Text block content: the label (followed by a one-line summary when no tool is offered). */
  readonly text: string;
  readonly tool?: ToolAnswer;
}

// ---------------------------------------------------------------------------------------------
// Property-name vocabulary. Keys are compared after lowercasing and dropping non-alphanumerics.

export interface CategoryContext {
  readonly spec: CategorySpec;
  readonly match: CategoryMatch;
}

export interface Ctx {
  readonly index: ClauseIndex;
  /** The analyst whose judgements fill the schema. */
  readonly analyst: OfflineAnalyst;
  /** Category a root-level assessment is about (from the tool's name and description). */
  readonly rootCategory?: CategorySpec;
  readonly key: string;
  readonly category?: CategoryContext;
  readonly finding?: SegmentMatch;
  readonly out: Annotations;
}

export interface Annotations {
  /** Whether to record quotes, findings and break points (only needed for malformed answers). */
  readonly annotate: boolean;
  readonly quotes: QuoteSlot[];
  readonly findings: FindingsSlot[];
  readonly breakPoints: BreakPoint[];
  /** Categories assessed anywhere in the answer, for summaries. */
  readonly categories: CategoryContext[];
}
