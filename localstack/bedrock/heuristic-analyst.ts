/**
 * The offline heuristic analyst: answers a Converse request by filling the caller's own tool
 * schema with keyword-based judgements about the clause. It exists so the pipeline can run end
 * to end without a model; it is deterministic (same request, same answer) and is not, and does
 * not pretend to be, a legal-grade reviewer.
 *
 * Schemas are walked generically; meaning is attached by property names (score, findings,
 * quote, rationale, summary, ...) and category descriptions, so callers need not adapt their
 * schema to the stand-in.
 */

import { clauseIndexFor, extractClauseText } from './clause-text.js';
import { summarySentence } from './heuristic-text.js';
import type {
  AnalystAnswer,
  AnalystRequest,
  Annotations,
  OfflineAnalystName,
  ToolLike,
} from './heuristic-types.js';
import { compileSchema, type SchemaNode } from './json-schema.js';
import { offlineAnalyst } from './offline-analysts.js';
import { answerPositions } from './playbook-analyst.js';
import { ANY_CATEGORY, type CategorySpec, triggersLexicon } from './risk-lexicon.js';
import { fillSchema } from './schema-fill.js';

const SCHEMA_CACHE_LIMIT = 256;
const schemaCache = new Map<string, SchemaNode>();

/**
 * Compiles a tool input schema, cached by its JSON text so repeated calls with the same schema
 * (every call of a review) skip the work.
 */
export function compileToolSchema(schemaText: string, schema: unknown): SchemaNode {
  const cached = schemaCache.get(schemaText);
  if (cached) return cached;
  const node = compileSchema(schema);
  if (schemaCache.size >= SCHEMA_CACHE_LIMIT) schemaCache.clear();
  schemaCache.set(schemaText, node);
  return node;
}

/** The tool the caller wants used: the one named by `toolChoice.tool`, else the first. */
export function chosenTool(request: AnalystRequest): ToolLike | undefined {
  const tools = request.toolConfig?.tools ?? [];
  const choice = request.toolConfig?.toolChoice as { tool?: { name?: unknown } } | undefined;
  const named = choice?.tool?.name;
  if (typeof named === 'string') return tools.find((tool) => tool.toolSpec?.name === named);
  return tools.find((tool) => tool.toolSpec !== undefined);
}

// ---------------------------------------------------------------------------------------------
// Generation.

/** Options of {@link analyze}. */
export interface AnalyzeOptions {
  /** The compiled input schema of a tool, when the caller has it already; else it is compiled (and cached) here. */
  schemaOf?: (toolName: string) => SchemaNode | undefined;
  /**
   * Record quotes, findings and break points on the answer (default true). Only malformed
   * answers need them, so the hot path turns them off.
   */
  annotate?: boolean;
  /** Which offline analyst answers (default `learned`). */
  analyst?: OfflineAnalystName;
}

/**
 * Answers a Converse request. Deterministic: the same request always gives the same answer
 * (schema analysis and clause indexing are cached, so repeated calls are cheap).
 */
export function analyze(request: AnalystRequest, options: AnalyzeOptions = {}): AnalystAnswer {
  const { schemaOf, annotate = true } = options;
  const analyst = offlineAnalyst(options.analyst);
  const clause = extractClauseText(request.messages);
  const index = clauseIndexFor(clause);
  const tool = chosenTool(request);
  const spec = tool?.toolSpec;
  if (!spec) {
    const out: Annotations = { annotate: false, quotes: [], findings: [], breakPoints: [], categories: [] };
    return { label: analyst.label, clause, text: summarySentence({ index, analyst, key: '', out }) };
  }
  const schemaJson = spec.inputSchema?.json ?? {};
  const node = schemaOf?.(spec.name) ?? compileToolSchema(JSON.stringify(schemaJson), schemaJson);
  // A schema whose root is one assessment is about the category its tool is named after, when
  // that name means something to the lexicon; otherwise about any risk at all.
  const named: CategorySpec = {
    key: spec.name,
    description: `${spec.description ?? ''} ${node.description}`,
  };
  const { input, annotations } = fillSchema(
    node,
    index,
    triggersLexicon(named) ? named : ANY_CATEGORY,
    annotate,
    analyst,
  );
  answerPositions(request, node, input, index, analyst);
  return {
    label: analyst.label,
    clause,
    text: analyst.label,
    tool: { name: spec.name, input, ...annotations },
  };
}
