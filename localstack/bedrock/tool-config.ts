/**
 * What the stand-in derives from a request's `toolConfig`: the input-token share of the tool
 * definitions, the compiled input schemas and the canonical JSON used in call fingerprints.
 * Every call of a review sends the same (large) tool config, so this is computed once per
 * distinct config and found again with a single lookup keyed by the config's plain JSON.
 */
import { canonicalJson } from './accounting.js';
import { compileSchema, type SchemaNode } from './json-schema.js';

/** Derived facts about one tool config. */
export interface ToolConfigInfo {
  /** Characters the tool definitions add to the input: name, description and schema JSON of each tool. */
  readonly chars: number;
  /** `canonicalJson(toolConfig)`, for call fingerprints. */
  readonly canonical: string;
  /** Compiled input schema of each tool, by tool name. */
  readonly schemas: ReadonlyMap<string, SchemaNode>;
}

interface ToolConfigLike {
  readonly tools?: readonly {
    readonly toolSpec?: { name: string; description?: string; inputSchema?: { json?: unknown } };
  }[];
}

const CACHE_LIMIT = 256;
const cache = new Map<string, ToolConfigInfo>();

/** The {@link ToolConfigInfo} of a validated tool config (cached). */
export function toolConfigInfo(toolConfig: ToolConfigLike): ToolConfigInfo {
  const key = JSON.stringify(toolConfig);
  const cached = cache.get(key);
  if (cached) return cached;
  let chars = 0;
  const schemas = new Map<string, SchemaNode>();
  for (const tool of toolConfig.tools ?? []) {
    const spec = tool.toolSpec;
    if (!spec) continue;
    const schema = spec.inputSchema?.json ?? {};
    chars += spec.name.length + (spec.description?.length ?? 0) + JSON.stringify(schema).length;
    if (!schemas.has(spec.name)) schemas.set(spec.name, compileSchema(schema));
  }
  const info: ToolConfigInfo = { chars, canonical: canonicalJson(toolConfig), schemas };
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, info);
  return info;
}
