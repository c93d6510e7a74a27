/**
 * A small JSON Schema normaliser: turns whatever tool input schema a caller sends (hand-written,
 * or produced by zod's `toJSONSchema`) into one uniform node shape the heuristic analyst can
 * walk without re-reading JSON Schema's many spellings (type arrays, anyOf-with-null, $ref...).
 * Only generation-relevant keywords are kept; unknown keywords are ignored.
 */

/** JSON Schema primitive type names. */
export type JsonType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null';

/** A normalised schema node. */
export interface SchemaNode {
  /** Allowed non-null types in preference order; empty means unconstrained. */
  readonly types: readonly Exclude<JsonType, 'null'>[];
  /** Whether `null` is valid. */
  readonly nullable: boolean;
  /** Whether only `null` is valid. */
  readonly onlyNull: boolean;
  readonly description: string;
  readonly hasConst: boolean;
  readonly constValue?: unknown;
  readonly enumValues?: readonly unknown[];
  readonly properties?: ReadonlyMap<string, SchemaNode>;
  readonly required: ReadonlySet<string>;
  readonly items?: SchemaNode;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly format?: string;
  /** Inclusive numeric bounds; see {@link integerBounds} for the range they allow together. */
  readonly minimum?: number;
  readonly maximum?: number;
  /** Exclusive bounds (draft-4 boolean forms are converted to these). */
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  /**
   * Non-null alternatives of an anyOf/oneOf with more than one; the node itself mirrors the
   * first, which is what generation fills.
   */
  readonly variants?: readonly SchemaNode[];
}

type RawSchema = Record<string, unknown>;

const TYPE_ORDER: readonly Exclude<JsonType, 'null'>[] = [
  'object',
  'array',
  'integer',
  'number',
  'string',
  'boolean',
];

const MAX_REF_DEPTH = 32;

const isRecord = (value: unknown): value is RawSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

function resolveRef(root: RawSchema, ref: string): RawSchema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let target: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const part = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isRecord(target)) return undefined;
    target = target[part];
  }
  return isRecord(target) ? target : undefined;
}

function typesOf(raw: RawSchema): { types: Set<JsonType>; explicit: boolean } {
  const declared = raw.type;
  if (typeof declared === 'string') return { types: new Set([declared as JsonType]), explicit: true };
  if (Array.isArray(declared)) return { types: new Set(declared as JsonType[]), explicit: true };
  // Infer from the keywords present, as validators effectively do for generation purposes.
  const inferred = new Set<JsonType>();
  if (isRecord(raw.properties)) inferred.add('object');
  if (raw.items !== undefined) inferred.add('array');
  return { types: inferred, explicit: false };
}

/** The conjuncts of an `allOf` merged shallowly: good enough for the wrappers generators emit. */
function mergeAllOf(raw: RawSchema, allOf: unknown[], root: RawSchema): RawSchema {
  const merged: RawSchema = {};
  const required: unknown[] = [];
  const properties: RawSchema = {};
  for (const part of [...allOf, { ...raw, allOf: undefined }]) {
    const resolved = isRecord(part) && typeof part.$ref === 'string' ? resolveRef(root, part.$ref) : part;
    if (!isRecord(resolved)) continue;
    Object.assign(merged, resolved);
    if (Array.isArray(resolved.required)) required.push(...resolved.required);
    if (isRecord(resolved.properties)) Object.assign(properties, resolved.properties);
  }
  delete merged.allOf;
  if (required.length > 0) merged.required = required;
  if (Object.keys(properties).length > 0) merged.properties = properties;
  return merged;
}

/** Numeric bounds; draft-4 style boolean exclusive bounds tighten the plain bound. */
function boundsOf(raw: RawSchema): {
  minimum: number | undefined;
  maximum: number | undefined;
  exclusiveMinimum: number | undefined;
  exclusiveMaximum: number | undefined;
} {
  let exclusiveMinimum = num(raw.exclusiveMinimum);
  let exclusiveMaximum = num(raw.exclusiveMaximum);
  let minimum = num(raw.minimum);
  let maximum = num(raw.maximum);
  if (raw.exclusiveMinimum === true && minimum !== undefined) {
    exclusiveMinimum = minimum;
    minimum = undefined;
  }
  if (raw.exclusiveMaximum === true && maximum !== undefined) {
    exclusiveMaximum = maximum;
    maximum = undefined;
  }
  return { minimum, maximum, exclusiveMinimum, exclusiveMaximum };
}

/** Normalises one schema (relative to `root` for $ref resolution). */
function compileNode(raw: unknown, root: RawSchema, depth: number): SchemaNode {
  if (!isRecord(raw) || depth > MAX_REF_DEPTH) {
    return {
      types: [],
      nullable: true,
      onlyNull: false,
      description: '',
      hasConst: false,
      required: new Set(),
    };
  }
  if (typeof raw.$ref === 'string') {
    const target = resolveRef(root, raw.$ref);
    const { $ref: _ignored, ...siblings } = raw;
    return compileNode({ ...(target ?? {}), ...siblings }, root, depth + 1);
  }
  if (Array.isArray(raw.allOf)) return compileNode(mergeAllOf(raw, raw.allOf, root), root, depth + 1);

  const description = typeof raw.description === 'string' ? raw.description : '';
  const alternatives = Array.isArray(raw.anyOf)
    ? raw.anyOf
    : Array.isArray(raw.oneOf)
      ? raw.oneOf
      : undefined;
  if (alternatives) {
    const compiled = alternatives.map((alt) => compileNode(alt, root, depth + 1));
    const nonNull = compiled.filter((node) => !node.onlyNull);
    const nullable = compiled.some((node) => node.nullable || node.onlyNull);
    const first = nonNull[0];
    if (!first) {
      return { types: [], nullable: true, onlyNull: true, description, hasConst: false, required: new Set() };
    }
    // The common `X | null` case folds into X itself; other unions keep their variants.
    return {
      ...first,
      nullable,
      description: description || first.description,
      variants: nonNull.length > 1 ? nonNull : undefined,
    };
  }

  const { types } = typesOf(raw);
  const nonNullTypes = TYPE_ORDER.filter((t) => types.has(t));
  const hasConst = Object.hasOwn(raw, 'const');
  const enumValues = Array.isArray(raw.enum) ? raw.enum : undefined;
  const nullable =
    types.has('null') || (enumValues?.includes(null) ?? false) || (hasConst && raw.const === null);
  const onlyNull = (types.size === 1 && types.has('null')) || (hasConst && raw.const === null);

  let properties: Map<string, SchemaNode> | undefined;
  if (isRecord(raw.properties)) {
    properties = new Map();
    for (const [key, value] of Object.entries(raw.properties)) {
      properties.set(key, compileNode(value, root, depth + 1));
    }
  }
  const required = new Set(
    Array.isArray(raw.required) ? raw.required.filter((r) => typeof r === 'string') : [],
  );

  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = boundsOf(raw);

  return {
    types: nonNullTypes,
    nullable,
    onlyNull,
    description,
    hasConst,
    constValue: hasConst ? raw.const : undefined,
    enumValues: enumValues?.filter((value) => value !== null),
    properties,
    required,
    items:
      raw.items !== undefined && !Array.isArray(raw.items)
        ? compileNode(raw.items, root, depth + 1)
        : undefined,
    minItems: num(raw.minItems),
    maxItems: num(raw.maxItems),
    minLength: num(raw.minLength),
    maxLength: num(raw.maxLength),
    format: typeof raw.format === 'string' ? raw.format : undefined,
    minimum,
    maximum,
    exclusiveMinimum,
    exclusiveMaximum,
  };
}

/** Normalises a root JSON Schema document. */
export function compileSchema(schema: unknown): SchemaNode {
  return compileNode(schema, isRecord(schema) ? schema : {}, 0);
}

/** Whether the node accepts objects with declared properties. */
export const isObjectNode = (node: SchemaNode): boolean =>
  node.properties !== undefined && (node.types.length === 0 || node.types.includes('object'));

/** The tightest inclusive integer range the node allows (undefined bounds are open). */
export function integerBounds(node: SchemaNode): { min?: number; max?: number } {
  let min = node.minimum;
  let max = node.maximum;
  if (node.exclusiveMinimum !== undefined) {
    const bound = Math.floor(node.exclusiveMinimum) + 1;
    min = min === undefined ? bound : Math.max(min, bound);
  }
  if (node.exclusiveMaximum !== undefined) {
    const bound = Math.ceil(node.exclusiveMaximum) - 1;
    max = max === undefined ? bound : Math.min(max, bound);
  }
  return {
    min: min === undefined ? undefined : Math.ceil(min),
    max: max === undefined ? undefined : Math.floor(max),
  };
}
